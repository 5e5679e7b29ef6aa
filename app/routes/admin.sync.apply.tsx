import type { ActionFunctionArgs } from '@remix-run/node'
import { ndjsonResponse } from '#app/lib/ndjson.ts'
import { requireUserAction } from '#app/pages/session.server.ts'
import { applyWithProgress } from '#app/pages/sync-page.server.ts'

/**
 * The sync page's "apply" with JavaScript (issue 30: "apply with a progress bar"): applies the previewed
 * upload and streams its progress back in this very response (newline-delimited JSON: progress lines, then
 * `done` with the upload's id or `failed` with the reason), so the page draws a real progress bar and then
 * opens the result. The session is checked before the apply starts: on the embedded database the apply's
 * transaction holds the only connection until it commits. Without JavaScript the page's own action starts the
 * apply in the background and shows its progress (`startApply`).
 */
export async function action({ request }: ActionFunctionArgs) {
  const actor = await requireUserAction(request, 'admin')
  const form = await request.formData()
  return ndjsonResponse(
    applyWithProgress(String(form.get('upload') ?? ''), {
      actor,
      keepLocalEdits: form.get('keepLocalEdits') === 'on',
    }),
  )
}
