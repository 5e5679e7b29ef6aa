import type { LoaderFunctionArgs } from '@remix-run/node'
import { orErrorPage } from '#app/pages/forms.server.ts'
import { requireUser } from '#app/pages/session.server.ts'
import { getImportJob } from '#app/services/import/import-jobs.server.ts'

/** Resource route polled by the import page: the job's progress, and its per-row report once finished. */
export async function loader({ request, params }: LoaderFunctionArgs) {
  await requireUser(request, 'editor')
  const job = await orErrorPage(() => getImportJob({ jobId: params.jobId ?? '' }))
  return { job }
}
