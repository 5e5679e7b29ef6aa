import {
  data,
  MaxPartSizeExceededError,
  redirect,
  unstable_createMemoryUploadHandler,
  unstable_parseMultipartFormData,
  type ActionFunctionArgs,
  type LoaderFunctionArgs,
  type MetaFunction,
} from '@remix-run/node'
import { Form, Link, useActionData, useFetcher, useLoaderData, useNavigation } from '@remix-run/react'
import { useEffect } from 'react'
import { FormError } from '#app/components/forms.tsx'
import { orNotFound } from '#app/components/terms/loaders.server.ts'
import { fill, formatDate, termHref } from '#app/components/terms/ui.tsx'
import { AppError } from '#app/lib/errors.server.ts'
import type { MessageKey } from '#app/lib/i18n.ts'
import { requireUser, requireUserAction, type FormFailure } from '#app/lib/pages.server.ts'
import { useT } from '#app/root.tsx'
import {
  IMPORT_MAX_BYTES,
  IMPORT_MAX_ROWS,
  ImportJobParamsSchema,
  ImportSchema,
} from '#app/schemas/import.ts'
import {
  getImportJob,
  runImport,
  type ImportJobDto,
  type ReportRow,
} from '#app/services/import/import.server.ts'

export const meta: MetaFunction = () => [{ title: 'Import · Glossary' }]

export async function loader({ request }: LoaderFunctionArgs) {
  await requireUser(request, 'editor')
  const jobParam = new URL(request.url).searchParams.get('job')
  const jobId = jobParam ? ImportJobParamsSchema.safeParse({ jobId: jobParam }) : null
  if (jobId && !jobId.success) throw data({ message: 'No such import job.' }, { status: 404 })
  const job = jobId?.success ? await orNotFound(() => getImportJob(jobId.data)) : null
  return { job, maxBytes: IMPORT_MAX_BYTES, maxRows: IMPORT_MAX_ROWS }
}

const uploadHandler = unstable_createMemoryUploadHandler({ maxPartSize: IMPORT_MAX_BYTES })

type Format = 'csv' | 'json'

function failure(formError: string, status = 400) {
  return data<FormFailure>({ ok: false, formError }, { status })
}

export async function action({ request }: ActionFunctionArgs) {
  const actor = await requireUserAction(request, 'editor')
  let form: FormData
  try {
    form = await unstable_parseMultipartFormData(request, uploadHandler)
  } catch (error) {
    if (error instanceof MaxPartSizeExceededError) {
      return failure(`The file may be at most ${Math.floor(IMPORT_MAX_BYTES / 1024 / 1024)} MB.`, 413)
    }
    throw error
  }
  const intent = form.get('intent') === 'apply' ? 'apply' : 'dry-run'
  const file = form.get('file')
  const fileName = file instanceof File && file.size > 0 ? file.name : String(form.get('fileName') ?? '')
  const content =
    file instanceof File && file.size > 0
      ? await file.text()
      : String(form.get('content') ?? '').replace(/\r\n/g, '\n')
  if (!content.trim()) return failure('Choose a CSV or JSON file, or paste its content.')
  const chosen = String(form.get('format') ?? 'auto')
  const format: Format =
    chosen === 'csv' || chosen === 'json'
      ? chosen
      : /\.json$/i.test(fileName) || /^\s*[[{]/.test(content.replace(/^\uFEFF/, ''))
        ? 'json'
        : 'csv'
  let body: Record<string, unknown>
  if (format === 'json') {
    let parsedJson: unknown
    try {
      parsedJson = JSON.parse(content.replace(/^\uFEFF/, ''))
    } catch {
      return failure('The file is not valid JSON.')
    }
    const rows = Array.isArray(parsedJson) ? parsedJson : (parsedJson as { rows?: unknown } | null)?.rows
    if (!Array.isArray(rows))
      return failure('JSON must be an array of terms, or an object with a `rows` array.')
    body = { format, rows }
  } else {
    body = { format, csv: content }
  }
  const input = ImportSchema.safeParse({ ...body, dryRun: intent === 'dry-run' })
  if (!input.success) {
    return failure(input.error.issues.map((i) => `${i.path.join('.') || 'file'}: ${i.message}`).join(' '))
  }
  try {
    const result = await runImport({ input: input.data, actorId: actor.user.id })
    if (result.kind === 'job') return redirect(`/import?job=${result.job.id}`)
    return { ok: true as const, report: result.report, content, format, fileName }
  } catch (error) {
    if (error instanceof AppError) return failure(error.message, error.status)
    throw error
  }
}

/** Rows shown in a report table: every error row, then the others up to a limit (the counts cover all). */
const SHOWN_ROWS = 300

function ReportTable({ rows, dryRun }: { rows: ReportRow[]; dryRun: boolean }) {
  const t = useT()
  const errors = rows.filter((r) => r.action === 'error')
  const shown = [...errors, ...rows.filter((r) => r.action !== 'error')].slice(
    0,
    Math.max(SHOWN_ROWS, errors.length),
  )
  return (
    <>
      <table className="import-report" data-testid="import-report">
        <thead>
          <tr>
            <th>{t('import.row')}</th>
            <th>{t('import.action')}</th>
            <th>{t('term.slug')}</th>
            <th>{t('term.name')}</th>
            <th>{t('import.reason')}</th>
          </tr>
        </thead>
        <tbody>
          {shown.map((r) => (
            <tr key={r.row} data-action={r.action}>
              <td>{r.row}</td>
              <td>
                <span className={`badge action-${r.action}`}>
                  {t(`import.action.${r.action}` as MessageKey)}
                </span>
              </td>
              <td>
                {/* A dry run's new rows do not exist yet. */}
                {r.slug && r.termId && !(dryRun && r.action === 'created') ? (
                  <Link to={termHref(r.slug)}>{r.slug}</Link>
                ) : (
                  (r.slug ?? '—')
                )}
              </td>
              <td>{r.name ?? '—'}</td>
              <td className="small">{r.errors?.map((e) => `${e.path}: ${e.message}`).join('; ')}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {shown.length < rows.length ? (
        <p className="muted small">
          {fill(t('import.moreRows'), { shown: shown.length, total: rows.length })}
        </p>
      ) : null}
    </>
  )
}

function Counts({
  counts,
}: {
  counts: { total: number; created: number; updated: number; unchanged: number; errors: number }
}) {
  const t = useT()
  return (
    <p className="summary" role="status">
      {fill(t('import.counts'), counts)}
    </p>
  )
}

const POLL_MS = 700

/** A running job's progress: polled through the job resource route with JavaScript, a page refresh without. */
function JobProgress({ initial }: { initial: ImportJobDto }) {
  const t = useT()
  const poll = useFetcher<{ job: ImportJobDto }>()
  const job = poll.data?.job ?? initial
  const running = job.status === 'running'
  useEffect(() => {
    if (!running || poll.state !== 'idle') return
    const timer = setTimeout(() => poll.load(`/import/${job.id}`), POLL_MS)
    return () => clearTimeout(timer)
  }, [running, poll, job.id])
  return (
    <section aria-labelledby="job-title" data-testid="import-job" data-status={job.status}>
      {running ? (
        <noscript>
          <meta httpEquiv="refresh" content="2" />
        </noscript>
      ) : null}
      <h2 id="job-title">{t(`import.job.${job.status}` as MessageKey)}</h2>
      <p className="muted small">
        {formatDate(job.createdAt)}
        {job.finishedAt ? ` – ${formatDate(job.finishedAt)}` : ''}
      </p>
      <progress max={Math.max(1, job.total)} value={job.processed} aria-label={t('import.progress')} />{' '}
      <span>{fill(t('import.processed'), { processed: job.processed, total: job.total })}</span>
      {running ? (
        <noscript>
          <p>
            <Link to={`/import?job=${job.id}`}>{t('import.refresh')}</Link>
          </p>
        </noscript>
      ) : null}
      {job.error ? (
        <p role="alert" className="error">
          {job.error}
        </p>
      ) : null}
      {!running ? <Counts counts={job} /> : null}
      {job.rows ? <ReportTable rows={job.rows} dryRun={false} /> : null}
    </section>
  )
}

export default function ImportPage() {
  const t = useT()
  const { job, maxBytes, maxRows } = useLoaderData<typeof loader>()
  const result = useActionData<typeof action>()
  const busy = useNavigation().state !== 'idle'
  const report = result && result.ok ? result : undefined
  return (
    <section>
      <h1>{t('import.title')}</h1>
      <p className="muted">
        {fill(t('import.intro'), { rows: maxRows, mb: Math.floor(maxBytes / 1024 / 1024) })}{' '}
        <a href="/api/v1/import/template.csv" download>
          {t('import.template')}
        </a>
      </p>

      {job ? <JobProgress key={job.id} initial={job} /> : null}

      <Form method="post" encType="multipart/form-data" className="stack wide">
        <FormError result={result} />
        <label>
          {t('import.file')}
          <input type="file" name="file" accept=".csv,.json,text/csv,application/json" />
        </label>
        <label>
          {t('import.paste')}
          <textarea name="content" rows={4} defaultValue={report && !report.fileName ? report.content : ''} />
        </label>
        <label>
          {t('import.format')}
          <select name="format" defaultValue="auto">
            <option value="auto">{t('import.formatAuto')}</option>
            <option value="csv">CSV</option>
            <option value="json">JSON</option>
          </select>
        </label>
        <div className="row-actions">
          <button type="submit" name="intent" value="dry-run" disabled={busy}>
            {t('import.dryRun')}
          </button>
          <button type="submit" name="intent" value="apply" className="secondary" disabled={busy}>
            {t('import.applyNow')}
          </button>
        </div>
      </Form>

      {report ? (
        <section aria-labelledby="dry-run-title">
          <h2 id="dry-run-title">
            {fill(t('import.dryRunTitle'), { file: report.fileName || report.format.toUpperCase() })}
          </h2>
          <Counts counts={report.report} />
          <Form method="post" encType="multipart/form-data">
            <input type="hidden" name="intent" value="apply" />
            <input type="hidden" name="format" value={report.format} />
            <input type="hidden" name="fileName" value={report.fileName} />
            <textarea name="content" hidden readOnly value={report.content} />
            {report.report.errors > 0 ? (
              <p className="error">{t('import.fixErrors')}</p>
            ) : (
              <button type="submit" disabled={busy}>
                {fill(t('import.apply'), { total: report.report.total })}
              </button>
            )}
          </Form>
          <ReportTable rows={report.report.rows} dryRun />
        </section>
      ) : null}
    </section>
  )
}
