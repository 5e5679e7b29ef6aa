import type { ActionFunctionArgs } from '@remix-run/node'
import { expectedError } from '#app/lib/errors.server.ts'
import { redirectWithFlash } from '#app/lib/flash.server.ts'
import { failureText } from '#app/pages/forms.server.ts'
import { requireUserAction } from '#app/pages/session.server.ts'
import { exportDownload } from '#app/pages/sync-page.server.ts'

/**
 * The sync page's export button (issue 30, "Admin screen"): writes one bundle (full or incremental, with an
 * optional label) and answers it as a download named like the bundle. A plain form post, so the browser saves
 * the file with JavaScript or without; a refused export goes back to the page with the reason as a flash.
 */
export async function action({ request, context }: ActionFunctionArgs) {
  const actor = await requireUserAction(request, 'admin')
  try {
    return await exportDownload(await request.formData(), actor)
  } catch (thrown) {
    const error = expectedError(thrown)
    if (!error) throw thrown
    throw redirectWithFlash(
      '/admin/sync',
      { kind: 'error', message: 'flash.syncExportFailed', values: { reason: failureText(error) } },
      context,
    )
  }
}
