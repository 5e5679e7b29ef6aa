import crypto from 'node:crypto'
import os from 'node:os'
import { log } from '#app/lib/logger.server.ts'
import { beat, forgetWorker } from '#app/services/index-queue/store.server.ts'
import { releaseMismatch } from '#db/migrator.ts'
import { em } from '#db/orm.ts'
import { scheduleCleanup } from './cleanup.ts'
import { bindIndexJobs } from './index-jobs.ts'
import { closeJobs, jobs } from './jobs/client.ts'
import { JOB_DEFINITIONS } from './jobs/registry.ts'
import { WORKER_LIVENESS } from '#app/services/index-queue/health.server.ts'
import { followChunkAnn, usesChunkAnn } from '#app/services/search/chunk-ann.server.ts'
import { CHUNK_TABLES } from '#app/services/search/store.server.ts'
import { startReindexRunner } from './reindex-runner.ts'
import { startRelay } from './relay.ts'
import { pingQueue } from './transport.ts'

/**
 * The worker process (decision 027). It registers a heartbeat (so operators, `/readyz` and the relay can see
 * which workers live), consumes every job of the registry on this process's transport (imports and the index
 * stages: BullMQ workers with REDIS_URL; in-process jobs otherwise), runs the relay that turns the index queue
 * into stage jobs and returns orphaned rows, the runner of full reindex runs (decision 028), and the hourly
 * cleanup. The same code runs on either transport.
 */
export interface WorkerHandle {
  id: string
  transport: 'bullmq' | 'in-process'
  /** Looks at the index queue now instead of at the next tick. */
  wakeIndex(): void
  stop(): Promise<void>
}

export async function startWorker(): Promise<WorkerHandle> {
  const id = `${os.hostname()}:${process.pid}:${crypto.randomBytes(3).toString('hex')}`
  if (!(await pingQueue())) throw new Error('The worker cannot reach Redis at REDIS_URL.')
  const transport = jobs()
  // The heartbeat first: the relay judges other workers' rows by it, and must not take ours for orphans.
  await beat(em(), id, transport.kind)
  bindIndexJobs({ transport, holder: id })
  transport.consume(JOB_DEFINITIONS)
  const relay = startRelay(transport, id)
  const reindex = startReindexRunner(id)
  const cleanup = scheduleCleanup(id)
  // The embedded engine's process index starts empty: read the chunk tables now rather than at the first
  // searches, which scan exactly until it has caught up (decision 035).
  if (usesChunkAnn()) followChunkAnn(Object.values(CHUNK_TABLES).map((t) => t.table))
  let stopped: Promise<void> | undefined
  /** Ends everything this worker takes on; `closeJobs` (the process's stop) closes the consumers. */
  const stopTaking = () =>
    (stopped ??= (async () => {
      clearInterval(timer)
      cleanup.stop()
      await relay.stop()
      await reindex.stop()
      await forgetWorker(em(), id).catch(() => undefined)
    })())
  // Each beat also checks the database's release (spec "Versioning"): a worker of the old release still running
  // while an upgrade migrated the database stops taking jobs (the new release's rows and payloads may differ),
  // says why, and leaves the heartbeat table, so `/readyz` counts it out.
  const timer = setInterval(() => {
    void (async () => {
      const mismatch = await releaseMismatch()
      if (mismatch) {
        log().error({ workerId: id }, `worker stopped taking jobs: ${mismatch}`)
        await stopTaking()
        await closeJobs()
        return
      }
      await beat(em(), id, transport.kind)
    })().catch((err: unknown) => log().warn({ err }, 'worker heartbeat failed'))
  }, WORKER_LIVENESS.beatEveryMs)
  timer.unref()
  log().info({ workerId: id, transport: transport.kind }, 'worker started')
  return {
    id,
    transport: transport.kind,
    wakeIndex: () => {
      relay.wake()
      reindex.wake()
    },
    /** Stops the heartbeat, the relay, the reindex runner and the cleanup; the jobs are closed with the process (`closeJobs`), after the web has stopped submitting. */
    async stop() {
      await stopTaking()
      log().info({ workerId: id }, 'worker stopped')
    },
  }
}
