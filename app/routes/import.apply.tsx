import type { ActionFunctionArgs } from '@remix-run/node'
import { AppError, validationError } from '#app/lib/errors.server.ts'
import { failureText } from '#app/pages/forms.server.ts'
import { readImportForm } from '#app/pages/import.server.ts'
import { requireUserAction } from '#app/pages/session.server.ts'
import { ndjsonResponse } from '#app/lib/ndjson.ts'
import { followImportJob } from '#app/services/import/import-jobs.server.ts'
import { runImport } from '#app/services/import/import.server.ts'

/**
 * The import page's "apply" with JavaScript: starts the import and streams its progress back in this very
 * response (newline-delimited JSON, one line per batch of rows written, the finished job last). The session
 * is checked before the job starts, so progress flows even on the embedded database, whose only connection
 * the import's transaction holds until it commits. Without JavaScript the page's own action applies and
 * redirects to the job. A form that cannot be applied answers `{ ok: false, formError }` with the error's
 * status (a plain Response: this is a resource route, not a page action).
 */
export async function action({ request }: ActionFunctionArgs) {
  const actor = await requireUserAction(request, 'editor')
  try {
    const form = await readImportForm(request)
    if (form.intent !== 'apply') {
      throw validationError(
        [{ path: 'intent', message: 'Only applies.' }],
        'This address only applies imports.',
      )
    }
    const result = await runImport({ input: form.input, actorId: actor.user.id })
    if (result.kind !== 'job') throw new Error('an apply must start a job')
    return ndjsonResponse(await followImportJob(result.job.id))
  } catch (error) {
    if (error instanceof AppError) {
      return Response.json({ ok: false, formError: failureText(error) }, { status: error.status })
    }
    throw error
  }
}
