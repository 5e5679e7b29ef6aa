import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from '@remix-run/node'
import { Form, Link, useActionData, useLoaderData, useNavigation, useRevalidator } from '@remix-run/react'
import { useEffect, useRef } from 'react'
import { pageTitle } from '#app/lib/page-title.ts'
import { FormError, IntentButton } from '#app/components/forms.tsx'
import { formatDate, termHref, useCount, useNumber } from '#app/components/terms/ui.tsx'
import { fill, type MessageKey } from '#app/lib/i18n.ts'
import { formAction, invalidForm } from '#app/pages/forms.server.ts'
import { requireUser, requireUserAction } from '#app/pages/session.server.ts'
import { useT } from '#app/root.tsx'
import {
  listFailedIndexRows,
  retryFailedIndexRows,
  type FailedIndexRow,
} from '#app/services/index-queue/failed.server.ts'
import { indexHealth } from '#app/services/index-queue/health.server.ts'
import { getRagConfig } from '#app/services/search/rag-config.server.ts'
import { reindexAll } from '#app/services/search/reindex.server.ts'
import { isUuid } from '#domain/ids.ts'

export const meta: MetaFunction = ({ matches }) => [{ title: pageTitle(matches, 'searchIndex.title') }]

/** How often the page asks again while work is left (with JavaScript; without it, the refresh link). */
const REFRESH_MS = 2_000

/**
 * The index status page (issue 12): the queue's counts by state and indexed/total terms, the failed rows with
 * their messages and a retry, and a full reindex (decision 028: its phase and sources done while it builds, or
 * how the last one failed) with a progress bar. The bar measures the work left against
 * the most there was since the page started watching (`of` in the address, carried by the refresh link and
 * kept by the page while it revalidates), since the queue keeps no record of when a batch began.
 */
export async function loader({ request }: LoaderFunctionArgs) {
  await requireUser(request, 'admin')
  const of = Number(new URL(request.url).searchParams.get('of'))
  const [snapshot, failed] = await Promise.all([statsNow(), listFailedIndexRows()])
  return { ...snapshot, failed, of: Number.isSafeInteger(of) && of > 0 ? of : 0 }
}

/**
 * The counts as of now, stamped: the loader and the actions both answer them, and the page shows the newer
 * (Remix shows an action's answer before the page's data is read again, so for a moment the page data is
 * older than the action's).
 */
async function statsNow() {
  const [config, health] = await Promise.all([getRagConfig(), indexHealth()])
  const { indexedTerms, totalTerms, queued, processing, ready, failed } = config
  return {
    stats: { indexedTerms, totalTerms, queued, processing, ready, failed },
    health: {
      workers: health.workers.length,
      oldestDueSeconds: health.queue.oldestDueSeconds,
      inRun: health.queue.inRun,
      run: health.run,
      lastRunFailure: health.lastRunFailure,
      problems: health.problems,
      paused: health.paused,
    },
    enabled: config.enabled,
    secretsReadable: config.secretsReadable,
    at: Date.now(),
  }
}

export async function action({ request }: ActionFunctionArgs) {
  await requireUserAction(request, 'admin')
  const form = await request.formData()
  const intent = String(form.get('intent') ?? '')
  if (intent === 'reindex') {
    return formAction(async () => {
      const reindex = await reindexAll()
      return { ok: true as const, reindex, ...(await statsNow()) }
    })
  }
  if (intent === 'retry' || intent === 'retry-all') {
    const id = String(form.get('id') ?? '')
    // an id that is no failed row retries nothing: the page's list may be older than the queue
    const ids = intent === 'retry' ? (isUuid(id) ? [id] : []) : undefined
    return formAction(async () => {
      const retry = await retryFailedIndexRows({ ids })
      return { ok: true as const, retry, ...(await statsNow()) }
    })
  }
  return invalidForm({ ok: false as const, formError: 'Unknown action.' })
}

/** Where a failed row's source is read (a removed source has no page). */
function sourceHref(row: FailedIndexRow): string | null {
  if (row.title === null) return null
  if (row.sourceType === 'term' && row.slug) return termHref(row.slug)
  if (row.sourceType === 'wiki' && row.slug) return `/wiki/${encodeURIComponent(row.slug)}`
  if (row.sourceType === 'meeting') return `/meetings/${row.sourceId}`
  return null
}

export default function AdminSearchIndexPage() {
  const t = useT()
  const count = useCount()
  const number = useNumber()
  const data = useLoaderData<typeof loader>()
  const { failed, of } = data
  const answer = useActionData<typeof action>()
  // A revalidation forgets the action's answer; the page keeps showing it until the next action.
  const lastAnswer = useRef(answer)
  if (answer) lastAnswer.current = answer
  const result = lastAnswer.current
  const busy = useNavigation().state !== 'idle'
  const revalidator = useRevalidator()
  const { stats, health, enabled, secretsReadable } =
    answer && 'at' in answer && answer.at > data.at ? answer : data
  // A full reindex's rows wait for its swap: its own progress counts for them, and one step stays left
  // until the swap (the index build can take a while after the last source).
  const runLeft = health.run ? Math.max(1, health.run.sourcesTotal - health.run.sourcesDone) : 0
  const left = stats.queued - health.inRun + stats.processing + runLeft
  // The most work seen since the page started watching: the address's `of`, and every count this page has
  // shown since (a revalidation keeps the address, so the browser remembers it), a run's done sources included.
  const peak = useRef(0)
  peak.current = Math.max(peak.current, of, left + (health.run?.sourcesDone ?? 0))
  const total = peak.current
  const done = total - left

  // With JavaScript: ask again every ~2 s while rows are queued or being worked on.
  useEffect(() => {
    if (left === 0 || revalidator.state !== 'idle') return
    const timer = setTimeout(() => revalidator.revalidate(), REFRESH_MS)
    return () => clearTimeout(timer)
  }, [left, revalidator])

  return (
    <section>
      <h1>{t('searchIndex.title')}</h1>
      {!secretsReadable ? (
        <p role="alert" className="notice error">
          {t('searchSettings.unreadable')} <Link to="/admin/search-settings">{t('nav.searchSettings')}</Link>
        </p>
      ) : !enabled ? (
        <p className="notice warning">
          {t('searchIndex.off')} <Link to="/admin/search-settings">{t('nav.searchSettings')}</Link>
        </p>
      ) : null}

      {health.problems.includes('no_live_worker') ? (
        <p role="alert" className="notice warning" data-testid="index-no-worker">
          {t('searchIndex.noWorker')}
        </p>
      ) : health.problems.includes('queue_behind') ? (
        <p className="notice warning" data-testid="index-behind">
          {fill(t('searchIndex.behind'), { n: number(health.oldestDueSeconds ?? 0) })}
        </p>
      ) : null}
      {health.run ? (
        <p role="status" className="notice" data-testid="index-run">
          {fill(t('searchIndex.run'), {
            done: number(health.run.sourcesDone),
            total: number(health.run.sourcesTotal),
            phase: t(`searchIndex.phase.${health.run.phase}`),
          })}
          {health.run.secondsLeft === null ? null : (
            <span data-testid="index-run-left">
              {' '}
              {health.run.secondsLeft < 90
                ? t('searchIndex.runLeftMinute')
                : fill(t('searchIndex.runLeft'), {
                    minutes: number(Math.round(health.run.secondsLeft / 60)),
                  })}
            </span>
          )}
        </p>
      ) : health.lastRunFailure ? (
        <p className="notice warning" data-testid="index-run-failed">
          {fill(t('searchIndex.runFailed'), {
            when: formatDate(health.lastRunFailure.at),
            reason: health.lastRunFailure.error,
          })}
        </p>
      ) : null}
      {health.paused.map((pause) => (
        <p key={pause.provider} className="notice warning" data-testid="index-paused">
          {fill(t('searchIndex.paused'), {
            provider: pause.provider,
            until: formatDate(pause.until),
            reason: pause.reason,
          })}
        </p>
      ))}

      <h2>{t('searchIndex.progress')}</h2>
      <p>
        <progress
          value={total === 0 ? 1 : done}
          max={total === 0 ? 1 : total}
          data-testid="index-progress"
          aria-label={t('searchIndex.progress')}
        />{' '}
        <span data-testid="index-progress-text" data-left={left}>
          {left === 0
            ? t('searchIndex.upToDate')
            : fill(t('searchIndex.left'), {
                done: number(done),
                total: number(total),
                left: number(left),
              })}
        </span>
      </p>
      {left > 0 ? (
        <p>
          <Link to={`/admin/search-index?of=${total}`} data-testid="index-refresh">
            {t('searchIndex.refresh')}
          </Link>
        </p>
      ) : null}

      <table className="compact" data-testid="index-counts">
        <tbody>
          <tr>
            <th>{t('searchIndex.indexedTerms')}</th>
            <td data-count="indexedTerms">
              {number(stats.indexedTerms)} / {number(stats.totalTerms)}
            </td>
          </tr>
          <tr>
            <th>{t('searchIndex.workers')}</th>
            <td data-count="workers">{health.workers}</td>
          </tr>
          <tr>
            <th>{t('searchIndex.oldestDue')}</th>
            <td data-count="oldestDue">
              {health.oldestDueSeconds === null
                ? t('searchIndex.none')
                : fill(t('searchIndex.seconds'), { n: number(health.oldestDueSeconds) })}
            </td>
          </tr>
          {(['queued', 'processing', 'ready', 'failed'] as const).map((state) => (
            <tr key={state}>
              <th>{t(`searchIndex.state.${state}` as MessageKey)}</th>
              <td data-count={state}>{number(stats[state])}</td>
            </tr>
          ))}
        </tbody>
      </table>

      <h2>{t('searchIndex.reindex')}</h2>
      <p className="muted small">{t('searchIndex.reindexHint')}</p>
      <Form method="post">
        <button type="submit" name="intent" value="reindex" disabled={busy}>
          {t('searchIndex.reindexButton')}
        </button>
      </Form>
      <FormError result={result} />
      {result && 'reindex' in result ? (
        <p role="status" className="notice" data-testid="index-action-result">
          {fill(t('searchIndex.reindexed'), {
            terms: count('count.term', result.reindex.queued),
            wiki: count('count.wikiPage', result.reindex.queuedWikiPages),
            meetings: count('count.meeting', result.reindex.queuedMeetings),
          })}
        </p>
      ) : null}
      {result && 'retry' in result ? (
        <p role="status" className="notice" data-testid="index-action-result">
          {fill(t('searchIndex.retried'), { n: number(result.retry.requeued) })}
        </p>
      ) : null}

      <h2>{fill(t('searchIndex.failed'), { n: number(failed.total) })}</h2>
      {failed.total === 0 ? (
        <p className="muted">{t('searchIndex.noFailed')}</p>
      ) : (
        <>
          <IntentButton intent="retry-all" fields={{}} disabled={busy}>
            {t('searchIndex.retryAll')}
          </IntentButton>
          {failed.total > failed.items.length ? (
            <p className="muted small">
              {fill(t('searchIndex.failedShown'), {
                n: number(failed.items.length),
                total: number(failed.total),
              })}
            </p>
          ) : null}
          <table data-testid="failed-rows">
            <thead>
              <tr>
                <th>{t('searchIndex.source')}</th>
                <th>{t('searchIndex.revision')}</th>
                <th>{t('searchIndex.message')}</th>
                <th>{t('searchIndex.when')}</th>
                <th />
              </tr>
            </thead>
            <tbody>
              {failed.items.map((row) => {
                const href = sourceHref(row)
                return (
                  <tr key={row.id} data-testid="failed-row" data-id={row.id}>
                    <td>
                      <span className="muted small">
                        {t(`searchIndex.type.${row.sourceType}` as MessageKey)}
                      </span>{' '}
                      {href ? (
                        <Link to={href}>{row.title}</Link>
                      ) : (
                        <span>
                          {row.title ?? t('searchIndex.gone')} <code className="small">{row.sourceId}</code>
                        </span>
                      )}
                      {row.action === 'remove' ? (
                        <span className="muted small"> · {t('searchIndex.removal')}</span>
                      ) : null}
                    </td>
                    <td>{row.revision}</td>
                    <td>
                      {row.message ?? '—'}
                      {row.pending ? <div className="muted small">{t('searchIndex.pending')}</div> : null}
                    </td>
                    <td>{formatDate(row.failedAt)}</td>
                    <td>
                      <IntentButton
                        intent="retry"
                        fields={{ id: row.id }}
                        className="secondary"
                        disabled={busy}
                      >
                        {t('searchIndex.retry')}
                      </IntentButton>
                    </td>
                  </tr>
                )
              })}
            </tbody>
          </table>
        </>
      )}
    </section>
  )
}
