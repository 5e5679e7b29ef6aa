import { data, type ActionFunctionArgs } from '@remix-run/node'
import { AppError } from '#app/lib/errors.server.ts'
import { readImportForm } from '#app/lib/import-form.server.ts'
import { requireUserAction, type FormFailure } from '#app/lib/pages.server.ts'
import { importProgressResponse, runImport } from '#app/services/import/import.server.ts'

/**
 * The import page's "apply" with JavaScript: starts the import and streams its progress back in this very
 * response (newline-delimited JSON, one line per batch of rows written, the finished job last). The session
 * is checked before the job starts, so progress flows even on the embedded database, whose only connection
 * the import's transaction holds until it commits. Without JavaScript the page's own action applies and
 * redirects to the job.
 */
export async function action({ request }: ActionFunctionArgs) {
  const actor = await requireUserAction(request, 'editor')
  const form = await readImportForm(request)
  if (!form.ok) return data<FormFailure>({ ok: false, formError: form.formError }, { status: form.status })
  if (form.intent !== 'apply') {
    return data<FormFailure>({ ok: false, formError: 'This address only applies imports.' }, { status: 400 })
  }
  try {
    const result = await runImport({ input: form.input, actorId: actor.user.id })
    if (result.kind !== 'job') throw new Error('an apply must start a job')
    return await importProgressResponse(result.job.id)
  } catch (error) {
    if (error instanceof AppError) {
      return data<FormFailure>({ ok: false, formError: error.message }, { status: error.status })
    }
    throw error
  }
}
