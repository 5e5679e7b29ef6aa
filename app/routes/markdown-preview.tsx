import { data, type ActionFunctionArgs } from '@remix-run/node'
import { requireUserAction } from '#app/pages/session.server.ts'
import { LIMITS } from '#app/schemas/terms.ts'
import { renderMarkdown } from '#app/services/markdown/render.server.ts'

/**
 * Resource route of the editor's Markdown preview (fetcher): POST `body` → `{ html }`, the same sanitized
 * rendering as the term page. Signed-in users only, with the same-origin check of every form post.
 */
export async function action({ request }: ActionFunctionArgs) {
  await requireUserAction(request)
  const form = await request.formData()
  const body = String(form.get('body') ?? '').replace(/\r\n/g, '\n')
  if (body.length > LIMITS.body) {
    return data({ html: '', error: `The body may have at most ${LIMITS.body} characters.` }, { status: 413 })
  }
  return { html: renderMarkdown(body) }
}

export function loader() {
  throw data({ message: 'Not found' }, { status: 404 })
}
