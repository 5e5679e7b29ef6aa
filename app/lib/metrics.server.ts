import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client'
import { INDEX_QUEUE_STATUSES, type IndexQueueStatus } from '#domain/content.ts'
import { AI_FAILURE_CLASSES, AI_TASKS, type AiFailureClass, type AiTask } from '#domain/rag.ts'
import { log } from './logger.server.ts'

/**
 * The one Prometheus registry of this process and every metric in it (`GET /metrics`, app/server/metrics.server.ts).
 * Counters and histograms are incremented where the work happens (the access log's request timing, the AI
 * recorder, the index flow); gauges of the database (queue rows, worker heartbeats, the connection pool) are
 * read at scrape time through the readers the web or worker installs with `useScrapeReaders`, so this module
 * imports no service and nothing here queries anything between scrapes.
 *
 * Every label value comes from a bounded set: route templates or route ids (never a raw path), HTTP statuses,
 * the AI tasks and failure classes of domain/rag.ts, the index outcomes below, the queue's four states.
 */
export const registry = new Registry()

// The standard process and Node.js metrics (`process_resident_memory_bytes`, `nodejs_heap_size_used_bytes`,
// event loop lag, …) under their usual names, so stock dashboards read them.
collectDefaultMetrics({ register: registry })

const PREFIX = 'glossary_'

/** Latency buckets of a web application: 5 ms to 10 s. */
const HTTP_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]

/** Provider calls take longer (an embedding batch, an LLM answer): 25 ms to 2 min. */
const AI_BUCKETS = [0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120]

const httpRequests = new Counter({
  name: `${PREFIX}http_requests_total`,
  help: 'HTTP requests answered, by method, route (a template, never a raw path) and status.',
  labelNames: ['method', 'route', 'status'] as const,
  registers: [registry],
})

const httpDuration = new Histogram({
  name: `${PREFIX}http_request_duration_seconds`,
  help: 'Time from a request arriving to its answer being written, by method and route.',
  labelNames: ['method', 'route'] as const,
  buckets: HTTP_BUCKETS,
  registers: [registry],
})

/** One answered request (called once per request, where the access log line is written). */
export function observeHttpRequest(method: string, route: string, status: number, seconds: number): void {
  httpRequests.inc({ method, route, status: String(status) })
  httpDuration.observe({ method, route }, seconds)
}

/** What became of an index row's run (pipeline/flow.ts). */
export const INDEX_ROW_OUTCOMES = [
  /** Indexed, or finished without work (superseded by a newer revision). */
  'ready',
  /** Its source left search: its chunks were removed. */
  'removed',
  /** Failed and put back with a backoff (an attempt spent). */
  'retried',
  /** Put back without spending an attempt: search switched off, or its provider is paused. */
  'deferred',
  /** Failed for good. */
  'failed',
] as const
export type IndexRowOutcome = (typeof INDEX_ROW_OUTCOMES)[number]

const indexRows = new Counter({
  name: `${PREFIX}index_rows_total`,
  help: 'Index queue rows this process ran, by outcome (ready, removed, retried, deferred, failed).',
  labelNames: ['outcome'] as const,
  registers: [registry],
})
for (const outcome of INDEX_ROW_OUTCOMES) indexRows.inc({ outcome }, 0)

export function countIndexRow(outcome: IndexRowOutcome): void {
  indexRows.inc({ outcome })
}

const chunksEmbedded = new Counter({
  name: `${PREFIX}index_chunks_embedded_total`,
  help: 'Chunk texts this process sent to the embedding provider for indexing (reused vectors not counted).',
  registers: [registry],
})

export function countChunksEmbedded(n: number): void {
  chunksEmbedded.inc(n)
}

/** An AI call's outcome: succeeded, or the spec's failure class. */
export type AiCallOutcome = 'succeeded' | AiFailureClass
const AI_OUTCOMES: readonly AiCallOutcome[] = ['succeeded', ...AI_FAILURE_CLASSES]

const aiCalls = new Counter({
  name: `${PREFIX}ai_calls_total`,
  help: 'Provider calls of this process, by task (embedding, reranker, llm, models) and outcome.',
  labelNames: ['task', 'outcome'] as const,
  registers: [registry],
})
for (const task of AI_TASKS) for (const outcome of AI_OUTCOMES) aiCalls.inc({ task, outcome }, 0)

const aiDuration = new Histogram({
  name: `${PREFIX}ai_call_duration_seconds`,
  help: 'Provider call latency, by task.',
  labelNames: ['task'] as const,
  buckets: AI_BUCKETS,
  registers: [registry],
})

/** One finished provider call (app/services/ai/recorder.server.ts). */
export function observeAiCall(task: AiTask, outcome: AiCallOutcome, seconds: number): void {
  aiCalls.inc({ task, outcome })
  aiDuration.observe({ task }, seconds)
}

/** The database connection pool: connections in use, idle, and callers waiting for one. */
export const CONNECTION_STATES = ['used', 'free', 'pending'] as const
export type ConnectionState = (typeof CONNECTION_STATES)[number]

/** What the scrape-time gauges read; installed by the process (app/server/metrics.server.ts). */
export interface ScrapeReaders {
  queue(): Promise<{ rows: Record<IndexQueueStatus, number>; oldestDueSeconds: number | null }>
  workers(): Promise<{ id: string; ageSeconds: number }[]>
  /** By pool: `orm` (the ORM's), and each pool of connections with settings of their own (`search`). */
  connections(): Record<string, Record<ConnectionState, number>>
}

let readers: ScrapeReaders | undefined

/** Installs the database readers of the scrape-time gauges (once per process; a second call replaces them). */
export function useScrapeReaders(next: ScrapeReaders | undefined): void {
  readers = next
}

/**
 * A gauge's reading failed (the database is down or busy): the scrape still answers with everything else,
 * and the gauge has no sample this time rather than a stale one.
 */
function readFailed(gauge: Gauge, name: string, err: unknown): void {
  gauge.reset()
  log().warn({ err, metric: name }, 'metrics: a scrape-time reading failed')
}

/**
 * One read serves both queue gauges of a scrape (and both worker gauges): prom-client calls every metric's
 * `collect` in one synchronous loop, so a read kept until the next microtask is shared by exactly that scrape.
 */
function sharedWithinScrape<T>(read: () => Promise<T>): () => Promise<T> {
  let current: Promise<T> | undefined
  return () => {
    if (!current) {
      current = read()
      queueMicrotask(() => (current = undefined))
    }
    return current
  }
}

const readQueue = sharedWithinScrape(() => readers!.queue())
const readWorkers = sharedWithinScrape(() => readers!.workers())

const queueRows: Gauge<'state'> = new Gauge({
  name: `${PREFIX}index_queue_rows`,
  help: 'Rows of the index queue by state (queued, processing, ready, failed), read at scrape time.',
  labelNames: ['state'] as const,
  registers: [registry],
  async collect() {
    if (!readers) return
    try {
      const { rows } = await readQueue()
      for (const state of INDEX_QUEUE_STATUSES) queueRows.set({ state }, rows[state])
    } catch (err) {
      readFailed(queueRows, 'index_queue_rows', err)
    }
  },
})

const oldestDue: Gauge = new Gauge({
  name: `${PREFIX}index_queue_oldest_due_seconds`,
  help: 'How long the oldest due queue row has waited for a worker, in seconds (0 when none is due).',
  registers: [registry],
  async collect() {
    if (!readers) return
    try {
      oldestDue.set((await readQueue()).oldestDueSeconds ?? 0)
    } catch (err) {
      readFailed(oldestDue, 'index_queue_oldest_due_seconds', err)
    }
  },
})

const workersLive: Gauge = new Gauge({
  name: `${PREFIX}workers_live`,
  help: 'Workers whose heartbeat is recent (alive), read at scrape time.',
  registers: [registry],
  async collect() {
    if (!readers) return
    try {
      workersLive.set((await readWorkers()).length)
    } catch (err) {
      readFailed(workersLive, 'workers_live', err)
    }
  },
})

const heartbeatAge: Gauge<'worker'> = new Gauge({
  name: `${PREFIX}worker_heartbeat_age_seconds`,
  help: "Seconds since each live worker's last heartbeat (only live workers are listed).",
  labelNames: ['worker'] as const,
  registers: [registry],
  async collect() {
    if (!readers) return
    try {
      const workers = await readWorkers()
      // Workers that died since the last scrape leave the list instead of keeping their last age.
      heartbeatAge.reset()
      for (const w of workers) heartbeatAge.set({ worker: w.id }, w.ageSeconds)
    } catch (err) {
      readFailed(heartbeatAge, 'worker_heartbeat_age_seconds', err)
    }
  },
})

const connections: Gauge<'pool' | 'state'> = new Gauge({
  name: `${PREFIX}db_connections`,
  help: 'Database connections of this process by pool (orm, search) and state: used, free, pending (callers waiting for one).',
  labelNames: ['pool', 'state'] as const,
  registers: [registry],
  collect() {
    if (!readers) return
    try {
      for (const [pool, use] of Object.entries(readers.connections())) {
        for (const state of CONNECTION_STATES) connections.set({ pool, state }, use[state])
      }
    } catch (err) {
      readFailed(connections, 'db_connections', err)
    }
  },
})
