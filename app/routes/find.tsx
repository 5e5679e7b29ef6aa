import type { LoaderFunctionArgs } from '@remix-run/node'
import { findTermsByName, NAME_MATCHES } from '#app/pages/home.server.ts'
import { formAction, parseForm } from '#app/pages/forms.server.ts'
import { requireUser } from '#app/pages/session.server.ts'
import { SearchRequestSchema } from '#app/schemas/rag.ts'
import { searchTerms } from '#app/services/search/search.server.ts'

/** How many terms found by meaning the home page's search box shows as you type. */
const MEANING_MATCHES = 5

/**
 * `/find?q=…`: the home page's search box as you type (a resource route its fetchers load; without JavaScript
 * the box is a GET form to `/search`). `by=name` (the default): terms whose name or notation contains `q`;
 * `by=meaning`: the search by meaning's best terms, or its failure's code when it cannot run.
 */
export async function loader({ request }: LoaderFunctionArgs) {
  await requireUser(request)
  const params = new URL(request.url).searchParams
  const q = (params.get('q') ?? '').trim().slice(0, 200)
  if (q === '') return { q, by: 'name' as const, ok: true as const, items: [], total: 0 }
  if (params.get('by') === 'meaning') {
    const parsed = parseForm(SearchRequestSchema, { query: q, topK: MEANING_MATCHES })
    if (!parsed.ok) return { q, by: 'meaning' as const, ...parsed }
    return formAction(async () => {
      const result = await searchTerms(parsed.data)
      const seen = new Set<string>()
      const items = result.items
        .filter((item) => !seen.has(item.termId) && seen.add(item.termId))
        .map((item) => ({ id: item.termId, slug: item.slug, name: item.title, status: item.status }))
      return { q, by: 'meaning' as const, ok: true as const, items, total: items.length }
    })
  }
  const found = await findTermsByName(q, { limit: NAME_MATCHES })
  return { q, by: 'name' as const, ok: true as const, ...found }
}
