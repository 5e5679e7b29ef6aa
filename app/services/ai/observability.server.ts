import { AppError } from '#app/lib/errors.server.ts'
import type {
  AiObservability,
  AiObservabilityQuery,
  AiTrace,
  ObservedFailureClass,
} from '#app/schemas/ai-observability.ts'
import { em } from '#db/orm.ts'
import type { AiTask } from '#domain/rag.ts'
import {
  selectCounts,
  selectNow,
  selectPercentiles,
  selectRecentFailures,
  selectRecentTraces,
  selectTraceCalls,
  type CountRow,
  type PercentileRow,
  type RollupWindow,
} from './observability-store.server.ts'

/**
 * The AI observability dashboard (issue 29, decision 030): counts, success rate, latency percentiles, tokens
 * and failures by class of the LLM, embedding and reranker calls of the last `hours`, by task and model and
 * over time; and the calls of one trace. Everything is aggregated in SQL over rollups
 * (observability-store.server.ts); nothing a call carried is stored, so nothing of it can be shown.
 */

/**
 * A call still `running` this long after it started is judged interrupted (its process stopped before it
 * could record the outcome) and counted as failed, class `interrupted`. Provider calls are bounded far below
 * this (app/lib/outbound.server.ts), so a live call never reaches it. The one place this bound is set.
 */
export const INTERRUPTED_AFTER_MINUTES = 10

/** The tasks the dashboard shows (the spec's three); `models` calls (listing a provider's models) are left out. */
export const OBSERVED_TASKS = ['llm', 'embedding', 'reranker'] as const satisfies readonly AiTask[]

/** Up to this many hours the series is hourly; beyond it, by UTC day. */
export const HOURLY_UP_TO_HOURS = 72

const RECENT_LIMIT = 10
/** At most this many calls of one trace are listed (a chat request makes a handful). */
export const TRACE_CALLS_LIMIT = 500

const HOUR_MS = 3_600_000
const DAY_MS = 24 * HOUR_MS

/** The window of `hours` ending at `now`: whole hours (≤ 72 h) or whole UTC days, current one included. */
export function observationWindow(hours: number, now: Date): RollupWindow {
  const unit = hours <= HOURLY_UP_TO_HOURS ? 'hour' : 'day'
  const step = unit === 'hour' ? HOUR_MS : DAY_MS
  const floor = (ms: number, by: number) => Math.floor(ms / by) * by
  const from = new Date(floor(now.getTime() - hours * HOUR_MS, step))
  return {
    from,
    hourFrom: unit === 'hour' ? from : new Date(floor(now.getTime(), DAY_MS)),
    unit,
    staleBefore: new Date(now.getTime() - INTERRUPTED_AFTER_MINUTES * 60_000),
    tasks: OBSERVED_TASKS,
  }
}

type Stats = AiObservability['totals']

const NO_FAILURES: Record<ObservedFailureClass, number> = {
  authentication: 0,
  model_not_found: 0,
  rate_limited: 0,
  provider_unavailable: 0,
  timeout: 0,
  interrupted: 0,
}

function statsOf(counts: CountRow | undefined, latency: PercentileRow | undefined): Stats {
  const finished = (counts?.succeeded ?? 0) + (counts?.failed ?? 0)
  return {
    calls: counts?.calls ?? 0,
    succeeded: counts?.succeeded ?? 0,
    failed: counts?.failed ?? 0,
    running: counts?.running ?? 0,
    successRate: finished === 0 ? null : Math.round((counts!.succeeded / finished) * 10_000) / 10_000,
    p50LatencyMs: latency?.p50 ?? null,
    p95LatencyMs: latency?.p95 ?? null,
    inputTokens: counts?.inputTokens ?? 0,
    outputTokens: counts?.outputTokens ?? 0,
    totalTokens: counts?.totalTokens ?? 0,
    failures: { ...NO_FAILURES, ...counts?.failures },
  }
}

/**
 * What the AI provider calls of the last `hours` did: totals, per task (always the three), per task and model,
 * a series for charts (calls, failures, p50/p95 latency per hour or day), the newest failures and traces.
 */
export async function getAiObservability({ hours }: AiObservabilityQuery): Promise<AiObservability> {
  const manager = em()
  const now = await selectNow(manager)
  const window = observationWindow(hours, now)
  const [counts, percentiles, recentFailures, recentTraces] = await Promise.all([
    selectCounts(manager, window),
    selectPercentiles(manager, window),
    selectRecentFailures(manager, window, RECENT_LIMIT),
    selectRecentTraces(manager, window, RECENT_LIMIT),
  ])
  const key = (row: { level: string; task: string | null; model: string | null; period: string | null }) =>
    `${row.level}|${row.task ?? ''}|${row.model ?? ''}|${row.period ?? ''}`
  const countsBy = new Map(counts.map((row) => [key(row), row]))
  const latencyBy = new Map(percentiles.map((row) => [key(row), row]))
  const find = (
    level: CountRow['level'],
    task: string | null,
    model: string | null,
    period: string | null,
  ) => {
    const probe = key({ level, task, model, period })
    return { counts: countsBy.get(probe), latency: latencyBy.get(probe) }
  }
  const stats = (
    level: CountRow['level'],
    task: string | null,
    model: string | null,
    period: string | null,
  ) => {
    const found = find(level, task, model, period)
    return statsOf(found.counts, found.latency)
  }

  const order = (task: AiTask) => OBSERVED_TASKS.indexOf(task as (typeof OBSERVED_TASKS)[number])
  const groups = counts
    .filter((row) => row.level === 'tm' && row.calls > 0)
    .sort((a, b) => order(a.task!) - order(b.task!) || a.model!.localeCompare(b.model!))
    .map((row) => ({ task: row.task!, model: row.model!, ...stats('tm', row.task, row.model, null) }))

  const step = window.unit === 'hour' ? HOUR_MS : DAY_MS
  const series: AiObservability['series'] = []
  for (let at = window.from.getTime(); at <= now.getTime(); at += step) {
    const start = new Date(at).toISOString()
    const found = find('period', null, null, start)
    series.push({
      start,
      calls: found.counts?.calls ?? 0,
      failed: found.counts?.failed ?? 0,
      p50LatencyMs: found.latency?.p50 ?? null,
      p95LatencyMs: found.latency?.p95 ?? null,
    })
  }

  return {
    hours,
    from: window.from.toISOString(),
    to: now.toISOString(),
    bucket: window.unit,
    interruptedAfterMinutes: INTERRUPTED_AFTER_MINUTES,
    totals: stats('all', null, null, null),
    tasks: OBSERVED_TASKS.map((task) => ({ task, ...stats('task', task, null, null) })),
    groups,
    series,
    recentFailures,
    recentTraces,
  }
}

/** The calls of one trace, in the order they started; 404 `not_found` when it has none. */
export async function getAiTrace({ traceId }: { traceId: string }): Promise<AiTrace> {
  const manager = em()
  const now = await selectNow(manager)
  const staleBefore = new Date(now.getTime() - INTERRUPTED_AFTER_MINUTES * 60_000)
  const calls = await selectTraceCalls(manager, traceId, staleBefore, TRACE_CALLS_LIMIT)
  if (calls.length === 0) throw new AppError('not_found', 'No AI call has this trace id.')
  return { traceId, calls }
}
