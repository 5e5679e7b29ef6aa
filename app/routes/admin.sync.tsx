import {
  redirect,
  type ActionFunctionArgs,
  type LoaderFunctionArgs,
  type MetaFunction,
} from '@remix-run/node'
import { Form, useActionData, useLoaderData, useNavigate, useNavigation } from '@remix-run/react'
import { useState, type FormEvent } from 'react'
import { useDataTable } from '#app/components/data-table.tsx'
import { errorProps, fieldError, FieldError, FormError } from '#app/components/forms.tsx'
import { formatDate, useCount } from '#app/components/terms/ui.tsx'
import type { Flash } from '#app/lib/flash.ts'
import { redirectWithFlash } from '#app/lib/flash.server.ts'
import { fill, translateCount, type MessageKey } from '#app/lib/i18n.ts'
import { readNdjson } from '#app/lib/ndjson.ts'
import { pageTitle } from '#app/lib/page-title.ts'
import { pageLang } from '#app/lib/request-lang.server.ts'
import { formAction, orErrorPage } from '#app/pages/forms.server.ts'
import { requireUser, requireUserAction } from '#app/pages/session.server.ts'
import {
  appliedReport,
  applyState,
  previewUpload,
  receiveBundles,
  startApply,
  SYNC_UPLOAD_MAX_MB,
  syncPageStatus,
  totalCounts,
  type ActionCount,
  type ActionGroup,
  type ApplyLine,
  type ApplyState,
  type BundleView,
  type InvalidBundle,
  type SyncPageStatus,
  type SyncReportView,
} from '#app/pages/sync-page.server.ts'
import { useT } from '#app/root.tsx'

export const meta: MetaFunction<typeof loader> = ({ matches, data }) => [
  { title: pageTitle(matches, 'sync.title') },
  // An apply started without JavaScript: the page asks again every second until it ended.
  ...(data?.applying?.state.state === 'running' ? [{ httpEquiv: 'refresh', content: '1' }] : []),
]

/**
 * The administrator's offline sync page (issue 30, "Admin screen"), without JavaScript as with it: upload
 * bundles (the one multipart form) → the preview at `?upload=<id>` (what the CLI's `import` prints, grouped by
 * action, conflicts first, each updated item's field changes; "keep local edits" previews again) → apply (a
 * post of the upload's id; with JavaScript streamed through /admin/sync/apply with a progress bar, without it
 * run in the background while `?applying=<id>` shows its progress and refreshes itself) → the result at `?result=<id>` with a flash message; below, the export form (a download from /admin/sync/export)
 * and the history of applied bundles. Post → redirect → get throughout, so reloading a preview or a result
 * never uploads or applies again.
 */

const PAGE = '/admin/sync'
/** Applied bundles listed in the history. */
const HISTORY = 20

const previewAddress = (uploadId: string, keepLocalEdits: boolean) =>
  `${PAGE}?upload=${uploadId}${keepLocalEdits ? '&keepLocalEdits=on' : ''}`

/**
 * An apply (streamed with JavaScript, or the page's action without) leads to its result with this mark: the
 * page drops it and says once, as a flash message, what was applied — one place for both ways of applying.
 */
const ANNOUNCE = 'announce'
const resultAddress = (uploadId: string, announce = false) =>
  `${PAGE}?result=${uploadId}${announce ? `&${ANNOUNCE}=1` : ''}`

export async function loader({ request, context }: LoaderFunctionArgs) {
  const actor = await requireUser(request, 'admin')
  const params = new URL(request.url).searchParams
  const uploadId = params.get('upload')
  const resultId = params.get('result')
  const applyingId = params.get('applying')
  const applying = applyingId
    ? { uploadId: applyingId, state: await orErrorPage(() => applyState(applyingId)) }
    : null
  if (applying?.state.state === 'done') throw redirect(resultAddress(applying.uploadId, true))
  const keepLocalEdits = params.get('keepLocalEdits') === 'on'
  const result = resultId ? await orErrorPage(() => appliedReport(resultId)) : null
  if (result && resultId && params.has(ANNOUNCE)) {
    throw redirectWithFlash(resultAddress(resultId), appliedFlash(result), context)
  }
  const preview = uploadId
    ? await orErrorPage(() => previewUpload(uploadId, { actor, keepLocalEdits }))
    : null
  const status = await syncPageStatus(HISTORY)
  return { status, uploadId, keepLocalEdits, preview, result, applying, maxMb: SYNC_UPLOAD_MAX_MB }
}

/** What an apply did, in one line: the bundles applied and the sums of their counts. */
function appliedFlash(report: SyncReportView): Flash {
  if (!report.applied) return { kind: 'info', message: 'flash.syncNotApplied' }
  const totals = totalCounts(report)
  const applied = report.bundles.filter((bundle) => bundle.outcome === 'applied').length
  return {
    kind: 'success',
    message: 'flash.syncApplied',
    values: {
      bundles: translateCount(pageLang(), 'count.bundle', applied),
      create: `${totals.create}`,
      update: `${totals.update}`,
      delete: `${totals.delete}`,
      conflict: `${totals.conflict}`,
    },
  }
}

export async function action({ request }: ActionFunctionArgs) {
  const actor = await requireUserAction(request, 'admin')
  return formAction(async () => {
    // The upload form is the page's only multipart one; applying (without JavaScript) posts the upload's id.
    if ((request.headers.get('content-type') ?? '').startsWith('multipart/form-data')) {
      const upload = await receiveBundles(request)
      throw redirect(previewAddress(upload.uploadId, upload.keepLocalEdits))
    }
    // Without JavaScript: the apply runs in the background and `?applying=` shows its progress until it ends.
    const form = await request.formData()
    const uploadId = String(form.get('upload') ?? '')
    await startApply(uploadId, { actor, keepLocalEdits: form.get('keepLocalEdits') === 'on' })
    throw redirect(`${PAGE}?applying=${uploadId}`)
  })
}

export default function SyncPage() {
  const t = useT()
  const { status, uploadId, keepLocalEdits, preview, result, applying, maxMb } =
    useLoaderData<typeof loader>()
  const failure = useActionData<typeof action>()
  const navigation = useNavigation()
  const busy = navigation.state !== 'idle'
  const filesError = fieldError(failure, 'bundles')
  return (
    <section className="sync-page">
      <h1>{t('sync.title')}</h1>
      <p className="muted">{t('sync.intro')}</p>
      <Origin status={status} />
      <FormError result={failure} />

      {applying ? <Applying state={applying.state} /> : null}

      {result ? (
        <section aria-labelledby="sync-result-title" data-testid="sync-result">
          <h2 id="sync-result-title">{t('sync.result.title')}</h2>
          <p role="status">{t(result.applied ? 'sync.result.applied' : 'sync.result.notApplied')}</p>
          <Report report={result} />
        </section>
      ) : null}

      {preview && uploadId ? (
        <section aria-labelledby="sync-preview-title" data-testid="sync-preview">
          <h2 id="sync-preview-title">{t('sync.preview.title')}</h2>
          {preview.ok ? (
            <>
              <p className="muted">{t('sync.preview.intro')}</p>
              <Form method="get" className="sync-keep">
                <input type="hidden" name="upload" value={uploadId} />
                <KeepLocalEdits id="keep-preview" checked={keepLocalEdits} />
                <button type="submit" className="secondary" disabled={busy}>
                  {t('sync.preview.again')}
                </button>
              </Form>
              <Report report={preview.report} />
              <ApplyForm
                uploadId={uploadId}
                keepLocalEdits={keepLocalEdits}
                report={preview.report}
                busy={busy}
              />
            </>
          ) : (
            <Invalid invalid={preview.invalid} />
          )}
        </section>
      ) : null}

      <section aria-labelledby="sync-upload-title">
        <h2 id="sync-upload-title">{t('sync.upload.title')}</h2>
        <Form method="post" encType="multipart/form-data" className="stack wide">
          <label>
            {t('sync.upload.files')}
            <input
              id="sync-bundles"
              type="file"
              name="bundles"
              multiple
              accept=".gz,application/gzip"
              aria-describedby="sync-bundles-hint"
              {...errorProps('sync-bundles', filesError)}
            />
            <span id="sync-bundles-hint" className="muted small">
              {fill(t('sync.upload.hint'), { mb: maxMb })}
            </span>
            <FieldError id="sync-bundles" message={filesError} />
          </label>
          <KeepLocalEdits id="keep-upload" checked={keepLocalEdits} />
          <div className="row-actions">
            <button type="submit" disabled={busy}>
              {t('sync.upload.submit')}
            </button>
          </div>
        </Form>
      </section>

      <ExportForm />
      <History status={status} />
    </section>
  )
}

/** An apply started without JavaScript: its progress (the page refreshes itself), or why it failed. */
function Applying({ state }: { state: ApplyState }) {
  const t = useT()
  return (
    <section aria-labelledby="sync-applying-title" data-testid="sync-applying" data-state={state.state}>
      <h2 id="sync-applying-title">{t('sync.applying')}</h2>
      {state.state === 'failed' ? (
        <p role="alert" className="notice error">
          {state.message}
        </p>
      ) : state.state === 'running' ? (
        <p role="status" className="sync-progress">
          <progress aria-label={t('sync.applying')} max={Math.max(1, state.total)} value={state.done} />{' '}
          {fill(t('sync.progress'), state)}
        </p>
      ) : null}
    </section>
  )
}

function Origin({ status }: { status: SyncPageStatus }) {
  const t = useT()
  const last = status.lastExport
  return (
    <p className="small" data-testid="sync-origin">
      {fill(t('sync.thisOrigin'), { name: status.origin.name })} <code>{status.origin.id}</code>
      <br />
      {last
        ? fill(t('sync.lastExport'), {
            sequence: last.sequence,
            kind: t(`sync.kind.${last.kind}`),
            time: formatDate(last.exportedAt),
          })
        : t('sync.noExport')}
    </p>
  )
}

function KeepLocalEdits({ id, checked }: { id: string; checked: boolean }) {
  const t = useT()
  return (
    <>
      <label className="inline-check">
        <input
          type="checkbox"
          name="keepLocalEdits"
          defaultChecked={checked}
          aria-describedby={`${id}-hint`}
        />{' '}
        {t('sync.keepLocalEdits')}
      </label>
      <p id={`${id}-hint`} className="muted small">
        {t('sync.keepLocalEditsHint')}
      </p>
    </>
  )
}

/**
 * Applies the previewed upload. Without JavaScript the form posts to the page's action, which applies in the
 * request and redirects to the result. With JavaScript it posts to the streamed apply route instead and
 * draws the progress it reports, then opens the result.
 */
function ApplyForm(props: {
  uploadId: string
  keepLocalEdits: boolean
  report: SyncReportView
  busy: boolean
}) {
  const t = useT()
  const count = useCount()
  const navigate = useNavigate()
  const [applying, setApplying] = useState(false)
  const [progress, setProgress] = useState<{ done: number; total: number } | null>(null)
  const [error, setError] = useState<string | null>(null)
  const applicable = props.report.bundles.filter((b) => b.outcome === 'previewed').length
  if (applicable === 0) return <p className="error">{t('sync.apply.nothing')}</p>

  async function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault()
    const body = new FormData(event.currentTarget)
    setApplying(true)
    setProgress(null)
    setError(null)
    try {
      const res = await fetch(`${PAGE}/apply`, {
        method: 'POST',
        body,
        headers: { Accept: 'application/x-ndjson' },
      })
      if (!res.ok || !res.body) throw new Error(`apply answered ${res.status}`)
      for await (const line of readNdjson<ApplyLine>(res.body)) {
        if (line.state === 'progress') setProgress({ done: line.done, total: line.total })
        else if (line.state === 'done') return navigate(resultAddress(line.uploadId, true))
        else return setError(line.message)
      }
      throw new Error('the apply stream ended early')
    } catch {
      setError(t('sync.apply.streamLost'))
    } finally {
      setApplying(false)
    }
  }

  return (
    <Form method="post" className="sync-apply" data-testid="sync-apply" onSubmit={onSubmit}>
      <input type="hidden" name="upload" value={props.uploadId} />
      {props.keepLocalEdits ? <input type="hidden" name="keepLocalEdits" value="on" /> : null}
      <button type="submit" disabled={props.busy || applying}>
        {fill(t('sync.apply.submit'), { bundles: count('count.bundle', applicable) })}
      </button>
      {applying ? (
        <span role="status" className="sync-progress" data-testid="sync-progress">
          {progress ? (
            <>
              <progress
                aria-label={t('sync.applying')}
                max={Math.max(1, progress.total)}
                value={progress.done}
              />{' '}
              {fill(t('sync.progress'), progress)}
            </>
          ) : (
            <>
              <progress aria-label={t('sync.applying')} /> {t('sync.applying')}
            </>
          )}
        </span>
      ) : null}
      {error ? (
        <p role="alert" className="error">
          {error}
        </p>
      ) : null}
    </Form>
  )
}

function Invalid({ invalid }: { invalid: InvalidBundle }) {
  const t = useT()
  return (
    <div role="alert" className="sync-invalid" data-testid="sync-invalid" data-problem={invalid.problem}>
      <p>
        <strong>{t('sync.invalid.title')}</strong>
      </p>
      <p>{t(`sync.invalid.${invalid.problem}`)}</p>
      <p className="small muted">{invalid.detail}</p>
      <p>{t('sync.invalid.nothingWritten')}</p>
    </div>
  )
}

/** An import's report: the missing-bundle explanation, then each bundle. */
function Report({ report }: { report: SyncReportView }) {
  const t = useT()
  return (
    <>
      {report.missing ? (
        <p role="alert" className="sync-missing" data-testid="sync-missing">
          {t('sync.missing')}
        </p>
      ) : null}
      {report.bundles.map((bundle) => (
        <Bundle key={`${bundle.origin.id}-${bundle.sequence}-${bundle.file}`} bundle={bundle} />
      ))}
    </>
  )
}

function Bundle({ bundle }: { bundle: BundleView }) {
  const t = useT()
  return (
    <article
      className="sync-bundle"
      data-testid="sync-bundle"
      data-outcome={bundle.outcome}
      data-sequence={bundle.sequence}
    >
      <h3>
        {fill(t('sync.bundle'), { origin: bundle.origin.name, sequence: bundle.sequence })}{' '}
        <span className={`badge sync-outcome-${bundle.outcome}`}>{t(`sync.outcome.${bundle.outcome}`)}</span>
      </h3>
      <p className="small muted sync-facts">
        {fill(t('sync.bundle.facts'), {
          kind: t(`sync.kind.${bundle.kind}`),
          time: formatDate(bundle.exportedAt),
          file: bundle.file,
        })}
      </p>
      {bundle.message ? <p className="small">{bundle.message}</p> : null}
      <Counts counts={bundle.counts} />
      {bundle.groups.map((group) => (
        <Group key={group.action} group={group} />
      ))}
    </article>
  )
}

/** The counts of every action that happened (the server orders them and leaves out zeros). */
function Counts({ counts }: { counts: ActionCount[] }) {
  const t = useT()
  if (!counts.length) return null
  return (
    <ul className="sync-counts" data-testid="sync-counts">
      {counts.map(({ action, count }) => (
        <li key={action} data-action={action}>
          {t(`sync.action.${action}`)} <strong>{count}</strong>
        </li>
      ))}
    </ul>
  )
}

/** The entries of one action, behind their label and count; conflicts open, and highlighted. */
function Group({ group }: { group: ActionGroup }) {
  const t = useT()
  const table = useDataTable(
    {
      type: 'sync.col.type',
      title: 'sync.col.title',
      reason: 'sync.col.reason',
      changes: 'sync.col.changes',
    },
    { className: 'sync-entries' },
  )
  return (
    <details
      className={`sync-group sync-group-${group.action}`}
      open={group.action === 'conflict'}
      data-testid="sync-group"
      data-action={group.action}
    >
      <summary>
        {t(`sync.action.${group.action}`)} ({group.count})
      </summary>
      <table {...table.props}>
        {table.head}
        <tbody {...table.body}>
          {group.entries.map((entry) => (
            <tr {...table.row} key={`${entry.type}-${entry.originId}`} data-type={entry.type}>
              <td {...table.cell('type')}>{t(`sync.type.${entry.type}`)}</td>
              <td {...table.cell('title')}>{entry.title}</td>
              <td {...table.cell('reason')} className="small">
                {entry.reason}
              </td>
              <td {...table.cell('changes')} className="small">
                {entry.changes.length ? (
                  <dl className="sync-changes" data-testid="sync-changes">
                    {entry.changes.map((change) => (
                      <div key={change.field} data-field={change.field}>
                        <dt>{fieldLabel(t, change.field)}</dt>
                        <dd>
                          <del>{change.before ?? '—'}</del> → <ins>{change.after ?? '—'}</ins>
                        </dd>
                      </div>
                    ))}
                  </dl>
                ) : null}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {group.entries.length < group.count ? (
        <p className="muted small">
          {fill(t('sync.shown'), { shown: group.entries.length, count: group.count })}
        </p>
      ) : null}
    </details>
  )
}

/** A changed field by the term editor's label where it has one (`definition` → "Definition"), else its name. */
const TERM_FIELDS: Record<string, MessageKey> = {
  slug: 'term.slug',
  name: 'term.name',
  fullName: 'term.fullName',
  nameEn: 'term.nameEn',
  nameKo: 'term.nameKo',
  status: 'term.status',
  notations: 'term.notations',
  domains: 'term.domains',
  categories: 'term.categories',
  tags: 'term.tags',
  definition: 'term.definition',
  body: 'term.body',
  oldSlugs: 'term.oldSlugs',
}

function fieldLabel(t: (key: MessageKey) => string, field: string): string {
  const key = TERM_FIELDS[field]
  return key ? t(key) : field
}

function ExportForm() {
  const t = useT()
  // A plain form, not Remix's: the answer is a file the browser downloads, with JavaScript or without.
  return (
    <section aria-labelledby="sync-export-title">
      <h2 id="sync-export-title">{t('sync.export.title')}</h2>
      <p className="muted">{t('sync.export.intro')}</p>
      <form method="post" action={`${PAGE}/export`} className="stack wide" data-testid="sync-export">
        <fieldset>
          <legend>{t('sync.export.kind')}</legend>
          <label className="inline-check">
            <input type="radio" name="kind" value="full" defaultChecked /> {t('sync.export.full')}
          </label>
          <label className="inline-check">
            <input type="radio" name="kind" value="incremental" /> {t('sync.export.incremental')}
          </label>
        </fieldset>
        <label>
          {t('sync.export.label')}
          <input type="text" name="label" maxLength={100} />
        </label>
        <div className="row-actions">
          <button type="submit">{t('sync.export.submit')}</button>
        </div>
      </form>
    </section>
  )
}

function History({ status }: { status: SyncPageStatus }) {
  const t = useT()
  const table = useDataTable(
    {
      origin: 'sync.history.origin',
      bundle: 'sync.history.bundle',
      exported: 'sync.history.exported',
      applied: 'sync.history.applied',
      by: 'sync.history.by',
      counts: 'sync.history.counts',
    },
    { testId: 'sync-history' },
  )
  return (
    <section aria-labelledby="sync-history-title">
      <h2 id="sync-history-title">{t('sync.history.title')}</h2>
      {status.applied.length ? (
        <table {...table.props}>
          {table.head}
          <tbody {...table.body}>
            {status.applied.map((bundle) => (
              <tr {...table.row} key={`${bundle.originName}-${bundle.sequence}-${bundle.appliedAt}`}>
                <td {...table.cell('origin')}>{bundle.originName}</td>
                <td {...table.cell('bundle')}>{`#${bundle.sequence} ${t(`sync.kind.${bundle.kind}`)}`}</td>
                <td {...table.cell('exported')}>{formatDate(bundle.exportedAt)}</td>
                <td {...table.cell('applied')}>{formatDate(bundle.appliedAt)}</td>
                <td {...table.cell('by')}>{bundle.appliedBy ?? '—'}</td>
                <td {...table.cell('counts')}>
                  <Counts counts={bundle.counts} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : (
        <p className="muted">{t('sync.history.empty')}</p>
      )}
    </section>
  )
}
