import {
  redirect,
  type ActionFunctionArgs,
  type LoaderFunctionArgs,
  type MetaFunction,
} from '@remix-run/node'
import {
  Form,
  Link,
  useActionData,
  useFetcher,
  useLoaderData,
  useNavigate,
  useNavigation,
} from '@remix-run/react'
import { useEffect, useState, type FormEvent } from 'react'
import { pageTitle } from '#app/lib/page-title.ts'
import { ClassificationImportHint } from '#app/components/classification-hint.tsx'
import { useDataTable } from '#app/components/data-table.tsx'
import { errorProps, fieldError, FieldError, FormError } from '#app/components/forms.tsx'
import { formatDate, termHref, useCount, useNumber } from '#app/components/terms/ui.tsx'
import { redirectWithFlash } from '#app/lib/flash.server.ts'
import { fill, formatNumber, translateCount, type MessageKey } from '#app/lib/i18n.ts'
import { readNdjson } from '#app/lib/ndjson.ts'
import { readImportForm } from '#app/pages/import.server.ts'
import { formAction, orErrorPage } from '#app/pages/forms.server.ts'
import { requireUser, requireUserAction } from '#app/pages/session.server.ts'
import { pageLang } from '#app/lib/request-lang.server.ts'
import { useT } from '#app/root.tsx'
import {
  IMPORT_MAX_BYTES,
  IMPORT_MAX_ROWS,
  type FieldChange,
  type ImportJob,
  type ReportRow,
} from '#app/schemas/import.ts'
import {
  getImportJob,
  listImportJobs,
  type ImportJobSummary,
} from '#app/services/import/import-jobs.server.ts'
import { runImport } from '#app/services/import/import.server.ts'

export const meta: MetaFunction = ({ matches }) => [{ title: pageTitle(matches, 'import.title') }]

/** Jobs listed under "recent imports", so one started elsewhere (or left while it ran) can be found again. */
const RECENT_JOBS = 10

/**
 * An apply leads to its job's page with this mark (with JavaScript once the streamed job is done, without it
 * while the page refreshes itself): when the job has finished, the page drops the mark and says once, as a
 * flash message, what was imported. A failed job says so on the page itself.
 */
const ANNOUNCE = 'announce'
const jobAddress = (jobId: string, announce = false) =>
  `/import?job=${encodeURIComponent(jobId)}${announce ? `&${ANNOUNCE}=1` : ''}`

export async function loader({ request, context }: LoaderFunctionArgs) {
  await requireUser(request, 'editor')
  const url = new URL(request.url)
  const jobParam = url.searchParams.get('job')
  // An id that is not a job's (malformed or unknown) is the 404 page, through the service's not_found.
  const job = jobParam ? await orErrorPage(() => getImportJob({ jobId: jobParam })) : null
  if (job && job.status !== 'running' && url.searchParams.has(ANNOUNCE)) {
    if (job.status !== 'succeeded') throw redirect(jobAddress(job.id))
    throw redirectWithFlash(
      jobAddress(job.id),
      {
        kind: 'success',
        message: 'flash.imported',
        values: {
          rows: translateCount(pageLang(), 'count.row', job.total),
          created: formatNumber(pageLang(), job.created),
          updated: formatNumber(pageLang(), job.updated),
          unchanged: formatNumber(pageLang(), job.unchanged),
        },
      },
      context,
    )
  }
  const recent = await listImportJobs({ limit: RECENT_JOBS })
  return { job, recent, maxBytes: IMPORT_MAX_BYTES, maxRows: IMPORT_MAX_ROWS }
}

export async function action({ request }: ActionFunctionArgs) {
  const actor = await requireUserAction(request, 'editor')
  return formAction(async () => {
    const form = await readImportForm(request)
    const result = await runImport({ input: form.input, actorId: actor.user.id })
    if (result.kind === 'job') throw redirect(jobAddress(result.job.id, true))
    return {
      ok: true as const,
      report: result.report,
      content: form.content,
      format: form.format,
      fileName: form.fileName,
      emptyCells: form.input.emptyCells,
    }
  })
}

/** Rows shown in a report table: every error row, then the others up to a limit (the counts cover all). */
const SHOWN_ROWS = 300

function ReportTable({ rows, dryRun }: { rows: ReportRow[]; dryRun: boolean }) {
  const t = useT()
  const count = useCount()
  const number = useNumber()
  const errors = rows.filter((r) => r.action === 'error')
  const shown = [...errors, ...rows.filter((r) => r.action !== 'error')].slice(
    0,
    Math.max(SHOWN_ROWS, errors.length),
  )
  const table = useDataTable(
    {
      row: 'import.row',
      action: 'import.action',
      slug: 'term.slug',
      name: 'term.name',
      reason: 'import.reason',
      changes: 'import.changes',
    },
    { className: 'import-report', testId: 'import-report' },
  )
  return (
    <>
      <table {...table.props}>
        {table.head}
        <tbody {...table.body}>
          {shown.map((r) => (
            <tr {...table.row} key={r.row} data-action={r.action}>
              <td {...table.cell('row')}>{r.row}</td>
              <td {...table.cell('action')}>
                <span className={`badge action-${r.action}`}>
                  {t(`import.action.${r.action}` as MessageKey)}
                </span>
              </td>
              <td {...table.cell('slug')}>
                {/* A dry run's new rows do not exist yet. */}
                {r.slug && r.termId && !(dryRun && r.action === 'created') ? (
                  <Link to={termHref(r.slug)}>{r.slug}</Link>
                ) : (
                  (r.slug ?? '—')
                )}
              </td>
              <td {...table.cell('name')}>{r.name ?? '—'}</td>
              <td {...table.cell('reason')} className="small">
                {r.errors?.map((e) => `${e.path}: ${e.message}`).join('; ')}
              </td>
              <td {...table.cell('changes')} className="small">
                {r.changes?.length ? <Changes changes={r.changes} /> : null}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {shown.length < rows.length ? (
        <p className="muted small">
          {fill(t('import.moreRows'), {
            shown: number(shown.length),
            rows: count('count.row', rows.length),
          })}
        </p>
      ) : null}
    </>
  )
}

/** What an updated row changes, field by field: the stored value struck through, the new one after it. */
function Changes({ changes }: { changes: FieldChange[] }) {
  const t = useT()
  return (
    <dl className="import-changes" data-testid="import-changes">
      {changes.map((c) => (
        <div key={c.field} data-field={c.field}>
          <dt>{t(`term.${c.field}` as MessageKey)}</dt>
          <dd>
            <del>{c.before ?? '—'}</del> → <ins>{c.after ?? '—'}</ins>
          </dd>
        </div>
      ))}
    </dl>
  )
}

function Counts({
  counts,
}: {
  counts: { total: number; created: number; updated: number; unchanged: number; errors: number }
}) {
  const t = useT()
  const count = useCount()
  const number = useNumber()
  return (
    <p className="summary" role="status">
      {fill(t('import.counts'), {
        rows: count('count.row', counts.total),
        created: number(counts.created),
        updated: number(counts.updated),
        unchanged: number(counts.unchanged),
        errors: number(counts.errors),
      })}
    </p>
  )
}

const POLL_MS = 700

/**
 * A job's progress. A job started from this page with JavaScript arrives `streamed` (the parent passes each
 * state read from the apply response); one opened by its address is polled through the job resource route
 * with JavaScript, and refreshed without.
 */
function JobProgress({ initial, streamed = false }: { initial: ImportJob; streamed?: boolean }) {
  const t = useT()
  const count = useCount()
  const number = useNumber()
  const poll = useFetcher<{ job: ImportJob }>()
  const job = streamed ? initial : (poll.data?.job ?? initial)
  const running = job.status === 'running'
  useEffect(() => {
    if (streamed || !running || poll.state !== 'idle') return
    const timer = setTimeout(() => poll.load(`/import/${job.id}`), POLL_MS)
    return () => clearTimeout(timer)
  }, [streamed, running, poll, job.id])
  return (
    <section
      aria-labelledby="job-title"
      className="import-job"
      data-testid="import-job"
      data-status={job.status}
    >
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
      <span>
        {fill(t('import.processed'), {
          processed: number(job.processed),
          rows: count('count.row', job.total),
        })}
      </span>
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

/**
 * Applies an import through the streamed apply route: reads the job's states line by line as the import
 * advances, then opens the finished job (whose page shows the per-row report). The streamed state is dropped
 * once the page shows that job from its loader (`shownJobId`).
 */
function useStreamedApply(shownJobId: string | undefined) {
  const t = useT()
  const navigate = useNavigate()
  const [live, setLive] = useState<ImportJob | null>(null)
  const [streaming, setStreaming] = useState(false)
  const [error, setError] = useState<string | null>(null)
  useEffect(() => {
    if (shownJobId && live?.id === shownJobId) setLive(null)
  }, [shownJobId, live?.id])

  async function apply(body: FormData) {
    setStreaming(true)
    setError(null)
    setLive(null)
    let last: ImportJob | null = null
    try {
      const res = await fetch('/import/apply', {
        method: 'POST',
        body,
        headers: { Accept: 'application/x-ndjson' },
      })
      if (!res.ok || !res.body || !res.headers.get('content-type')?.includes('ndjson')) {
        const failure = (await res.json().catch(() => null)) as { formError?: string } | null
        setError(failure?.formError ?? t('import.streamLost'))
        return
      }
      for await (const job of readNdjson<ImportJob>(res.body)) {
        last = job
        setLive(job)
      }
      if (!last || last.status === 'running') throw new Error('stream ended early')
      navigate(jobAddress(last.id, true))
    } catch {
      setError(t('import.streamLost'))
    } finally {
      setStreaming(false)
    }
  }

  /** Form submit handler: applies are streamed; dry runs are left to the Remix form. */
  function onSubmit(event: FormEvent<HTMLFormElement>) {
    const submitter = (event.nativeEvent as SubmitEvent).submitter as HTMLButtonElement | null
    const body = new FormData(event.currentTarget)
    if (submitter?.name) body.set(submitter.name, submitter.value)
    if (body.get('intent') !== 'apply') return
    event.preventDefault()
    void apply(body)
  }

  return { live, streaming, error, onSubmit }
}

function RecentJobs({ jobs }: { jobs: ImportJobSummary[] }) {
  const t = useT()
  const count = useCount()
  const number = useNumber()
  const table = useDataTable(
    { started: 'import.started', by: 'import.by', status: 'import.status', rows: 'import.rows' },
    { testId: 'recent-imports' },
  )
  return (
    <section aria-labelledby="recent-imports">
      <h2 id="recent-imports">{t('import.recent')}</h2>
      <table {...table.props}>
        {table.head}
        <tbody {...table.body}>
          {jobs.map((j) => (
            <tr {...table.row} key={j.id} data-status={j.status}>
              <td {...table.cell('started')}>
                <Link to={`/import?job=${j.id}`}>{formatDate(j.createdAt)}</Link>
              </td>
              <td {...table.cell('by')}>{j.createdByName ?? '—'}</td>
              <td {...table.cell('status')}>{t(`import.job.${j.status}` as MessageKey)}</td>
              <td {...table.cell('rows')} className="small">
                {j.status === 'running'
                  ? fill(t('import.processed'), {
                      processed: number(j.processed),
                      rows: count('count.row', j.total),
                    })
                  : fill(t('import.counts'), {
                      rows: count('count.row', j.total),
                      created: number(j.created),
                      updated: number(j.updated),
                      unchanged: number(j.unchanged),
                      errors: number(j.errors),
                    })}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  )
}

export default function ImportPage() {
  const t = useT()
  const count = useCount()
  const number = useNumber()
  const { job, recent, maxBytes, maxRows } = useLoaderData<typeof loader>()
  const result = useActionData<typeof action>()
  const streamedApply = useStreamedApply(job?.id)
  const busy = useNavigation().state !== 'idle' || streamedApply.streaming
  const report = result && result.ok ? result : undefined
  // The file's problems (unreadable, empty, too many rows) are shown at the file field.
  const fileError = fieldError(result, 'file') ?? fieldError(result, 'csv')
  return (
    <section>
      <h1>{t('import.title')}</h1>
      <p className="muted">
        {fill(t('import.intro'), { rows: number(maxRows), mb: Math.floor(maxBytes / 1024 / 1024) })}{' '}
        <a href="/api/v1/import/template.csv" download>
          {t('import.template')}
        </a>
      </p>
      <ClassificationImportHint />

      {streamedApply.live ? (
        <JobProgress key={streamedApply.live.id} initial={streamedApply.live} streamed />
      ) : job ? (
        <JobProgress key={job.id} initial={job} />
      ) : null}
      {streamedApply.error ? (
        <p role="alert" className="error">
          {streamedApply.error}
        </p>
      ) : null}

      <Form
        method="post"
        encType="multipart/form-data"
        className="stack wide"
        onSubmit={streamedApply.onSubmit}
      >
        <FormError result={result} />
        <label>
          {t('import.file')}
          <input
            id="import-file"
            type="file"
            name="file"
            accept=".csv,.json,text/csv,application/json"
            {...errorProps('import-file', fileError)}
          />
          <FieldError id="import-file" message={fileError} />
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
        <label className="inline-check">
          <input
            type="checkbox"
            name="emptyCells"
            value="clear"
            defaultChecked={report?.emptyCells === 'clear'}
            aria-describedby="empty-cells-hint"
          />{' '}
          {t('import.emptyCellsClear')}
        </label>
        <p id="empty-cells-hint" className="muted small">
          {t('import.emptyCellsHint')}
        </p>
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
          <Form method="post" encType="multipart/form-data" onSubmit={streamedApply.onSubmit}>
            <input type="hidden" name="intent" value="apply" />
            <input type="hidden" name="format" value={report.format} />
            <input type="hidden" name="fileName" value={report.fileName} />
            {report.emptyCells === 'clear' ? <input type="hidden" name="emptyCells" value="clear" /> : null}
            <textarea name="content" hidden readOnly value={report.content} />
            {report.report.errors > 0 ? (
              <p className="error">{t('import.fixErrors')}</p>
            ) : (
              <button type="submit" disabled={busy}>
                {fill(t('import.apply'), { rows: count('count.row', report.report.total) })}
              </button>
            )}
          </Form>
          <ReportTable rows={report.report.rows} dryRun />
        </section>
      ) : null}
      {recent.length ? <RecentJobs jobs={recent} /> : null}
    </section>
  )
}
