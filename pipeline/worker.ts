import crypto from 'node:crypto'
import os from 'node:os'
import { log } from '#app/lib/logger.server.ts'
import { getDb } from '#db/orm.ts'
import { returnStale } from '#app/services/index-queue/store.server.ts'
import { scheduleCleanup } from './cleanup.ts'
import { bindIndexTransport } from './index-jobs.ts'
import { claimLoop, relayLoop, STALE_MS, type Loop } from './index-loop.ts'
import { BullmqTransport } from './jobs/bullmq.ts'
import { jobs } from './jobs/client.ts'
import { JOB_DEFINITIONS } from './jobs/registry.ts'
import { pingQueue } from './transport.ts'

/**
 * The worker process. It registers a heartbeat row every 30 s (so operators and `/readyz` can see which
 * workers run), runs the index pipeline (decision 016) and the hourly cleanup. With REDIS_URL it consumes
 * every job of the registry from BullMQ (imports and the four index stages) and relays queued index rows to
 * BullMQ (on start and every 2 s); without Redis it claims index rows from the queue table itself and runs
 * the same stages in this process (the embedded default of `glossary start`). Either way it first returns
 * stale `processing` rows to `queued`.
 */
export interface WorkerHandle {
  id: string
  transport: 'bullmq' | 'in-process'
  /** Looks at the index queue now instead of at the next tick. */
  wakeIndex(): void
  stop(): Promise<void>
}

const HEARTBEAT_MS = 30_000

export async function startWorker(): Promise<WorkerHandle> {
  const id = `${os.hostname()}:${process.pid}:${crypto.randomBytes(3).toString('hex')}`
  const queue = jobs()
  const transport = queue.kind
  let indexLoop: Loop
  await returnStale(getDb().em.fork(), STALE_MS)
  if (queue instanceof BullmqTransport) {
    if (!(await pingQueue())) throw new Error('The worker cannot reach Redis at REDIS_URL.')
    bindIndexTransport(queue)
    queue.consume(JOB_DEFINITIONS)
    indexLoop = relayLoop(queue)
  } else {
    indexLoop = claimLoop()
  }
  const cleanup = scheduleCleanup(id)
  await beat(id, transport)
  const timer = setInterval(() => {
    beat(id, transport).catch((err) => log().warn({ err }, 'worker heartbeat failed'))
  }, HEARTBEAT_MS)
  timer.unref()
  log().info({ workerId: id, transport }, 'worker started')
  return {
    id,
    transport,
    wakeIndex: () => indexLoop.wake(),
    /** Stops the heartbeat, the index loop (its current row finishes) and the cleanup; the jobs are closed with the process (`closeJobs`), after the web has stopped submitting. */
    async stop() {
      clearInterval(timer)
      cleanup.stop()
      await indexLoop.stop()
      await getDb()
        .em.getConnection()
        .execute('delete from worker_heartbeat where id = ?', [id])
        .catch(() => undefined)
      log().info({ workerId: id }, 'worker stopped')
    },
  }
}

async function beat(id: string, transport: string): Promise<void> {
  await getDb()
    .em.getConnection()
    .execute(
      `insert into worker_heartbeat (id, transport, started_at, last_seen_at) values (?, ?, now(), now())
       on conflict (id) do update set last_seen_at = now()`,
      [id, transport],
    )
}

/** Workers seen in the last two heartbeats. */
export async function liveWorkers(): Promise<{ id: string; transport: string; lastSeenAt: string }[]> {
  const rows = await getDb()
    .em.getConnection()
    .execute<{ id: string; transport: string; last_seen_at: Date }[]>(
      `select id, transport, last_seen_at from worker_heartbeat
       where last_seen_at > now() - interval '70 seconds' order by id`,
    )
  return rows.map((r) => ({
    id: r.id,
    transport: r.transport,
    lastSeenAt: new Date(r.last_seen_at).toISOString(),
  }))
}
