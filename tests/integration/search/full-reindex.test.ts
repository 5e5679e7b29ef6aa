import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { UpdateTermSchema } from '#app/schemas/terms.ts'
import { checkReadiness } from '#app/server/readiness.server.ts'
import { beat } from '#app/services/index-queue/store.server.ts'
import { buildingRun, latestRun, servingEmbedding } from '#app/services/search/reindex-store.server.ts'
import { deleteTerm, updateTerm } from '#app/services/terms/write.server.ts'
import { em } from '#db/orm.ts'
import { OUTAGE } from '#pipeline/flow.ts'
import { RUNNER, runReindexStep } from '#pipeline/reindex-runner.ts'
import { createApiKey, createTerm, createUser, type TestUser } from '#tests/factories.ts'
import { dispatch } from '#tests/http.ts'
import { drainIndexQueue, runReindex, TEST_HOLDER } from '#tests/index-queue.ts'
import { startStandIn, type StandIn } from '#tests/provider-stand-in.ts'
import { useTestDb } from '#tests/setup/db.ts'
import { testEngine } from '#tests/setup/test-env.ts'

useTestDb()

/**
 * A full reindex builds shadow tables and swaps them in (decision 028, issue 28): search keeps answering from
 * the live tables until the swap; saves made meanwhile survive it; a worker that stops beating is replaced at
 * the run's cursor without writing anything twice; a provider outage pauses the run and a permanent failure
 * gives its sources back to the ordinary queue. The runner's steps are taken by hand here, as a worker's
 * runner takes them.
 */

let admin: TestUser
let readKey: Record<string, string>
let provider: StandIn
const OUTAGE_DEFAULTS = { ...OUTAGE }
const RUNNER_DEFAULTS = { ...RUNNER }

async function settings(body: Record<string, unknown>) {
  const res = await dispatch('/admin/rag-config', { method: 'PATCH', headers: admin.sessionHeaders, body })
  expect(res.status, await res.clone().text()).toBe(200)
}

async function reindex() {
  const res = await dispatch('/admin/rag-config/reindex', { method: 'POST', headers: admin.sessionHeaders })
  expect(res.status, await res.clone().text()).toBe(202)
  return res.json()
}

async function searchIds(query: string): Promise<string[]> {
  const res = await dispatch('/rag/search', { headers: readKey, body: { query } })
  expect(res.status, await res.clone().text()).toBe(200)
  return ((await res.json()) as { items: { termId: string }[] }).items.map((i) => i.termId)
}

/** The texts sent to the provider's embeddings endpoint since request `from` (a search's query among them). */
const embedded = (from = 0) =>
  provider.requests
    .slice(from)
    .filter((r) => r.path.endsWith('/embeddings'))
    .flatMap((r) => (r.body as { input: string[] }).input)

async function chunkRows() {
  return em().execute<
    { id: string; term_id: string; revision: number; chunk_index: number; model: string }[]
  >('select id, term_id, revision, chunk_index, model from term_chunks order by term_id, chunk_index')
}

async function shadowTables(): Promise<string[]> {
  const rows = await em().execute<{ name: string }[]>(
    `select table_name as name from information_schema.tables where table_name like '%\\_chunks\\_next' order by 1`,
  )
  return rows.map((r) => r.name)
}

async function queueStatuses(): Promise<Record<string, number>> {
  const rows = await em().execute<{ status: string; n: string }[]>(
    'select status, count(*) as n from rag_index_queue group by status',
  )
  return Object.fromEntries(rows.map((r) => [r.status, Number(r.n)]))
}

beforeAll(async () => {
  admin = await createUser({ role: 'admin' })
  readKey = await createApiKey(admin.user.id, ['read'])
  provider = await startStandIn()
  Object.assign(OUTAGE, { baseMs: 5, maxMs: 40 })
  await settings({
    enabled: true,
    embeddingBaseUrl: provider.url,
    embeddingModel: 'embed-one',
    chunkSize: 400,
    chunkOverlap: 50,
  })
  await createTerm({ name: 'Settlement Batch', definition: 'Nightly job that closes the ledger.' })
  await createTerm({ name: 'Message Queue', definition: 'A buffer of messages between services.' })
  await createTerm({ name: 'Ledger Close', definition: 'The end of the accounting day.' })
  await drainIndexQueue()
})
afterAll(async () => {
  Object.assign(OUTAGE, OUTAGE_DEFAULTS)
  await provider.close()
})
beforeEach(async () => {
  Object.assign(RUNNER, RUNNER_DEFAULTS)
  provider.failAll(null)
  await em().execute('delete from index_provider_pauses')
})

describe('a full reindex', () => {
  it('builds shadow tables while search answers from the live ones, then swaps them in at once', async () => {
    const before = await chunkRows()
    expect(before.length).toBeGreaterThan(0)
    const calls = provider.requests.length
    const answer = await reindex()
    expect(answer.queued).toBe(3)
    const run = await buildingRun(em())
    expect(run?.sourcesTotal).toBe(3)

    // The run's rows are the run's: the ordinary relay leaves them alone.
    const rows = await em().execute<{ run_id: string | null; status: string }[]>(
      `select run_id, status from rag_index_queue where status = 'queued'`,
    )
    expect(rows.length).toBe(3)
    expect(rows.every((r) => r.run_id === run!.id)).toBe(true)

    // One step: the shadow tables exist and hold the batch; the live table is untouched and answers.
    expect(await runReindexStep(TEST_HOLDER)).toBe('progress')
    expect(await shadowTables()).toEqual(['meeting_chunks_next', 'term_chunks_next', 'wiki_chunks_next'])
    expect(await chunkRows()).toEqual(before)
    const [ledger] = await em().execute<{ id: string }[]>(`select id from terms where slug = 'ledger-close'`)
    expect((await searchIds('ledger close accounting day'))[0]).toBe(ledger!.id)
    const [{ n }] = await em().execute<{ n: string }[]>('select count(*) as n from term_chunks_next')
    expect(Number(n)).toBe(before.length)
    // What operators see meanwhile.
    const ready = await checkReadiness()
    expect(ready.checks.index).toContain('full reindex loading: 3 of 3 sources')
    expect(ready.index?.run).toMatchObject({ phase: 'loading', sourcesDone: 3, sourcesTotal: 3 })

    await runReindex()
    expect(await shadowTables()).toEqual([])
    const after = await chunkRows()
    // New rows (new ids) with the same texts and revisions.
    expect(after.map((r) => [r.term_id, r.revision, r.chunk_index])).toEqual(
      before.map((r) => [r.term_id, r.revision, r.chunk_index]),
    )
    expect(after.some((r) => before.some((b) => b.id === r.id))).toBe(false)
    // Same space, same texts: every vector was reused, the provider was not called.
    expect(embedded(calls).filter((text) => !text.startsWith('ledger close'))).toEqual([])
    expect(await queueStatuses()).toEqual({ ready: expect.any(Number) })
    expect((await latestRun(em()))?.status).toBe('done')
    // The swapped-in table carries the live table's names: the HNSW index on PostgreSQL (the embedded engine's
    // `seq` index instead), the owner's key.
    const indexes = await em().execute<{ indexname: string }[]>(
      `select indexname from pg_indexes where tablename = 'term_chunks' order by 1`,
    )
    expect(indexes.map((i) => i.indexname)).toEqual(
      testEngine() === 'pglite'
        ? ['term_chunks_owner_idx', 'term_chunks_pkey', 'term_chunks_reuse_idx', 'term_chunks_seq_idx']
        : ['term_chunks_embedding_idx', 'term_chunks_owner_idx', 'term_chunks_pkey', 'term_chunks_reuse_idx'],
    )
    const constraints = await em().execute<{ conname: string }[]>(
      `select conname from pg_constraint where conrelid = 'term_chunks'::regclass and contype = 'f'`,
    )
    expect(constraints.map((c) => c.conname)).toEqual(['term_chunks_term_id_fkey'])
    expect((await searchIds('ledger close accounting day'))[0]).toBe(ledger!.id)
  })

  it('embeds every text once in a new model, and keeps a save made during the run', async () => {
    const calls = provider.requests.length
    await settings({ embeddingModel: 'embed-two' })
    const run = await buildingRun(em())
    expect(run?.space).toContain('embed-two')
    RUNNER.sourcesPerBatch = 1
    expect(await runReindexStep(TEST_HOLDER)).toBe('progress') // shadow tables + the first term
    // Until the swap, search embeds its query with the model of the live tables and answers from them.
    const [queue] = await em().execute<{ id: string }[]>(`select id from terms where slug = 'message-queue'`)
    const asked = provider.requests.length
    expect((await searchIds('message queue buffer between services'))[0]).toBe(queue!.id)
    const query = provider.requests.slice(asked).find((r) => r.path.endsWith('/embeddings'))
    expect((query?.body as { model: string }).model).toBe('embed-one')
    const [first] = await em().execute<{ term_id: string }[]>('select term_id from term_chunks_next limit 1')
    const term = await em().execute<{ id: string; slug: string }[]>(
      'select id, slug from terms where id = ?',
      [first!.term_id],
    )
    // Saved after the run read it: the ordinary pipeline indexes revision 2 into the live table, and the swap
    // keeps it rather than the run's revision 1.
    await updateTerm({
      idOrSlug: term[0]!.id,
      input: UpdateTermSchema.parse({ baseRevision: 1, definition: 'Rewritten during the reindex omega.' }),
      actorId: admin.user.id,
    })
    // Deleted after the run read it (it is later in id order than nothing: take the last term).
    const [last] = await em().execute<{ id: string }[]>(
      `select id from terms where deleted_at is null order by id desc limit 1`,
    )
    if (last!.id !== term[0]!.id) await deleteTerm({ idOrSlug: last!.id, actorId: admin.user.id })
    await drainIndexQueue()

    const after = await chunkRows()
    expect(new Set(after.map((r) => r.model))).toEqual(new Set([run!.space]))
    expect(after.filter((r) => r.term_id === term[0]!.id).every((r) => r.revision === 2)).toBe(true)
    if (last!.id !== term[0]!.id) expect(after.some((r) => r.term_id === last!.id)).toBe(false)
    // Each text once: as many provider inputs as distinct texts embedded by the run and the save.
    const inputs = embedded(calls)
    expect(inputs.filter((text, i) => inputs.indexOf(text) !== i)).toEqual([])
    const swapped = provider.requests.length
    expect((await searchIds('rewritten during the reindex omega'))[0]).toBe(term[0]!.id)
    const queryAfter = provider.requests.slice(swapped).find((r) => r.path.endsWith('/embeddings'))
    expect((queryAfter?.body as { model: string }).model).toBe('embed-two')
    expect(await queueStatuses()).toEqual({ ready: expect.any(Number) })
  })

  it('a worker that stops beating is replaced at the run’s cursor; nothing is written twice', async () => {
    for (let i = 0; i < 4; i++)
      await createTerm({ name: `Cursor Term ${i}`, definition: `Cursor words ${i}.` })
    await drainIndexQueue()
    await settings({ embeddingModel: 'embed-three' })
    RUNNER.sourcesPerBatch = 2
    await beat(em(), 'worker-a', 'in-process')
    await beat(em(), 'worker-b', 'in-process')
    expect(await runReindexStep('worker-a')).toBe('progress')
    expect(await runReindexStep('worker-a')).toBe('progress')
    // worker-a lives: worker-b leaves the run alone.
    expect(await runReindexStep('worker-b')).toBe('idle')
    expect((await buildingRun(em()))?.holder).toBe('worker-a')
    // worker-a is killed: its heartbeat ages past the limit, and worker-b resumes where it stopped.
    await em().execute(
      `update worker_heartbeat set last_seen_at = now() - interval '1 hour' where id = 'worker-a'`,
    )
    const done = (await buildingRun(em()))!.sourcesDone
    expect(done).toBe(4)
    expect(await runReindexStep('worker-b')).toBe('progress')
    expect((await buildingRun(em()))?.sourcesDone).toBe(6)
    await runReindex('worker-b')
    const rows = await chunkRows()
    const keys = rows.map((r) => `${r.term_id}:${r.chunk_index}`)
    expect(new Set(keys).size).toBe(keys.length)
    const [{ live }] = await em().execute<{ live: string }[]>(
      `select count(*) as live from terms where deleted_at is null and status <> 'merged'`,
    )
    expect(new Set(rows.map((r) => r.term_id)).size).toBe(Number(live))
    expect((await latestRun(em()))?.status).toBe('done')
  })

  it('an outage pauses the run without losing it; a permanent error gives its sources back to the queue', async () => {
    await settings({ embeddingModel: 'embed-four' })
    provider.failAll(503)
    expect(await runReindexStep(TEST_HOLDER)).toBe('waiting')
    const pauses = await em().execute<{ provider: string }[]>('select provider from index_provider_pauses')
    expect(pauses.map((p) => p.provider)).toEqual(['embedding'])
    expect((await buildingRun(em()))?.status).toBe('building')
    provider.failAll(null)
    await new Promise((resolve) => setTimeout(resolve, 60))
    await runReindex()
    expect((await latestRun(em()))?.status).toBe('done')
    expect(await em().execute('select 1 from index_provider_pauses')).toEqual([])

    await settings({ embeddingModel: 'embed-five' })
    provider.failAll(401)
    expect(await runReindexStep(TEST_HOLDER)).toBe('idle')
    const failed = await latestRun(em())
    expect(failed?.status).toBe('failed')
    expect(failed?.error).toMatch(/401|rejected|key/i)
    expect(await shadowTables()).toEqual([])
    const [{ n }] = await em().execute<{ n: string }[]>(
      `select count(*) as n from rag_index_queue where status = 'queued' and run_id is null`,
    )
    expect(Number(n)).toBeGreaterThan(0)
    // The ordinary pipeline takes them: with the provider back, they are indexed in the new model.
    provider.failAll(null)
    await drainIndexQueue()
    expect(new Set((await chunkRows()).map((r) => r.model))).toEqual(new Set([failed!.space]))
  })

  it('PostgreSQL builds the vector index after the load; the embedded engine has none, and its process index follows the shadow table into the swap', async () => {
    const indexed = async () =>
      (
        await em().execute<{ n: string }[]>(
          `select count(*) as n from pg_indexes where indexname = 'term_chunks_next_embedding_idx'`,
        )
      )[0]!.n
    await reindex()
    expect(await runReindexStep(TEST_HOLDER)).toBe('progress')
    expect(Number(await indexed())).toBe(0)
    await runReindex()
    expect((await latestRun(em()))?.status).toBe('done')
    const [term] = await em().execute<{ id: string; name: string }[]>(
      `select id, name from terms where deleted_at is null and name like 'Cursor Term%' order by name limit 1`,
    )
    expect((await searchIds(`${term!.name} cursor words`))[0]).toBe(term!.id)
  })

  // Two connections at once: the embedded engine has one.
  it.runIf(testEngine() === 'postgres')(
    'a swap that waits too long for a running search tries again later instead of failing the run',
    async () => {
      await reindex()
      RUNNER.lockTimeoutMs = 100
      let release = () => {}
      const held = new Promise<void>((resolve) => (release = resolve))
      let locked = () => {}
      const isLocked = new Promise<void>((resolve) => (locked = resolve))
      const search = em()
        .fork()
        .transactional(async (tx) => {
          await tx.execute('lock table term_chunks in access share mode', [], 'run')
          locked()
          await held
        })
      await isLocked
      let outcome = await runReindexStep(TEST_HOLDER)
      while (outcome === 'progress' && (await buildingRun(em()))?.cursorKind !== 'swap')
        outcome = await runReindexStep(TEST_HOLDER)
      expect(await runReindexStep(TEST_HOLDER)).toBe('waiting')
      expect((await buildingRun(em()))?.cursorKind).toBe('swap')
      release()
      await search
      await runReindex()
      expect((await latestRun(em()))?.status).toBe('done')
    },
  )

  it('a new reindex replaces the run still building, and serves search with the same model', async () => {
    const live = (await chunkRows())[0]!.model
    await settings({ embeddingModel: 'embed-six' })
    const first = (await buildingRun(em()))!
    expect((await servingEmbedding(em()))?.model).toBe(live.split('|').at(-1))
    RUNNER.sourcesPerBatch = 1
    expect(await runReindexStep(TEST_HOLDER)).toBe('progress')
    await reindex()
    const second = (await buildingRun(em()))!
    // The live tables did not change: the new run serves search with what the replaced one did.
    expect((await servingEmbedding(em()))?.model).toBe(live.split('|').at(-1))
    expect(second.id).not.toBe(first.id)
    const old = await em().execute<{ status: string }[]>('select status from rag_reindex_runs where id = ?', [
      first.id,
    ])
    expect(old[0]?.status).toBe('cancelled')
    // The old run's holder can no longer write: its next step finds the new run and starts it afresh.
    await runReindex()
    expect((await latestRun(em()))?.id).toBe(second.id)
    expect((await latestRun(em()))?.status).toBe('done')
    expect(await servingEmbedding(em())).toBeUndefined()
    expect(await queueStatuses()).toEqual({ ready: expect.any(Number) })
  })
})
