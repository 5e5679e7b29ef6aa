/**
 * Search by meaning (issue 12, decision 016), on the embedded database or, with DATABASE_URL, on PostgreSQL
 * (issue 28; in a database of its own on that server, see below):
 *
 * 1. `search`: vector search at CHUNKS chunks (default 100,000; 1536-d, clustered non-uniform vectors, see
 *    rag-data.ts): loading them (binary COPY) and building the HNSW index after the load (PostgreSQL) or the
 *    process index from the table (embedded, decision 035); recall@10 against an exact scan and p50/p95 of the
 *    search store's statement for several `hnsw.ef_search` values (EF=40,64,…) or, embedded, graph candidates
 *    per SQL candidate (DEPTH=10,20,40);
 *    p50/p95 and recall@10 of `POST /rag/search` over HTTP, timed by a client in its own process, with a
 *    provider on 127.0.0.1 that answers at once with each query's vector (drawn like the chunks' vectors, so
 *    the request's answer and the exact scan are in the same space). On PostgreSQL also the statement at the
 *    chosen ef_search with JIT on, as the KNN transaction ran before issue 28 (its planner settings priced the
 *    plan past `jit_above_cost`).
 * 2. `load`: rows/s inserting into a table that has the HNSW index vs inserting without it and building the
 *    index after (LOAD_ROWS rows each).
 * 3. `reindex`: chunks/s of indexing TERMS terms (default 10,000) queued as ordinary work, as saves queue them,
 *    through the per-row stages over in-process jobs, and the p95 of `GET /terms` while it runs versus idle (a
 *    full reindex is a run into shadow tables: bench/full-reindex.bench.ts).
 *
 * Run: `npx tsx bench/rag-search.bench.ts [search] [load] [reindex]` (all three without arguments;
 * CHUNKS=20000 TERMS=2000 for a quicker look). RAG_BENCH_DIR=/some/dir keeps the database on disk there (as
 * `glossary start` does) and reuses its loaded chunks and index on the next run of `search` (its chunks are in
 * the space of the provider's address, so the stand-in listens on the port stored there again).
 *
 * PostgreSQL: `DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres npx tsx bench/rag-search.bench.ts search`
 * creates a throwaway database `glossary_bench_<pid>` on that server (the URL's database is not touched) and
 * drops it at the end; RAG_BENCH_DB=name uses and keeps that database instead, reusing its chunks as
 * RAG_BENCH_DIR does. Chunks load by multi-row inserts with binary vectors (rag-data.ts `loadTermChunks`).
 */
import { execFile } from 'node:child_process'
import crypto from 'node:crypto'
import fs from 'node:fs'
import type { AddressInfo } from 'node:net'
import os from 'node:os'
import path from 'node:path'
import { promisify } from 'node:util'
import { parseConfig, setConfig } from '../app/lib/config.server.ts'
import type { EntityManager } from '@mikro-orm/postgresql'
import { createBenchPostgres, openBenchDatabase } from './bench-db.ts'
import {
  loadTermChunks,
  startInstantProvider,
  startInstantProviderProcess,
  textVector,
  vectorLiteral,
  vectorStream,
} from './rag-data.ts'
import {
  benchEnv,
  benchParts,
  forMs,
  loadAverage,
  percentile,
  postgresCpuSeconds,
  sampleTimes,
} from './support.ts'

setConfig(parseConfig(benchEnv()))
const CHUNKS = Number(process.env.CHUNKS ?? 100_000)
const TERMS = Number(process.env.TERMS ?? 10_000)
const LOAD_ROWS = Number(process.env.LOAD_ROWS ?? 2_000)
const QUERIES = 200
/**
 * Untimed requests before the timed ones. A PostgreSQL backend maps each shared buffer into its own memory on
 * first touch: over an index of 781 MB a fresh connection's first few hundred searches are 2–3× slower than
 * its later ones (measured: ef_search 200, p50 8.3 ms on the first 200 queries of a connection, 3.5–4.3 ms on
 * the next 800, each query new). A service's pooled connections live for days, so the timed requests come
 * after the pool is warm.
 */
const WARMUP = Number(process.env.WARMUP ?? 400)
const TRUTH = 50
const run = benchParts()
const load = loadAverage

const postgres = process.env.DATABASE_URL
  ? await createBenchPostgres(process.env.DATABASE_URL, process.env.RAG_BENCH_DB)
  : undefined
const { userId, auth } = await openBenchDatabase({
  dataDir: process.env.RAG_BENCH_DIR,
  databaseUrl: postgres?.url,
})
const { em, getDb, closeDb } = await import('../db/orm.ts')
const { handleApiRequest } = await import('../app/api/handler.server.ts')
const { createHttpApp } = await import('../app/server/http.server.ts')
const { updateRagConfig } = await import('../app/services/search/rag-config.server.ts')
const { HNSW_TUNING, searchTermChunks } = await import('../app/services/search/store.server.ts')
const { SettingsPool } = await import('../db/settings-pool.ts')
const { hnswIndexSql } = await import('../app/services/search/reindex-store.server.ts')
const { ANN, catchUpChunkAnn } = await import('../app/services/search/chunk-ann.server.ts')
console.log(
  `${postgres ? `PostgreSQL (database ${postgres.name})` : 'embedded PGlite'}; cpus ${os.cpus().length}, load average at start ${load()}`,
)

async function insertTerms(count: number, prefix: string): Promise<string[]> {
  const ids: string[] = []
  for (let start = 0; start < count; start += 1000) {
    const rows = Array.from({ length: Math.min(1000, count - start) }, (_, k) => {
      const i = start + k
      const id = crypto.randomUUID()
      ids.push(id)
      const name = `${prefix} ${i}`
      const content = {
        slug: `${prefix}-${i}`.toLowerCase().replace(/ /g, '-'),
        name,
        fullName: null,
        nameEn: null,
        nameKo: null,
        notations: [],
        domains: [],
        categories: [],
        tags: [],
        status: 'active',
        definition: `Definition of ${name}: ${'words about the topic '.repeat(8)}`,
        body: '',
      }
      return { id, slug: content.slug, name, content: JSON.stringify(content) }
    })
    await em().execute(
      `with x as (select * from jsonb_to_recordset(?::jsonb) as x(id uuid, slug text, name text, content text))
       , t as (insert into terms (id, slug, name, status, revision, content_hash, search_text)
               select id, slug, name, 'active', 1, md5(content), lower(name) from x)
       insert into term_revisions (id, term_id, revision, content, content_hash)
       select gen_random_uuid(), id, 1, content::jsonb, md5(content) from x`,
      [JSON.stringify(rows)],
    )
  }
  return ids
}

/**
 * Measures the database's time per kind of statement (its first words) around every query this process
 * sends, until `stop()`: where a request's or the pipeline's time goes. On the embedded engine around PGlite's
 * `query`; on PostgreSQL around the ORM connection's `execute` (the round trip included).
 */
function timeStatements() {
  const stats = new Map<string, { ms: number; calls: number }>()
  const timed =
    <A extends unknown[], R>(run: (sql: string, ...rest: A) => Promise<R>) =>
    async (sql: string, ...rest: A): Promise<R> => {
      const t0 = performance.now()
      try {
        return await run(sql, ...rest)
      } finally {
        const key = (typeof sql === 'string' ? sql : String(sql)).replace(/\s+/g, ' ').trim().slice(0, 70)
        const entry = stats.get(key) ?? { ms: 0, calls: 0 }
        entry.ms += performance.now() - t0
        entry.calls++
        stats.set(key, entry)
      }
    }
  const pglite = getDb().pglite
  let stop: () => void
  if (pglite) {
    const query = pglite.query.bind(pglite)
    pglite.query = timed(query) as typeof pglite.query
    stop = () => {
      pglite.query = query
    }
  } else {
    // The ORM's connection and the search pool's (db/settings-pool.ts, the KNN statements).
    const connection = getDb().orm.em.getConnection()
    const execute = connection.execute.bind(connection)
    connection.execute = timed(execute as (sql: string, ...rest: unknown[]) => Promise<never>)
    const poolQuery = SettingsPool.prototype.query
    SettingsPool.prototype.query = function (
      this: InstanceType<typeof SettingsPool>,
      sql: string,
      ...rest: unknown[]
    ) {
      return timed((text: string, ...more: unknown[]) =>
        (poolQuery as (...args: unknown[]) => Promise<never>).call(this, text, ...more),
      )(sql, ...rest)
    } as typeof poolQuery
    stop = () => {
      connection.execute = execute
      SettingsPool.prototype.query = poolQuery
    }
  }
  return {
    top: (n: number) => [...stats].sort((a, b) => b[1].ms - a[1].ms).slice(0, n),
    stop,
  }
}

/**
 * `manager` whose transactions turn JIT back on just before each KNN statement (one ordering by `<=>`), after
 * the KNN transaction's own settings: the search as it ran on PostgreSQL before issue 28.
 */
function withJitOn(manager: EntityManager): EntityManager {
  const passThrough = <T extends object>(target: T, property: string | symbol) => {
    const value = Reflect.get(target, property, target) as unknown
    return typeof value === 'function' ? value.bind(target) : value
  }
  const jitTx = (tx: EntityManager) =>
    new Proxy(tx, {
      get: (target, property) =>
        property === 'execute'
          ? async (sql: string, params?: unknown[], method?: 'all' | 'get' | 'run') => {
              if (/<=>[\s\S]*order by distance/.test(sql))
                await target.execute('set local jit = on', [], 'run')
              return target.execute(sql, params, method)
            }
          : passThrough(target, property),
    })
  return new Proxy(manager, {
    get: (target, property) =>
      property === 'transactional'
        ? <T>(work: (tx: EntityManager) => Promise<T>) => target.transactional((tx) => work(jitTx(tx)))
        : passThrough(target, property),
  })
}

// ── 1. Vector search at CHUNKS chunks ────────────────────────────────────────────────────────────────────
if (run('search')) {
  // The provider answers each query text with its prepared vector (drawn like the chunks' vectors).
  const queryVectors = new Map<string, number[]>()
  // A reused database keeps its chunks in the space of the provider's address: listen on the same port.
  const [stored] = await em().execute<{ url: string }[]>(`select embedding_base_url as url from rag_config`)
  const storedPort = Number(/^http:\/\/127\.0\.0\.1:(\d+)\/v1$/.exec(stored?.url ?? '')?.[1] ?? 0)
  const instant = await startInstantProvider((text) => queryVectors.get(text) ?? textVector(text), storedPort)
  const instantUrl = instant.url
  await updateRagConfig({
    input: { enabled: true, embeddingBaseUrl: instantUrl, embeddingModel: 'bench-embed', topK: 10 },
    actorId: userId,
    audit: { actor: { userId, label: 'bench' } },
  })
  await em().execute('delete from rag_index_queue')
  const space = `alpha_compatible|${instantUrl}|bench-embed`

  const [{ n: present }] = await em().execute<{ n: string }[]>(
    'select count(*) as n from term_chunks where model = ?',
    [space],
  )
  if (Number(present) === CHUNKS) {
    console.log(
      `reusing the ${CHUNKS.toLocaleString('en')} chunks and the index in ${postgres ? `database ${postgres.name}` : process.env.RAG_BENCH_DIR}`,
    )
  } else {
    await em().execute('delete from term_chunks')
    await em().execute('delete from term_revisions')
    await em().execute('delete from terms')
    console.log(`loading ${CHUNKS.toLocaleString('en')} chunks…`)
    const termIds = await insertTerms(Math.ceil(CHUNKS / 5), 'Vector Term')
    // The embedded engine's tables have no HNSW index (decision 035): its process index is built below.
    if (postgres) await em().execute('drop index term_chunks_embedding_idx')
    const next = vectorStream(1)
    let started = performance.now()
    for (let start = 0; start < CHUNKS; start += 1000) {
      const batch = Array.from({ length: Math.min(1000, CHUNKS - start) }, (_, k) => ({
        termId: termIds[Math.floor((start + k) / 5)]!,
        chunkIndex: (start + k) % 5,
        vector: next(),
      }))
      await loadTermChunks(space, batch)
    }
    const loadSeconds = (performance.now() - started) / 1000
    started = performance.now()
    // The HNSW graph of 100,000 × 1536-d vectors (~800 MB) must fit in maintenance_work_mem, or the build
    // takes pgvector's much slower on-disk path. In the index's transaction: PostgreSQL's pool has several
    // connections, and a session setting would stay on whichever one ran it.
    if (postgres) {
      await em().transactional(async (tx) => {
        await tx.execute(`set local maintenance_work_mem = '${process.env.BUILD_MEMORY ?? '1GB'}'`, [], 'run')
        await tx.execute(hnswIndexSql('term_chunks_embedding_idx', 'term_chunks'), [], 'run')
      })
    }
    await em().execute('analyze')
    const buildSeconds = (performance.now() - started) / 1000
    console.log(
      `bulk load (${postgres ? 'multi-row inserts, binary vectors' : 'binary COPY'}, no index): ${(CHUNKS / loadSeconds).toFixed(0)} rows/s${postgres ? `; HNSW build after it: ${buildSeconds.toFixed(1)} s` : ''} (load ${load()})`,
    )
  }
  if (!postgres) {
    // The embedded engine's process index, read from the table as a starting service reads it.
    const started = performance.now()
    await catchUpChunkAnn(em(), ['term_chunks'])
    console.log(
      `process index (decision 035) built from the table: ${((performance.now() - started) / 1000).toFixed(1)} s, ${(process.memoryUsage().rss / 1e6).toFixed(0)} MB resident (load ${load()})`,
    )
  }

  const nextQuery = vectorStream(2)
  const queries = Array.from({ length: QUERIES }, (_, i) => {
    const text = `query ${i}`
    queryVectors.set(text, nextQuery())
    return text
  })
  const truth = new Map<string, string[]>()
  const exactTimes: number[] = []
  for (const q of queries.slice(0, TRUTH)) {
    const started = performance.now()
    const ids = await em().transactional(async (tx) => {
      // An order the HNSW index cannot serve (`+ 0`), and sequential scans allowed: PGlite starts its server
      // with enable_seqscan = off, and `enable_indexscan = off` alone still gets the index (an approximate
      // "truth" that made recall look perfect at the default ef_search).
      await tx.execute('set local enable_seqscan = on', [], 'run')
      const rows = await tx.execute<{ id: string }[]>(
        'select id from term_chunks order by (embedding <=> ?::vector) + 0 limit 10',
        [vectorLiteral(queryVectors.get(q)!)],
      )
      return rows.map((r) => r.id)
    })
    exactTimes.push(performance.now() - started)
    truth.set(q, ids)
  }
  console.log(`exact scan (the truth): p50 ${percentile(exactTimes, 50).toFixed(0)} ms`)

  // The search store's own statement, for several ef_search values on PostgreSQL, several candidate counts a
  // result on the embedded engine (each run twice: the second is timed).
  const tuning = HNSW_TUNING
  const chosen = postgres ? tuning.efSearch : ANN.graphDepth
  const breadths = postgres ? (process.env.EF ?? '40,64,100,200') : (process.env.DEPTH ?? '10,20,40')
  for (const ef of breadths.split(',').map(Number)) {
    if (postgres) tuning.efSearch = ef
    else ANN.graphDepth = ef
    let hit = 0
    const times: number[] = []
    for (let round = 0; round < 2; round++) {
      for (const [q, ids] of truth) {
        const started = performance.now()
        const rows = await searchTermChunks(em(), {
          vector: vectorLiteral(queryVectors.get(q)!),
          space,
          limit: 10,
          domain: null,
        })
        if (round === 0) continue
        times.push(performance.now() - started)
        hit += rows.filter((r) => ids.includes(r.id)).length
      }
    }
    console.log(
      `${postgres ? 'ef_search' : 'graph candidates per SQL candidate'} ${ef}: recall@10 ${(hit / (truth.size * 10)).toFixed(3)}, SQL p50 ${percentile(times, 50).toFixed(1)} ms, p95 ${percentile(times, 95).toFixed(1)} ms (load ${load()})`,
    )
  }
  if (postgres) tuning.efSearch = chosen
  else ANN.graphDepth = chosen
  if (postgres) {
    // The same statement at the chosen ef_search with JIT on, as before issue 28 (20 queries: each compiles).
    const times: number[] = []
    for (const [q] of [...truth].slice(0, 20)) {
      for (let round = 0; round < 2; round++) {
        const started = performance.now()
        await searchTermChunks(withJitOn(em()), {
          vector: vectorLiteral(queryVectors.get(q)!),
          space,
          limit: 10,
          domain: null,
        })
        if (round === 1) times.push(performance.now() - started)
      }
    }
    console.log(
      `ef_search ${chosen} with JIT on (before issue 28): SQL p50 ${percentile(times, 50).toFixed(1)} ms, p95 ${percentile(times, 95).toFixed(1)} ms (load ${load()})`,
    )
  }

  // POST /rag/search over HTTP, timed from a client in its own process (bench/post-client.mjs, node:http on one
  // kept-alive connection: undici's fetch adds its own ~1.5 ms a request), to the last byte of each answer: the QUERIES queries after WARMUP untimed ones (other texts, so no answer is cached
  // anywhere), a short pause between. Recall of the answers against the exact truth of the first TRUTH.
  const warmupTexts = Array.from({ length: WARMUP }, (_, i) => {
    const text = `warm-up ${i}`
    queryVectors.set(text, nextQuery())
    return text
  })
  // The provider answers from a process of its own for the timed requests, on the same address.
  await instant.close()
  const provider = await startInstantProviderProcess(Number(new URL(instantUrl).port), queryVectors)
  const server = createHttpApp().listen(0, '127.0.0.1')
  await new Promise<void>((resolve) => server.once('listening', resolve))
  const bodyFile = path.join(os.tmpdir(), `rag-bench-${process.pid}.ndjson`)
  fs.writeFileSync(
    bodyFile,
    [...warmupTexts, ...queries].map((query) => JSON.stringify({ query })).join('\n'),
  )
  let client: { times: number[]; warmupTimes: number[]; answers: { items: { id: string }[] }[] }
  const statements = timeStatements()
  const serviceCpu = process.cpuUsage()
  const databaseCpu = postgres ? postgresCpuSeconds() : undefined
  let cpuMs: { service: number; database: number | undefined }
  try {
    const { stdout } = await promisify(execFile)(
      process.execPath,
      [
        path.join(import.meta.dirname, 'post-client.mjs'),
        `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v1/rag/search`,
        JSON.stringify(auth),
        bodyFile,
        String(queries.length),
        '20',
        String(WARMUP),
        '1',
        'http',
      ],
      { maxBuffer: 64 * 1024 * 1024 },
    )
    client = JSON.parse(stdout) as typeof client
  } finally {
    const used = process.cpuUsage(serviceCpu)
    const databaseNow = databaseCpu === undefined ? undefined : postgresCpuSeconds()
    cpuMs = {
      service: (used.user + used.system) / 1000,
      database: databaseNow === undefined ? undefined : (databaseNow - databaseCpu!) * 1000,
    }
    statements.stop()
    fs.rmSync(bodyFile)
    await new Promise((resolve) => server.close(resolve))
    await provider.close()
  }
  let searchHit = 0
  queries.forEach((q, i) => {
    const ids = truth.get(q)
    if (ids) searchHit += client.answers[i]!.items.filter((item) => ids.includes(item.id)).length
  })
  console.log(
    `POST /rag/search over HTTP at ${CHUNKS.toLocaleString('en')} chunks (ef_search ${chosen}, client in its own process, ${queries.length} requests after ${WARMUP} untimed): ` +
      `p50 ${percentile(client.times, 50).toFixed(1)} ms, p95 ${percentile(client.times, 95).toFixed(1)} ms, max ${Math.max(...client.times).toFixed(1)} ms, ` +
      `recall@10 ${(searchHit / (truth.size * 10)).toFixed(3)} (warm-up p50 ${percentile(client.warmupTimes, 50).toFixed(1)} ms; load ${load()})`,
  )
  const requests = WARMUP + queries.length
  console.log(
    `  CPU per request: the service's process ${(cpuMs.service / requests).toFixed(2)} ms` +
      (cpuMs.database === undefined
        ? ''
        : `, the PostgreSQL server's processes ${(cpuMs.database / requests).toFixed(2)} ms (when it runs on this machine)`),
  )
  console.log('  database time per request, by statement (top 6):')
  for (const [sql, { ms, calls }] of statements.top(6)) {
    console.log(`    ${(ms / requests).toFixed(2)} ms (${calls} calls in ${requests} requests): ${sql}`)
  }
}

// ── 2. Inserting into an indexed table vs building after ────────────────────────────────────────────────
if (run('load')) {
  const next = vectorStream(3)
  await em().execute('create table load_probe (id uuid primary key, embedding vector(1536) not null)')
  const probeRows = () =>
    Array.from({ length: LOAD_ROWS }, () => ({
      id: crypto.randomUUID(),
      embedding: vectorLiteral(next()),
    }))
  const insertProbe = async (rows: { id: string; embedding: string }[]) => {
    for (let i = 0; i < rows.length; i += 250) {
      await em().execute(
        `insert into load_probe select x.id, x.embedding::vector from unnest(?::uuid[], ?::text[]) as x(id, embedding)`,
        [
          `{${rows
            .slice(i, i + 250)
            .map((r) => r.id)
            .join(',')}}`,
          `{${rows
            .slice(i, i + 250)
            .map((r) => `"${r.embedding}"`)
            .join(',')}}`,
        ],
      )
    }
  }
  await insertProbe(probeRows())
  await em().execute('create index load_probe_idx on load_probe using hnsw (embedding vector_cosine_ops)')
  let t0 = performance.now()
  await insertProbe(probeRows())
  const withIndex = LOAD_ROWS / ((performance.now() - t0) / 1000)
  await em().execute('drop index load_probe_idx')
  t0 = performance.now()
  await insertProbe(probeRows())
  const plain = (performance.now() - t0) / 1000
  t0 = performance.now()
  await em().execute('create index load_probe_idx on load_probe using hnsw (embedding vector_cosine_ops)')
  const rebuild = (performance.now() - t0) / 1000
  console.log(
    `insert ${LOAD_ROWS} rows (batches of 250) into a table of ${LOAD_ROWS}: with the HNSW index ${withIndex.toFixed(0)} rows/s; ` +
      `without it ${(LOAD_ROWS / plain).toFixed(0)} rows/s, then building the index over all ${3 * LOAD_ROWS} rows ${rebuild.toFixed(1)} s (load ${load()})`,
  )
  await em().execute('drop table load_probe')
}

// ── 3. Indexing TERMS terms through the per-row stages ───────────────────────────────────────────────────
if (run('reindex')) {
  // Starts from an empty glossary (a reused RAG_BENCH_DIR loses its chunks: run `search` in it again after).
  await em().execute('delete from term_chunks')
  await em().execute('delete from term_revisions')
  await em().execute('delete from terms')
  const provider = await startInstantProvider(textVector)
  await updateRagConfig({
    input: { enabled: true, embeddingBaseUrl: provider.url, embeddingModel: 'bench-embed' },
    actorId: userId,
    audit: { actor: { userId, label: 'bench' } },
  })
  await em().execute('delete from rag_index_queue')
  await insertTerms(TERMS, 'Indexed Term')

  /** `GET /terms` (first page), each call ~10 ms of the database, timed at a user's pace (`sampleTimes`). */
  const listTermsTimes = (until: () => boolean) =>
    sampleTimes(async () => {
      const res = await handleApiRequest(
        new Request('http://internal/api/v1/terms?pageSize=20', { headers: auth }),
        { requestId: 'bench', ip: '127.0.0.1', isHttps: false },
      )
      await res.text()
    }, until)
  await listTermsTimes(forMs(3_000)) // untimed: the first calls compile the code and fill the caches
  const idle = await listTermsTimes(forMs(30_000))

  // Where the time goes: wall time per stage, and the embedded database's time per kind of statement (each
  // statement's first words), measured around every query the process sends.
  const { FLOW } = await import('../pipeline/flow.ts')
  const stageMs = new Map<string, number>()
  for (const stage of FLOW) {
    const original = stage.run.bind(stage)
    stage.run = async (row, settings) => {
      const t0 = performance.now()
      try {
        return await original(row, settings)
      } finally {
        stageMs.set(stage.name, (stageMs.get(stage.name) ?? 0) + performance.now() - t0)
      }
    }
  }
  const statements = timeStatements()

  const { enqueueIndexMany } = await import('../app/services/index-queue/enqueue.server.ts')
  const { selectSearchableSources } = await import('../app/services/search/store.server.ts')
  const { startRelay } = await import('../pipeline/relay.ts')
  const { bindIndexJobs } = await import('../pipeline/index-jobs.ts')
  const { InProcessTransport } = await import('../pipeline/jobs/in-process.ts')
  // Every term queued as ordinary work, as saves queue it (a full reindex is a run of its own: decision 028,
  // bench/full-reindex.bench.ts): this measures the per-row stages.
  await em().transactional(async (tx) =>
    enqueueIndexMany(
      tx,
      (await selectSearchableSources(tx)).terms.map((t) => ({
        sourceType: 'term' as const,
        sourceId: t.id,
        revision: t.revision,
      })),
    ),
  )
  const started = performance.now()
  const cpuStarted = process.cpuUsage()
  // The embedded default's worker: the relay over in-process stage jobs.
  const transport = new InProcessTransport()
  bindIndexJobs({ transport, holder: 'bench' })
  const loop = startRelay(transport, 'bench')
  let finished = false
  const busyTimesPromise = listTermsTimes(() => finished)
  let remaining = TERMS
  while (remaining > 0) {
    await new Promise((resolve) => setTimeout(resolve, 500))
    const [{ n }] = await em().execute<{ n: string }[]>(
      `select count(*) as n from rag_index_queue where status in ('queued', 'processing')`,
    )
    remaining = Number(n)
  }
  const seconds = (performance.now() - started) / 1000
  const cpu = process.cpuUsage(cpuStarted)
  finished = true
  await loop.stop()
  await transport.close()
  const busy = await busyTimesPromise
  statements.stop()
  const after = await listTermsTimes(forMs(30_000))
  const [{ chunks }] = await em().execute<{ chunks: string }[]>('select count(*) as chunks from term_chunks')
  console.log(
    `reindex of ${TERMS.toLocaleString('en')} terms: ${Number(chunks).toLocaleString('en')} chunks in ${seconds.toFixed(1)} s = ${(Number(chunks) / seconds).toFixed(0)} chunks/s (${(TERMS / seconds).toFixed(0)} terms/s; load ${load()}); ` +
      `this process's CPU ${((cpu.user + cpu.system) / 1000 / Number(chunks)).toFixed(1)} ms per chunk (less sensitive to the machine's load than the rate)`,
  )
  const stat = (times: number[]) =>
    `p95 ${percentile(times, 95).toFixed(1)} ms (p50 ${percentile(times, 50).toFixed(1)}, ${times.length} calls)`
  console.log(
    `GET /terms: idle before ${stat(idle)}; during the reindex ${stat(busy)}; idle after ${stat(after)}`,
  )
  const wall = seconds * 1000
  console.log(
    `stages (wall time, share of the reindex): ${[...stageMs]
      .map(([name, ms]) => `${name} ${(ms / 1000).toFixed(1)} s (${((100 * ms) / wall).toFixed(0)}%)`)
      .join(', ')}`,
  )
  console.log('database time by statement (top 8; the GET /terms calls included):')
  for (const [sql, { ms, calls }] of statements.top(8)) {
    console.log(
      `  ${(ms / 1000).toFixed(1)} s (${((100 * ms) / wall).toFixed(0)}%), ${calls} calls, ${(ms / calls).toFixed(2)} ms each: ${sql}`,
    )
  }

  await provider.close()
}

const { stopCompileWorker } = await import('../app/services/matching/compile-worker.ts')
await stopCompileWorker()
await closeDb()
await postgres?.drop()
