import type { EntityManager } from '@mikro-orm/postgresql'
import { iso } from '#db/sql.ts'
import type { AiFailureClass, AiPurpose, AiTask } from '#domain/rag.ts'

/**
 * The SQL of the AI observability dashboard (issue 29, decision 030). Finished calls are read from the hourly
 * and daily rollups the triggers of `ai_runs` keep (migration 20261201001000), never by loading runs; calls
 * still `running` are read from `ai_runs` through its partial index (a handful), and those started before
 * `staleBefore` are counted as failed, class `interrupted`. Percentiles are nearest-rank over the latency
 * histogram (`ai_latency_bucket_ms`: exact below 100 ms, at most 5% above the exact value beyond).
 */

/** Which rows a window reads: hour rollups from `hourFrom`, day rollups in [`from`, `hourFrom`). */
export interface RollupWindow {
  /** The window's start (the first hour's or day's start). */
  from: Date
  /** Where hour rollups take over from day rollups (= `from` when the series is hourly). */
  hourFrom: Date
  /** The series' bucket. */
  unit: 'hour' | 'day'
  /** `running` rows started before this are interrupted. */
  staleBefore: Date
  tasks: readonly AiTask[]
}

export interface CountRow {
  /** `tm` a task and model, `task` a task, `all` the totals, `period` a bucket of the series. */
  level: 'tm' | 'task' | 'all' | 'period'
  task: AiTask | null
  model: string | null
  period: string | null
  calls: number
  succeeded: number
  failed: number
  running: number
  failures: Record<AiFailureClass | 'interrupted', number>
  inputTokens: number
  outputTokens: number
  totalTokens: number
}

export interface PercentileRow {
  level: CountRow['level']
  task: AiTask | null
  model: string | null
  period: string | null
  p50: number
  p95: number
}

export interface RecentFailureRow {
  id: string
  traceId: string
  task: AiTask
  purpose: AiPurpose
  model: string
  failureClass: AiFailureClass | 'interrupted' | null
  httpStatus: number | null
  startedAt: string
}

export interface RecentTraceRow {
  traceId: string
  startedAt: string
  calls: number
  failed: number
  tasks: AiTask[]
  purposes: AiPurpose[]
}

export interface TraceCallRow {
  id: string
  task: AiTask
  purpose: AiPurpose
  provider: string
  model: string
  status: 'running' | 'succeeded' | 'failed' | 'interrupted'
  failureClass: AiFailureClass | 'interrupted' | null
  httpStatus: number | null
  items: number
  latencyMs: number | null
  inputTokens: number | null
  outputTokens: number | null
  totalTokens: number | null
  startedAt: string
  finishedAt: string | null
}

/** The database's clock: windows and the interrupted bound are measured on it, as `started_at` is written. */
export async function selectNow(manager: EntityManager): Promise<Date> {
  const [row] = await manager.execute<{ now: Date | string }[]>('select now() as now')
  return new Date(row!.now)
}

const LEVELS: Record<number, CountRow['level']> = { 1: 'tm', 3: 'task', 7: 'all', 6: 'period' }

const num = (value: unknown): number => Number(value ?? 0)

/** A row's bucket of the series: its own start when its span is the series' unit (no time zone arithmetic). */
const PERIOD = "case when span = ? then start else date_trunc(?, start, 'UTC') end"

/**
 * The rollup rows of the window (day rows, then hour rows) as `(start, task, model, …columns)`; the
 * parameters it binds, in order, follow.
 */
function rollupSource(table: string, columns: string, window: RollupWindow): [string, unknown[]] {
  const sql = `select span, start, task, model, ${columns} from ${table}
     where span = 'day' and start >= ?::timestamptz and start < ?::timestamptz and task = any(?::text[])
    union all
    select span, start, task, model, ${columns} from ${table}
     where span = 'hour' and start >= ?::timestamptz and task = any(?::text[])`
  const tasks = `{${window.tasks.join(',')}}`
  return [sql, [iso(window.from), iso(window.hourFrom), tasks, iso(window.hourFrom), tasks]]
}

/**
 * Call counts, outcomes, failures by class and tokens of the window: per task and model, per task, in all and
 * per bucket of the series, in one statement (grouping sets over the rollups plus the running rows).
 */
export async function selectCounts(manager: EntityManager, window: RollupWindow): Promise<CountRow[]> {
  const [rollups, rollupParams] = rollupSource(
    'ai_run_rollups',
    `calls, succeeded, failed, authentication, model_not_found, rate_limited, provider_unavailable, timeout,
     0::bigint as interrupted, 0::bigint as running, input_tokens, output_tokens, total_tokens`,
    window,
  )
  const rows = await manager.execute<Record<string, unknown>[]>(
    `with src as (
       ${rollups}
       union all
       select 'run', started_at, task, model, 1, 0, stale, 0, 0, 0, 0, 0, stale, 1 - stale, 0, 0, 0
         from (select started_at, task, model,
                      case when started_at < ?::timestamptz then 1 else 0 end as stale
                 from ai_runs
                where status = 'running' and started_at >= ?::timestamptz and task = any(?::text[])) r
     )
     select grouping(task, model, period) as level, task, model, period,
            sum(calls) as calls, sum(succeeded) as succeeded, sum(failed) as failed, sum(running) as running,
            sum(authentication) as authentication, sum(model_not_found) as model_not_found,
            sum(rate_limited) as rate_limited, sum(provider_unavailable) as provider_unavailable,
            sum(timeout) as timeout, sum(interrupted) as interrupted,
            sum(input_tokens) as input_tokens, sum(output_tokens) as output_tokens,
            sum(total_tokens) as total_tokens
       from (select ${PERIOD} as period, * from src) p
      group by grouping sets ((task, model), (task), (), (period))`,
    [
      ...rollupParams,
      iso(window.staleBefore),
      iso(window.from),
      `{${window.tasks.join(',')}}`,
      window.unit,
      window.unit,
    ],
  )
  return rows.map((row) => ({
    level: LEVELS[num(row.level)]!,
    task: (row.task as AiTask | null) ?? null,
    model: (row.model as string | null) ?? null,
    period: row.period === null || row.period === undefined ? null : iso(row.period as Date | string),
    calls: num(row.calls),
    succeeded: num(row.succeeded),
    failed: num(row.failed),
    running: num(row.running),
    failures: {
      authentication: num(row.authentication),
      model_not_found: num(row.model_not_found),
      rate_limited: num(row.rate_limited),
      provider_unavailable: num(row.provider_unavailable),
      timeout: num(row.timeout),
      interrupted: num(row.interrupted),
    },
    inputTokens: num(row.input_tokens),
    outputTokens: num(row.output_tokens),
    totalTokens: num(row.total_tokens),
  }))
}

/**
 * p50 and p95 latency (nearest rank, in ms) of the window's finished calls per task and model, per task, in
 * all and per bucket of the series, from the latency histograms. Groups with no finished call are absent.
 */
export async function selectPercentiles(
  manager: EntityManager,
  window: RollupWindow,
): Promise<PercentileRow[]> {
  const [rollups, rollupParams] = rollupSource('ai_run_latency_rollups', 'bucket, calls', window)
  const rows = await manager.execute<Record<string, unknown>[]>(
    `with src as (${rollups}),
     h as (
       select grouping(task, model, period) as level, task, model, period, bucket, sum(calls) as n
         from (select ${PERIOD} as period, * from src) p
        group by grouping sets ((task, model, bucket), (task, bucket), (bucket), (period, bucket))
     ),
     c as (
       select level, task, model, period, bucket,
              sum(n) over (partition by level, task, model, period order by bucket) as cum,
              sum(n) over (partition by level, task, model, period) as total
         from h
     )
     select level, task, model, period,
            ai_latency_bucket_ms(min(bucket) filter (where cum >= ceil(0.5 * total))) as p50,
            ai_latency_bucket_ms(min(bucket) filter (where cum >= ceil(0.95 * total))) as p95
       from c
      where total > 0
      group by level, task, model, period`,
    [...rollupParams, window.unit, window.unit],
  )
  return rows.map((row) => ({
    level: LEVELS[num(row.level)]!,
    task: (row.task as AiTask | null) ?? null,
    model: (row.model as string | null) ?? null,
    period: row.period === null || row.period === undefined ? null : iso(row.period as Date | string),
    p50: num(row.p50),
    p95: num(row.p95),
  }))
}

/** The newest failed or interrupted calls of the window, newest first (the partial index of unsuccessful rows). */
export async function selectRecentFailures(
  manager: EntityManager,
  window: RollupWindow,
  limit: number,
): Promise<RecentFailureRow[]> {
  const rows = await manager.execute<Record<string, unknown>[]>(
    `select id, trace_id, task, purpose, model, http_status, started_at,
            case when status = 'running' then 'interrupted' else failure_class end as failure_class
       from ai_runs
      where status <> 'succeeded' and started_at >= ?::timestamptz and task = any(?::text[])
        and (status = 'failed' or started_at < ?::timestamptz)
      order by started_at desc, id
      limit ?`,
    [iso(window.from), `{${window.tasks.join(',')}}`, iso(window.staleBefore), limit],
  )
  return rows.map((row) => ({
    id: row.id as string,
    traceId: row.trace_id as string,
    task: row.task as AiTask,
    purpose: row.purpose as AiPurpose,
    model: row.model as string,
    failureClass: (row.failure_class as RecentFailureRow['failureClass']) ?? null,
    httpStatus: row.http_status === null ? null : num(row.http_status),
    startedAt: iso(row.started_at as Date | string),
  }))
}

/**
 * The newest traces of the window (one piece of work: a search, an index row, a chat request), newest first:
 * found among the newest `scan` calls (the started_at index, read backwards), then read whole by trace id.
 */
export async function selectRecentTraces(
  manager: EntityManager,
  window: RollupWindow,
  limit: number,
  scan = 200,
): Promise<RecentTraceRow[]> {
  const rows = await manager.execute<Record<string, unknown>[]>(
    `with recent as (
       select trace_id, max(started_at) as last
         from (select trace_id, started_at from ai_runs
                where started_at >= ?::timestamptz and task = any(?::text[])
                order by started_at desc limit ?) x
        group by trace_id
        order by last desc, trace_id
        limit ?
     )
     select r.trace_id, min(a.started_at) as started_at, count(*) as calls,
            count(*) filter (where a.status = 'failed'
                               or (a.status = 'running' and a.started_at < ?::timestamptz)) as failed,
            array_agg(distinct a.task) as tasks, array_agg(distinct a.purpose) as purposes, r.last
       from recent r join ai_runs a on a.trace_id = r.trace_id
      group by r.trace_id, r.last
      order by r.last desc, r.trace_id`,
    [iso(window.from), `{${window.tasks.join(',')}}`, scan, limit, iso(window.staleBefore)],
  )
  return rows.map((row) => ({
    traceId: row.trace_id as string,
    startedAt: iso(row.started_at as Date | string),
    calls: num(row.calls),
    failed: num(row.failed),
    tasks: textList(row.tasks) as AiTask[],
    purposes: textList(row.purposes) as AiPurpose[],
  }))
}

/** The calls of one trace in the order they started (at most `limit`); never anything a call carried. */
export async function selectTraceCalls(
  manager: EntityManager,
  traceId: string,
  staleBefore: Date,
  limit: number,
): Promise<TraceCallRow[]> {
  const rows = await manager.execute<Record<string, unknown>[]>(
    `select id, task, purpose, provider, model, status, failure_class, http_status, items, latency_ms,
            input_tokens, output_tokens, total_tokens, started_at, finished_at,
            status = 'running' and started_at < ?::timestamptz as interrupted
       from ai_runs
      where trace_id = ?
      order by started_at, id
      limit ?`,
    [iso(staleBefore), traceId, limit],
  )
  const orNull = (value: unknown) => (value === null || value === undefined ? null : num(value))
  return rows.map((row) => {
    const interrupted = row.interrupted === true || row.interrupted === 't'
    return {
      id: row.id as string,
      task: row.task as AiTask,
      purpose: row.purpose as AiPurpose,
      provider: row.provider as string,
      model: row.model as string,
      status: interrupted ? 'interrupted' : (row.status as TraceCallRow['status']),
      failureClass: interrupted ? 'interrupted' : ((row.failure_class as AiFailureClass | null) ?? null),
      httpStatus: orNull(row.http_status),
      items: num(row.items),
      latencyMs: orNull(row.latency_ms),
      inputTokens: orNull(row.input_tokens),
      outputTokens: orNull(row.output_tokens),
      totalTokens: orNull(row.total_tokens),
      startedAt: iso(row.started_at as Date | string),
      finishedAt: row.finished_at ? iso(row.finished_at as Date | string) : null,
    }
  })
}

/** A `text[]` column: an array from node-postgres, `{a,b}` text from some drivers. */
function textList(value: unknown): string[] {
  if (Array.isArray(value)) return value as string[]
  if (typeof value === 'string')
    return value
      .replace(/^\{|\}$/g, '')
      .split(',')
      .filter(Boolean)
  return []
}
