import crypto from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { parseConfig, setConfig } from '#app/lib/config.server.ts'
import { em } from '#db/orm.ts'
import { RETRY } from '#pipeline/flow.ts'
import { RELAY } from '#pipeline/relay.ts'
import { RUNNER } from '#pipeline/reindex-runner.ts'
import { BullmqTransport } from '#pipeline/jobs/bullmq.ts'
import { closeJobs, setJobTransport } from '#pipeline/jobs/client.ts'
import { closeQueue, redis } from '#pipeline/transport.ts'
import { startWorker, type WorkerHandle } from '#pipeline/worker.ts'
import { createTerm, createUser } from '#tests/factories.ts'
import { dispatch } from '#tests/http.ts'
import { startPrivateRedis, type PrivateRedis } from '#tests/private-redis.ts'
import { startStandIn, type StandIn } from '#tests/provider-stand-in.ts'
import { useTestDb } from '#tests/setup/db.ts'
import { expectConsoleError } from '#tests/setup/setup-test-env.ts'
import { testEnv } from '#tests/setup/test-env.ts'

useTestDb()

/**
 * Nothing is lost from the index queue (issue 12): on the BullMQ transport against a Redis server of this
 * test's own (so it can be killed and restarted without touching the machine's shared one), work survives a
 * worker killed mid-batch, a Redis restart that loses every job, a restart with queued work, and work submitted
 * again under the id of a job that finished (decision 027). Every row ends `ready` or `failed` with a message,
 * and nothing is indexed at a stale revision. The relay's timings are shortened (`RELAY`), and the reindex
 * runner's (`RUNNER`: a reindex is a run the worker's runner takes up at its next look), never their rules.
 */
const RELAY_DEFAULTS = { ...RELAY }
const RUNNER_DEFAULTS = { ...RUNNER }

let redisServer: PrivateRedis
let provider: StandIn
const PREFIX = `glossary-durability-${crypto.randomBytes(4).toString('hex')}`

/** Starts a worker on the BullMQ transport of this test's Redis. */
async function bullWorker(): Promise<WorkerHandle> {
  setJobTransport(new BullmqTransport(redis(), { prefix: PREFIX }))
  return startWorker()
}

async function stopWorker(worker: WorkerHandle): Promise<void> {
  await worker.stop()
  await closeJobs()
}

async function statuses(): Promise<Record<string, number>> {
  const rows = await em().execute<{ status: string; n: string }[]>(
    'select status, count(*) as n from rag_index_queue group by status',
  )
  return Object.fromEntries(rows.map((r) => [r.status, Number(r.n)]))
}

/** Waits until no row is queued or processing. */
async function settled(timeoutMs = 20_000): Promise<void> {
  const end = Date.now() + timeoutMs
  while (Date.now() < end) {
    const s = await statuses()
    if (!s.queued && !s.processing) return
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  throw new Error(`the queue did not settle: ${JSON.stringify(await statuses())}`)
}

/** Every searchable term has chunks of exactly its current revision. */
async function expectIndexedAtCurrentRevision(): Promise<void> {
  const wrong = await em().execute(
    `select t.id from terms t
      where t.deleted_at is null and t.status <> 'merged'
        and (not exists (select 1 from term_chunks c where c.term_id = t.id)
             or exists (select 1 from term_chunks c where c.term_id = t.id and c.revision <> t.revision))`,
  )
  expect(wrong).toEqual([])
}

beforeAll(async () => {
  redisServer = await startPrivateRedis()
  provider = await startStandIn()
  RETRY.backoffMs = 5
  Object.assign(RELAY, { idleMs: 100, orphanEveryMs: 200, graceMs: 500, resubmitAfterMs: 1_000 })
  RUNNER.pollMs = 100
  const admin = await createUser({ role: 'admin' })
  await dispatch('/admin/rag-config', {
    method: 'PATCH',
    headers: admin.sessionHeaders,
    body: { enabled: true, embeddingBaseUrl: provider.url, embeddingModel: 'text-embed-small' },
  })
  setConfig(parseConfig(testEnv({ REDIS_URL: `${redisServer.url}/0` })))
})

afterAll(async () => {
  await closeJobs()
  await closeQueue()
  await redisServer.stop()
  await provider.close()
  RETRY.backoffMs = 5_000
  Object.assign(RELAY, RELAY_DEFAULTS)
  Object.assign(RUNNER, RUNNER_DEFAULTS)
  setConfig(parseConfig(testEnv()))
})

describe('the index queue on BullMQ', () => {
  it('queued work from before the worker started (a restart with queued rows) is relayed and indexed', async () => {
    for (let i = 0; i < 12; i++) await createTerm({ name: `Queued Before Start ${i}` })
    const worker = await bullWorker()
    expect(worker.transport).toBe('bullmq')
    await settled()
    await stopWorker(worker)
    expect(await statuses()).toEqual({ ready: expect.any(Number) })
    await expectIndexedAtCurrentRevision()
  })

  it('a worker killed mid-batch: the rows it held return to queued as soon as its heartbeat is gone, and are indexed', async () => {
    for (let i = 0; i < 6; i++) await createTerm({ name: `Killed Mid Batch ${i}` })
    // A worker took three rows and was killed: its heartbeat stopped 40 s ago, its jobs are not in Redis.
    await em().execute(
      `insert into worker_heartbeat (id, transport, started_at, last_seen_at)
       values ('killed-worker', 'bullmq', now() - interval '1 hour', now() - interval '40 seconds')`,
    )
    const claimed = await em().execute<{ id: string }[]>(
      `update rag_index_queue set status = 'processing', attempts = 1, locked_by = 'killed-worker',
              locked_at = now() - interval '20 seconds'
        where id in (select id from rag_index_queue where status = 'queued' order by created_at limit 3)
        returning id`,
    )
    expect(claimed).toHaveLength(3)
    const worker = await bullWorker()
    await settled()
    await stopWorker(worker)
    expect(await statuses()).toEqual({ ready: expect.any(Number) })
    await expectIndexedAtCurrentRevision()
  })

  it('work submitted again under the id of a finished job runs: failed rows revived by a reindex are indexed', async () => {
    provider.failNext(401, 4) // not retried: every row fails at its first attempt
    const worker = await bullWorker()
    for (let i = 0; i < 4; i++) await createTerm({ name: `Revived After Failure ${i}` })
    await settled()
    expect((await statuses()).failed).toBe(4)
    // The reindex puts them back at attempt 0: the relay submits the very job ids that failed a moment ago.
    const admin = await createUser({ role: 'admin' })
    await dispatch('/admin/rag-config/reindex', { method: 'POST', headers: admin.sessionHeaders })
    await settled()
    await stopWorker(worker)
    expect(await statuses()).toEqual({ ready: expect.any(Number) })
    await expectIndexedAtCurrentRevision()
  })

  it('a Redis restart that loses every job loses no work', async () => {
    expectConsoleError() // BullMQ prints the lost connection itself
    provider.delayMs = 200
    const worker = await bullWorker()
    for (let i = 0; i < 8; i++) await createTerm({ name: `Survives Redis Restart ${i}` })
    await new Promise((resolve) => setTimeout(resolve, 300))
    await redisServer.restart() // empty: --save "" and no append-only file
    provider.delayMs = 0
    // Rows whose jobs were lost have no pending job: the relay returns them once their claim is past its grace.
    await settled(30_000)
    await stopWorker(worker)
    const s = await statuses()
    expect(s.queued ?? 0).toBe(0)
    expect(s.processing ?? 0).toBe(0)
    expect(s.failed ?? 0).toBe(0)
    await expectIndexedAtCurrentRevision()
  })
})
