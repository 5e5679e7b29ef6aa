import { spawn, type ChildProcess } from 'node:child_process'
import crypto from 'node:crypto'
import net from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { parseConfig, setConfig } from '#app/lib/config.server.ts'
import { claimDue } from '#app/services/index-queue/store.server.ts'
import { em } from '#db/orm.ts'
import { RETRY } from '#pipeline/flow.ts'
import { BullmqTransport } from '#pipeline/jobs/bullmq.ts'
import { closeJobs, setJobTransport } from '#pipeline/jobs/client.ts'
import { closeQueue, redis } from '#pipeline/transport.ts'
import { startWorker, type WorkerHandle } from '#pipeline/worker.ts'
import { createTerm, createUser } from '#tests/factories.ts'
import { dispatch } from '#tests/http.ts'
import { startStandIn, type StandIn } from '#tests/provider-stand-in.ts'
import { useTestDb } from '#tests/setup/db.ts'
import { expectConsoleError } from '#tests/setup/setup-test-env.ts'
import { testEnv } from '#tests/setup/test-env.ts'

useTestDb()

/**
 * Nothing is lost from the index queue (issue 12): on the BullMQ transport against a Redis server of this
 * test's own (so it can be killed and restarted without touching the machine's shared one), work survives a
 * worker killed mid-batch, a Redis restart that loses every job, and a restart with queued work. Every row
 * ends `ready` or `failed` with a message, and nothing is indexed at a stale revision.
 */

let redisProcess: ChildProcess | undefined
let port = 0
let provider: StandIn
const PREFIX = `glossary-durability-${crypto.randomBytes(4).toString('hex')}`

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = net.createServer()
    server.listen(0, '127.0.0.1', () => {
      const { port: p } = server.address() as net.AddressInfo
      server.close(() => resolve(p))
    })
  })
}

async function startRedis(): Promise<void> {
  redisProcess = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
    {
      stdio: 'ignore',
    },
  )
  for (let i = 0; i < 100; i++) {
    const ok = await new Promise<boolean>((resolve) => {
      const socket = net.connect(port, '127.0.0.1', () => {
        socket.end()
        resolve(true)
      })
      socket.on('error', () => resolve(false))
    })
    if (ok) return
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  throw new Error('redis-server did not start')
}

async function stopRedis(): Promise<void> {
  const child = redisProcess
  redisProcess = undefined
  if (!child || child.exitCode !== null) return
  await new Promise<void>((resolve) => {
    child.once('exit', () => resolve())
    child.kill('SIGKILL')
  })
}

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
  port = await freePort()
  await startRedis()
  provider = await startStandIn()
  RETRY.backoffMs = 5
  const admin = await createUser({ role: 'admin' })
  await dispatch('/admin/rag-config', {
    method: 'PATCH',
    headers: admin.sessionHeaders,
    body: { enabled: true, embeddingBaseUrl: provider.url, embeddingModel: 'text-embed-small' },
  })
  setConfig(parseConfig(testEnv({ REDIS_URL: `redis://127.0.0.1:${port}/0` })))
})

afterAll(async () => {
  await closeJobs()
  await closeQueue()
  await stopRedis()
  await provider.close()
  RETRY.backoffMs = 5_000
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

  it('a worker killed mid-batch: its processing rows return to queued once stale and are indexed', async () => {
    for (let i = 0; i < 6; i++) await createTerm({ name: `Killed Mid Batch ${i}` })
    // The dead worker had claimed these rows and vanished without a trace in Redis.
    const claimed = await em().transactional((tx) => claimDue(tx, 3, ['index']))
    expect(claimed).toHaveLength(3)
    await em().execute(
      `update rag_index_queue set locked_at = now() - interval '11 minutes' where id = any(?::uuid[])`,
      [`{${claimed.map((r) => r.id).join(',')}}`],
    )
    const worker = await bullWorker()
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
    await stopRedis()
    await startRedis() // empty: --save "" and no append-only file
    provider.delayMs = 0
    // Rows a lost job held stay `processing` until stale; play the ten minutes passing.
    await new Promise((resolve) => setTimeout(resolve, 500))
    await em().execute(
      `update rag_index_queue set locked_at = now() - interval '11 minutes' where status = 'processing'`,
    )
    await settled(30_000)
    await stopWorker(worker)
    const s = await statuses()
    expect(s.queued ?? 0).toBe(0)
    expect(s.processing ?? 0).toBe(0)
    expect(s.failed ?? 0).toBe(0)
    await expectIndexedAtCurrentRevision()
  })
})
