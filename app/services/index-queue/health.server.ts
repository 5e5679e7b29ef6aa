import { latestRun } from '#app/services/search/reindex-store.server.ts'
import { em } from '#db/orm.ts'
import {
  liveWorkers as liveWorkerRows,
  providerPauses,
  queueHealth,
  type PausedProvider,
  type QueueHealth,
} from './store.server.ts'

/**
 * How workers show they are alive (decision 027): each writes its heartbeat row every `beatEveryMs`; one not
 * seen for `deadAfterMs` (three beats) is dead: `/readyz` and the index page stop counting it, and the relay
 * returns the rows it held. A killed worker's row is forgotten by the cleanup after `forgetAfterMs`.
 */
export const WORKER_LIVENESS = { beatEveryMs: 10_000, deadAfterMs: 30_000, forgetAfterMs: 24 * 60 * 60_000 }

/** A due row waiting longer than this means the pipeline is not keeping up (or nothing runs it). */
const DUE_TOO_LONG_SECONDS = 60

export interface LiveWorker {
  id: string
  transport: string
  lastSeenAt: string
}

/** The workers alive now. */
export function liveWorkers(): Promise<LiveWorker[]> {
  return liveWorkerRows(em(), WORKER_LIVENESS.deadAfterMs)
}

/** A full reindex run (decision 028) as operators see it. */
export interface RunHealth {
  id: string
  /** `loading` sources into the shadow tables, `indexing` them, `swapping` them in. */
  phase: 'loading' | 'indexing' | 'swapping'
  sourcesDone: number
  sourcesTotal: number
  chunksWritten: number
  /** Chunks sent to the provider (the others reused a vector of the same text). */
  chunksEmbedded: number
  startedAt: string
  /** Seconds the loading should still take at its pace so far (`loadingSecondsLeft`); null when it cannot tell. */
  secondsLeft: number | null
}

/** An estimate of a run's loading needs this long of it first: the first batches say little of its pace. */
const ESTIMATE_AFTER_SECONDS = 30

/**
 * The loading's time left at its pace so far: seconds since the run started times the sources left over the
 * sources done. Null outside the loading, before a source is done and in its first `ESTIMATE_AFTER_SECONDS`.
 * The vector index built after the load (PostgreSQL, small embedded runs) and the swap come after it.
 */
export function loadingSecondsLeft(
  run: Pick<RunHealth, 'phase' | 'sourcesDone' | 'sourcesTotal' | 'startedAt'>,
  now = Date.now(),
): number | null {
  const elapsed = (now - Date.parse(run.startedAt)) / 1000
  if (run.phase !== 'loading' || run.sourcesDone === 0 || elapsed < ESTIMATE_AFTER_SECONDS) return null
  const left = Math.max(0, run.sourcesTotal - run.sourcesDone)
  return Math.round((elapsed * left) / run.sourcesDone)
}

export interface IndexHealth {
  workers: LiveWorker[]
  queue: QueueHealth
  /** The full reindex building now, if any. */
  run: RunHealth | null
  /** How the last full reindex failed, when it did (its sources then went through the queue one by one). */
  lastRunFailure: { error: string; at: string } | null
  /** Providers paused now after 429, 5xx or timeouts, and until when. */
  paused: { provider: PausedProvider; until: string; reason: string }[]
  /**
   * What an operator should look at, worst first (empty when the pipeline is healthy): no live worker while
   * rows are due or a full reindex is building, a due row waiting too long, a paused provider.
   */
  problems: ('no_live_worker' | 'queue_behind' | 'provider_paused')[]
}

/** The index pipeline as operators see it (`/readyz`, the index status page). */
export async function indexHealth(): Promise<IndexHealth> {
  const [workers, queue, pauses, last] = await Promise.all([
    liveWorkers(),
    queueHealth(em()),
    providerPauses(em()),
    latestRun(em()),
  ])
  const paused = pauses
    .filter((p) => p.remainingMs > 0)
    .map((p) => ({ provider: p.provider, until: p.pausedUntil.toISOString(), reason: p.reason }))
  const problems: IndexHealth['problems'] = []
  const phase: RunHealth['phase'] =
    last?.cursorKind === 'index' ? 'indexing' : last?.cursorKind === 'swap' ? 'swapping' : 'loading'
  const run: RunHealth | null =
    last?.status === 'building'
      ? {
          id: last.id,
          phase,
          sourcesDone: last.sourcesDone,
          sourcesTotal: last.sourcesTotal,
          chunksWritten: last.chunksWritten,
          chunksEmbedded: last.chunksEmbedded,
          startedAt: last.createdAt,
          secondsLeft: loadingSecondsLeft({ ...last, phase, startedAt: last.createdAt }),
        }
      : null
  const lastRunFailure =
    last?.status === 'failed' ? { error: last.error ?? '', at: last.finishedAt ?? last.createdAt } : null
  if (workers.length === 0 && (queue.due > 0 || run)) problems.push('no_live_worker')
  if ((queue.oldestDueSeconds ?? 0) > DUE_TOO_LONG_SECONDS) problems.push('queue_behind')
  if (paused.length) problems.push('provider_paused')
  return { workers, queue, run, lastRunFailure, paused, problems }
}
