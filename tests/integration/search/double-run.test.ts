import crypto from 'node:crypto'
import http from 'node:http'
import type net from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { parseConfig, setConfig } from '#app/lib/config.server.ts'
import { CALL_LIMITS, setCallTimeout } from '#app/services/ai/provider.server.ts'
import { WORKER_LIVENESS } from '#app/services/index-queue/health.server.ts'
import { providerPauses } from '#app/services/index-queue/store.server.ts'
import { em } from '#db/orm.ts'
import { OUTAGE } from '#pipeline/flow.ts'
import { BullmqTransport } from '#pipeline/jobs/bullmq.ts'
import { closeJobs, setJobTransport } from '#pipeline/jobs/client.ts'
import { RELAY } from '#pipeline/relay.ts'
import { runReindexStep, RUNNER } from '#pipeline/reindex-runner.ts'
import { closeQueue, redis } from '#pipeline/transport.ts'
import { startWorker } from '#pipeline/worker.ts'
import { createTerm, createUser, type TestUser } from '#tests/factories.ts'
import { dispatch } from '#tests/http.ts'
import { startPrivateRedis, type PrivateRedis } from '#tests/private-redis.ts'
import { standInVector, startStandIn, type StandIn } from '#tests/provider-stand-in.ts'
import { useTestDb } from '#tests/setup/db.ts'
import { testEnv } from '#tests/setup/test-env.ts'

useTestDb()

/**
 * No index call runs twice at once (the provider-outage e2e's `expectNoRowRunTwiceAtOnce`): the `ai_runs` of
 * one trace never overlap. A full reindex run embeds its batches several calls at a time (decision 028), so
 * each of its calls needs a trace of its own: while they shared the run's id, the e2e failed whenever the run
 * waited on the outage with more than one batch (its calls hang side by side). Here the e2e's outage (500,
 * 429 with Retry-After, hanging past the call's limit, recovery) on a private Redis, with every timing of the
 * pipeline a tenth of production's (`RELAY`, `OUTAGE`, `RUNNER`, the heartbeat, the call's limit), never its
 * rules; and a run step whose calls end differently (one fails at once, the others hang): the step fails only
 * when all of them have ended, so the next step never calls a trace still running.
 */

const SCALE = 10
const RELAY_DEFAULTS = { ...RELAY }
const OUTAGE_DEFAULTS = { ...OUTAGE }
const RUNNER_DEFAULTS = { ...RUNNER }
const LIVENESS_DEFAULTS = { ...WORKER_LIVENESS }
const TIMEOUT_DEFAULT = CALL_LIMITS.timeoutMs
const TERMS = 30

let redisServer: PrivateRedis
let provider: StandIn
let admin: TestUser
const PREFIX = `glossary-double-run-${crypto.randomBytes(4).toString('hex')}`

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** Index calls of one trace whose recorded times overlap (a call never finished counts as an instant). */
async function overlappingTraces(): Promise<string[]> {
  const rows = await em().execute<{ trace_id: string }[]>(
    `select distinct a.trace_id from ai_runs a join ai_runs b on a.trace_id = b.trace_id and a.id < b.id
      where a.purpose = 'index' and b.purpose = 'index'
        and a.started_at < coalesce(b.finished_at, b.started_at)
        and b.started_at < coalesce(a.finished_at, a.started_at)`,
  )
  return rows.map((r) => r.trace_id)
}

/** Points search at `baseUrl`: a new embedding space, so a full reindex run of every source starts. */
async function configureSearch(baseUrl: string): Promise<string> {
  const res = await dispatch('/admin/rag-config', {
    method: 'PATCH',
    headers: admin.sessionHeaders,
    body: { enabled: true, embeddingBaseUrl: baseUrl, embeddingModel: 'text-embed-small' },
  })
  expect(res.status, await res.clone().text()).toBe(200)
  const [run] = await em().execute<{ id: string }[]>(
    `select id from rag_reindex_runs where status = 'building'`,
  )
  return run!.id
}

async function settled(timeoutMs: number): Promise<void> {
  const end = Date.now() + timeoutMs
  while (Date.now() < end) {
    const [row] = await em().execute<{ n: string }[]>(
      `select count(*) as n from rag_index_queue where status in ('queued', 'processing')`,
    )
    if (Number(row!.n) === 0) return
    await sleep(100)
  }
  throw new Error('the index queue did not settle')
}

beforeAll(async () => {
  redisServer = await startPrivateRedis()
  provider = await startStandIn()
  admin = await createUser({ role: 'admin' })
  Object.assign(RELAY, {
    idleMs: RELAY.idleMs / SCALE,
    orphanEveryMs: RELAY.orphanEveryMs / SCALE,
    graceMs: RELAY.graceMs / SCALE,
    resubmitAfterMs: RELAY.resubmitAfterMs / SCALE,
  })
  Object.assign(OUTAGE, { baseMs: OUTAGE.baseMs / SCALE, maxMs: OUTAGE.maxMs / SCALE })
  Object.assign(WORKER_LIVENESS, {
    beatEveryMs: WORKER_LIVENESS.beatEveryMs / SCALE,
    deadAfterMs: WORKER_LIVENESS.deadAfterMs / SCALE,
  })
  setCallTimeout(TIMEOUT_DEFAULT / SCALE)
  setConfig(parseConfig(testEnv({ REDIS_URL: `${redisServer.url}/0` })))
})

afterAll(async () => {
  await closeJobs()
  await closeQueue()
  await redisServer.stop()
  await provider.close()
  Object.assign(RELAY, RELAY_DEFAULTS)
  Object.assign(OUTAGE, OUTAGE_DEFAULTS)
  Object.assign(RUNNER, RUNNER_DEFAULTS)
  Object.assign(WORKER_LIVENESS, LIVENESS_DEFAULTS)
  setCallTimeout(TIMEOUT_DEFAULT)
  setConfig(parseConfig(testEnv()))
})

describe('no index call runs twice at once', () => {
  it('an outage while a full reindex run waits on it: its batches call side by side, each under a trace of its own', async () => {
    // The runner waits until every term is saved, so the run embeds all of them (two batches) in each step.
    RUNNER.pollMs = 60 * 60_000
    setJobTransport(new BullmqTransport(redis(), { prefix: PREFIX }))
    const worker = await startWorker()
    const runId = await configureSearch(provider.url)
    provider.failAll(500)
    for (let i = 0; i < TERMS; i++) {
      await createTerm({
        name: `Outage Term ${i}`,
        definition: `Saved while the provider is down, number ${i}.`,
      })
    }
    RUNNER.pollMs = RUNNER_DEFAULTS.pollMs / SCALE
    worker.wakeIndex()
    await sleep(50_000 / SCALE)
    provider.failAll(429, { 'Retry-After': '1' })
    await sleep(35_000 / SCALE)
    provider.failAll(null)
    provider.delayMs = 40_000 / SCALE
    await sleep(55_000 / SCALE)
    provider.delayMs = 0
    await settled(60_000)
    await worker.stop()
    await closeJobs()

    expect(await overlappingTraces()).toEqual([])
    // The run's calls did overlap one another (hanging together): under one shared trace that is a double run.
    const [side] = await em().execute<{ n: string }[]>(
      `select count(*) as n from ai_runs a join ai_runs b on a.id < b.id
        where a.trace_id like ? and b.trace_id like ? and a.trace_id <> b.trace_id
          and a.started_at < coalesce(b.finished_at, b.started_at)
          and b.started_at < coalesce(a.finished_at, a.started_at)`,
      [`${runId}:%`, `${runId}:%`],
    )
    expect(Number(side!.n)).toBeGreaterThan(0)
    const failed = await em().execute(`select id from rag_index_queue where status = 'failed'`)
    expect(failed).toEqual([])
  }, 120_000)

  // The runner waits for every call of a failed step before the step fails (reindex-runner.ts): the first call
  // answers 429 at once while the step's other calls still hang; the step after the provider's one-second pause
  // must not call their traces again while they run.
  it('a run step that failed while some of its calls still ran: the next step does not call their traces again', async () => {
    const hangMs = 4_000
    let calls = 0
    // The provider's first embedding call answers 429 with Retry-After at once; every later one hangs past the limit.
    const split = http.createServer((req, res) => {
      const body: Buffer[] = []
      req.on('data', (c: Buffer) => body.push(c))
      req.on('end', () => {
        if (!req.url?.endsWith('/embeddings')) {
          res.writeHead(404).end()
          return
        }
        if (calls++ === 0) {
          res.writeHead(429, { 'content-type': 'application/json', 'retry-after': '1' }).end('{}')
          return
        }
        const input = (JSON.parse(Buffer.concat(body).toString('utf8')) as { input: string[] }).input
        setTimeout(() => {
          if (res.destroyed) return
          res.writeHead(200, { 'content-type': 'application/json' })
          res.end(JSON.stringify({ data: input.map((t, index) => ({ index, embedding: standInVector(t) })) }))
        }, hangMs)
      })
    })
    await new Promise<void>((resolve) => split.listen(0, '127.0.0.1', resolve))
    const before = CALL_LIMITS.timeoutMs
    setCallTimeout(hangMs - 1_000)
    try {
      await em().execute('delete from index_provider_pauses')
      await em().execute('delete from ai_runs')
      // Enough sources for several batches (two chunks a term, `EMBED_BATCH` texts a call).
      for (let i = 0; i < TERMS; i++)
        await createTerm({ name: `Split Term ${i}`, definition: `Number ${i}.` })
      const runId = await configureSearch(`http://127.0.0.1:${(split.address() as net.AddressInfo).port}`)
      // A step: several batches at once; the first call's 429 fails it while the others hang.
      expect(await runReindexStep('runner-test')).toBe('waiting')
      while ((await providerPauses(em())).some((p) => p.remainingMs > 0)) await sleep(50)
      // The step after the pause, as the runner's loop takes it.
      expect(await runReindexStep('runner-test')).toBe('waiting')
      const [runs] = await em().execute<{ n: string }[]>(
        `select count(distinct trace_id) as n from ai_runs where trace_id like ?`,
        [`${runId}:%`],
      )
      expect(Number(runs!.n)).toBeGreaterThan(1)
      expect(await overlappingTraces()).toEqual([])
    } finally {
      setCallTimeout(before)
      split.closeAllConnections()
      await new Promise((resolve) => split.close(resolve))
    }
  }, 60_000)
})
