import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { StandIn } from '#tests/provider-stand-in.ts'
import {
  configureSearch,
  createApiKey,
  expectJson,
  setupAdmin,
  startCluster,
  until,
  useCluster,
} from './cluster.ts'
import {
  expectIndexedAtCurrentRevision,
  expectNoRowRunTwiceAtOnce,
  rowsIn,
  settleWithin,
  watchWebs,
} from './index-invariants.ts'

/**
 * The fault matrix of the production shape (issue 28, decision 027) on real processes: two `glossary web`
 * and two `glossary worker` on one PostgreSQL database and a private Redis, the provider stand-in answering
 * slowly enough that a full reindex run (decision 028) and saves are under way when the fault strikes. Each case ends, within `SETTLE_MS`, with
 * every row `ready` at its source's current revision, no row embedded twice at once, nothing lost, and the
 * webs answering throughout (the one restarted on purpose aside). The processes run with the production
 * timings: orphans are judged every 10 s, a worker silent for 30 s is dead, a claim without a job is returned
 * after 15 s.
 */

/** The bound of every case: far under the ten minutes of the old stale rule. */
const SETTLE_MS = 150_000
const TERMS = 60

const cluster = useCluster({ webs: 2, workers: 2 })
const state = { admin: '', token: '', provider: undefined as unknown as StandIn, ids: [] as string[] }

let models = 0

/**
 * A full reindex that has work to do: a new embedding model (the same model would reuse every vector and call
 * the provider for nothing), plus a few saves for the ordinary pipeline to index beside it (decision 028).
 */
async function reindex(): Promise<void> {
  await expectJson(
    await cluster.webs[0]!.api('/admin/rag-config', {
      method: 'PATCH',
      cookie: state.admin,
      body: { embeddingModel: `fault-model-${++models}` },
    }),
  )
  for (const id of state.ids.slice(0, 4)) {
    const { revision } = await expectJson<{ revision: number }>(
      await cluster.webs[1]!.api(`/terms/${id}`, { token: state.token }),
    )
    await expectJson(
      await cluster.webs[1]!.api(`/terms/${id}`, {
        method: 'PATCH',
        token: state.token,
        body: { baseRevision: revision, definition: `Saved during reindex ${models}.` },
      }),
    )
  }
}

/** The building run and the worker holding it, once it holds it and its shadow tables exist. */
async function buildingRun(): Promise<{ holder: string }> {
  return until(
    async () => {
      const [run] = await cluster.database.sql<{ holder: string | null; shadow: boolean }>(
        `select holder, to_regclass('term_chunks_next') is not null as shadow
           from rag_reindex_runs where status = 'building'`,
      )
      return run?.holder && run.shadow ? { holder: run.holder } : undefined
    },
    { timeoutMs: 30_000, intervalMs: 50, what: 'a full reindex run under way' },
  )
}

/** Waits until the workers are in the middle of it: the run building, saved rows under way or waiting. */
async function midReindex(): Promise<{ holder: string }> {
  const run = await buildingRun()
  await until(async () => (await rowsIn(cluster.database, 'queued')) > 0, { what: 'queued rows' })
  return run
}

async function settled(label: string): Promise<void> {
  const ms = await settleWithin(cluster.database, SETTLE_MS)
  console.info(`${label}: the queue settled ${ms} ms after the fault`)
  await expectIndexedAtCurrentRevision(cluster.database)
  await expectNoRowRunTwiceAtOnce(cluster.database)
}

beforeAll(async () => {
  state.admin = await setupAdmin(cluster.webs[0]!)
  state.token = (await createApiKey(cluster.webs[0]!, state.admin)).token
  state.provider = await cluster.provider()
  await configureSearch(cluster.webs[0]!, state.admin, state.provider)
  for (let i = 0; i < TERMS; i++) {
    const web = cluster.webs[i % 2]!
    const term = await expectJson<{ id: string }>(
      await web.api('/terms', {
        method: 'POST',
        token: state.token,
        body: { name: `Fault Term ${i}`, definition: `Definition ${i} of a term that must survive faults.` },
      }),
      201,
    )
    state.ids.push(term.id)
  }
  await settleWithin(cluster.database, SETTLE_MS)
  // Slow enough that the run's embedding calls, and the saved rows', take seconds: the faults strike mid-way.
  state.provider.delayMs = 3_000
}, 240_000)

afterAll(() => {
  if (state.provider) state.provider.delayMs = 0
})

describe(
  'the fault matrix: two webs, two workers, PostgreSQL and Redis',
  { timeout: SETTLE_MS + 60_000 },
  () => {
    it('a worker killed (SIGKILL) in the middle of a reindex: the other takes the run over once its heartbeat is gone', async () => {
      const watch = watchWebs(cluster.webs, state.token, state.admin)
      await reindex()
      const { holder } = await midReindex()
      // The worker building the run (its heartbeat id is `host:pid:…`).
      const victim = cluster.workers.find((w) => holder.split(':')[1] === String(w.pid))!
      const survivor = cluster.workers.find((w) => w !== victim)!
      expect((await victim.kill()).signal).toBe('SIGKILL')
      await settled('worker SIGKILL')
      expect(await watch.stop()).toEqual([])
      // The other worker finished the run.
      expect(survivor.output()).toMatch(/full reindex swapped in/)
      const [run] = await cluster.database.sql<{ status: string; holder: string | null }>(
        'select status, holder from rag_reindex_runs order by created_at desc limit 1',
      )
      expect(run).toEqual({ status: 'done', holder: null })
      await victim.start()
    })

    it('Redis restarted, losing every job, in the middle of a reindex', async () => {
      const watch = watchWebs(cluster.webs, state.token, state.admin)
      await reindex()
      await midReindex()
      await cluster.redis.restart()
      await settled('Redis restart')
      expect(await watch.stop()).toEqual([])
    })

    it('the database terminates every connection of the service during indexing', async () => {
      const watch = watchWebs(cluster.webs, state.token, state.admin)
      await reindex()
      await midReindex()
      const terminated = await cluster.database.terminateBackends()
      expect(terminated).toBeGreaterThan(0)
      await settled('pg_terminate_backend')
      expect(await watch.stop()).toEqual([])
    })

    it('a web restarted while rows are queued: the other web answers throughout, and nothing is lost', async () => {
      const [restarted, other] = cluster.webs as [(typeof cluster.webs)[0], (typeof cluster.webs)[0]]
      const watch = watchWebs([other], state.token, state.admin)
      await reindex()
      await restarted.restart('SIGTERM')
      await settled('web restart')
      expect(await watch.stop()).toEqual([])
      expect((await restarted.api('/terms?pageSize=1', { token: state.token })).status).toBe(200)
    })

    it('a term edited twice in quick succession, through both webs, is indexed at its last revision only', async () => {
      const id = state.ids[0]!
      const [webA, webB] = cluster.webs
      const first = await expectJson<{ revision: number }>(
        await webA!.api(`/terms/${id}`, { token: state.token }),
      )
      const second = await expectJson<{ revision: number }>(
        await webA!.api(`/terms/${id}`, {
          method: 'PATCH',
          token: state.token,
          body: { baseRevision: first.revision, definition: 'second words walrus' },
        }),
      )
      await expectJson(
        await webB!.api(`/terms/${id}`, {
          method: 'PATCH',
          token: state.token,
          body: { baseRevision: second.revision, definition: 'third words narwhal' },
        }),
      )
      await settled('two quick edits')
      const chunks = await cluster.database.sql<{ revision: number; content: string }>(
        'select revision, content from term_chunks where term_id = $1',
        [id],
      )
      expect(new Set(chunks.map((c) => c.revision))).toEqual(new Set([second.revision + 1]))
      expect(chunks.map((c) => c.content).join(' ')).toContain('narwhal')
      expect(chunks.map((c) => c.content).join(' ')).not.toContain('walrus')
    })
  },
)

describe('a worker started before the migrations are applied', { timeout: 120_000 }, () => {
  it('refuses with one clear line and exit code 1, then starts once they are', async () => {
    const fresh = await startCluster({ webs: 1, workers: 1, migrate: false })
    try {
      const worker = fresh.workers[0]!
      await worker.start({ wait: false })
      const exit = await worker.exited()
      expect(exit.code).toBe(1)
      expect(worker.output()).toMatch(/migration\(s\) pending/)
      expect(worker.output()).not.toMatch(/^\s+at /m)
      await fresh.migrate()
      await worker.start()
      expect(worker.running).toBe(true)
    } finally {
      await fresh.stop()
    }
  })
})
