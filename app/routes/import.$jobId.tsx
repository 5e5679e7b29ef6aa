import { data, type LoaderFunctionArgs } from '@remix-run/node'
import { orErrorPage, requireUser } from '#app/lib/pages.server.ts'
import { ImportJobParamsSchema } from '#app/schemas/import.ts'
import { getImportJob } from '#app/services/import/import-jobs.server.ts'

/** Resource route polled by the import page: the job's progress, and its per-row report once finished. */
export async function loader({ request, params }: LoaderFunctionArgs) {
  await requireUser(request, 'editor')
  const parsed = ImportJobParamsSchema.safeParse(params)
  if (!parsed.success) throw data({ message: 'No such import job.' }, { status: 404 })
  const job = await orErrorPage(() => getImportJob(parsed.data))
  return { job }
}
