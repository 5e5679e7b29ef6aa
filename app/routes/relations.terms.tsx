import type { LoaderFunctionArgs } from '@remix-run/node'
import { requireUser } from '#app/pages/session.server.ts'
import { searchRelationTerms } from '#app/services/relations/read.server.ts'

/**
 * `/relations/terms?q=…`: the term picker's suggestions as you type (a resource route its fetcher loads; the
 * picker works without it, the form resolving the typed name on submit). The terms whose name or notation
 * contains `q`, exact and prefix matches first, with the current revision and definition: the same service as
 * the API's `GET /relations/terms`.
 */
export async function loader({ request }: LoaderFunctionArgs) {
  await requireUser(request)
  const q = (new URL(request.url).searchParams.get('q') ?? '').trim().slice(0, 200)
  if (q === '') return { q, items: [], total: 0 }
  return { q, ...(await searchRelationTerms({ q })) }
}
