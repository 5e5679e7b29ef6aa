/**
 * Search by meaning (issue 12, decision 016), on the embedded database:
 *
 * 1. `search`: vector search at CHUNKS chunks (default 100,000; 1536-d, clustered non-uniform vectors, see
 *    rag-data.ts): loading them (binary COPY) and building the HNSW index after the load; recall@10 against an
 *    exact scan and p50/p95 of the search store's statement for several `hnsw.ef_search` values; p50/p95 and
 *    recall of `POST /rag/search` through the dispatcher with a provider on 127.0.0.1 that answers at once.
 * 2. `load`: rows/s inserting into a table that has the HNSW index vs inserting without it and building the
 *    index after (LOAD_ROWS rows each).
 * 3. `reindex`: chunks/s of a reindex of TERMS terms (default 10,000) through the in-process claim loop with
 *    the provider stand-in, and the p95 of `GET /terms` while it runs versus idle.
 *
 * Run: `npx tsx bench/rag-search.bench.ts [search] [load] [reindex]` (all three without arguments;
 * CHUNKS=20000 TERMS=2000 for a quicker look). RAG_BENCH_DIR=/some/dir keeps the database on disk there (as
 * `glossary start` does) and reuses its loaded chunks and index on the next run of `search`.
 */
import crypto from 'node:crypto'
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import os from 'node:os'
import { parseConfig, setConfig } from '../app/lib/config.server.ts'
import { openBenchDatabase } from './bench-db.ts'
import { copyTermChunks, vectorLiteral, vectorStream, TOPICS } from './rag-data.ts'
import { benchEnv, percentile } from './support.ts'

setConfig(parseConfig(benchEnv()))
const CHUNKS = Number(process.env.CHUNKS ?? 100_000)
const TERMS = Number(process.env.TERMS ?? 10_000)
const LOAD_ROWS = Number(process.env.LOAD_ROWS ?? 2_000)
const QUERIES = 200
const TRUTH = 50
const parts = process.argv.slice(2)
const run = (part: string) => parts.length === 0 || parts.includes(part)
const load = () =>
  os
    .loadavg()
    .map((x) => x.toFixed(1))
    .join(' / ')

const { userId, auth } = await openBenchDatabase({ dataDir: process.env.RAG_BENCH_DIR })
const { em, getDb, closeDb } = await import('../db/orm.ts')
const { handleApiRequest } = await import('../app/api/handler.server.ts')
const { updateRagConfig } = await import('../app/services/search/config.server.ts')
const { HNSW_SEARCH, searchTermChunks } = await import('../app/services/search/store.server.ts')
const { startStandIn } = await import('../tests/provider-stand-in.ts')
console.log(`cpus ${os.cpus().length}, load average at start ${load()}`)

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

// ── 1. Vector search at CHUNKS chunks ────────────────────────────────────────────────────────────────────
if (run('search')) {
  // An instant provider: answers each query text with its prepared vector.
  const queryVectors = new Map<string, number[]>()
  const instant = http.createServer((req, res) => {
    let raw = ''
    req.on('data', (c) => (raw += c))
    req.on('end', () => {
      const input = JSON.parse(raw).input as string[]
      res.writeHead(200, { 'content-type': 'application/json' })
      res.end(
        JSON.stringify({
          data: input.map((t, index) => ({ index, embedding: queryVectors.get(t) ?? TOPICS[0] })),
        }),
      )
    })
  })
  // A reused database keeps its chunks in the space of the provider's address: listen on the same port.
  const [stored] = await em().execute<{ url: string }[]>(`select embedding_base_url as url from rag_config`)
  const storedPort = Number(/^http:\/\/127\.0\.0\.1:(\d+)\/v1$/.exec(stored?.url ?? '')?.[1] ?? 0)
  await new Promise<void>((resolve) => instant.listen(storedPort, '127.0.0.1', resolve))
  const instantUrl = `http://127.0.0.1:${(instant.address() as AddressInfo).port}/v1`
  await updateRagConfig({
    input: { enabled: true, embeddingBaseUrl: instantUrl, embeddingModel: 'bench-embed', topK: 10 },
    actorId: userId,
  })
  await em().execute('delete from rag_index_queue')
  const space = `alpha_compatible|${instantUrl}|bench-embed`

  const [{ n: present }] = await em().execute<{ n: string }[]>(
    'select count(*) as n from term_chunks where model = ?',
    [space],
  )
  if (Number(present) === CHUNKS) {
    console.log(
      `reusing the ${CHUNKS.toLocaleString('en')} chunks and the index in ${process.env.RAG_BENCH_DIR}`,
    )
  } else {
    await em().execute('delete from term_chunks')
    await em().execute('delete from term_revisions')
    await em().execute('delete from terms')
    console.log(`loading ${CHUNKS.toLocaleString('en')} chunks…`)
    const termIds = await insertTerms(Math.ceil(CHUNKS / 5), 'Vector Term')
    await em().execute('drop index term_chunks_embedding_idx')
    const next = vectorStream(1)
    let started = performance.now()
    for (let start = 0; start < CHUNKS; start += 1000) {
      const batch = Array.from({ length: Math.min(1000, CHUNKS - start) }, (_, k) => ({
        termId: termIds[Math.floor((start + k) / 5)]!,
        chunkIndex: (start + k) % 5,
        vector: next(),
      }))
      await copyTermChunks(getDb().pglite!, space, batch)
    }
    const loadSeconds = (performance.now() - started) / 1000
    started = performance.now()
    // The HNSW graph of 100,000 × 1536-d vectors (~800 MB) must fit in maintenance_work_mem, or the build
    // takes pgvector's much slower on-disk path.
    await em().execute(`set maintenance_work_mem = '${process.env.BUILD_MEMORY ?? '1GB'}'`)
    await em().execute(
      'create index term_chunks_embedding_idx on term_chunks using hnsw (embedding vector_cosine_ops) with (m = 16, ef_construction = 64)',
    )
    await em().execute('analyze')
    const buildSeconds = (performance.now() - started) / 1000
    console.log(
      `bulk load (binary COPY, no index): ${(CHUNKS / loadSeconds).toFixed(0)} rows/s; HNSW build after it: ${buildSeconds.toFixed(1)} s (load ${load()})`,
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

  // The search store's own statement, for several ef_search values (each run twice: the second is timed).
  const chosen = HNSW_SEARCH.efSearch
  for (const ef of (process.env.EF ?? '40,64,100,200').split(',').map(Number)) {
    HNSW_SEARCH.efSearch = ef
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
      `ef_search ${ef}: recall@10 ${(hit / (truth.size * 10)).toFixed(3)}, SQL p50 ${percentile(times, 50).toFixed(1)} ms, p95 ${percentile(times, 95).toFixed(1)} ms (load ${load()})`,
    )
  }
  HNSW_SEARCH.efSearch = chosen

  const searchTimes: number[] = []
  let searchHit = 0
  for (let round = 0; round < 2; round++) {
    for (const q of queries) {
      const started = performance.now()
      const res = await handleApiRequest(
        new Request('http://internal/api/v1/rag/search', {
          method: 'POST',
          headers: auth,
          body: JSON.stringify({ query: q }),
        }),
        { requestId: 'bench', ip: '127.0.0.1', isHttps: false },
      )
      const body = (await res.json()) as { items: { id: string }[] }
      if (round === 1) searchTimes.push(performance.now() - started)
      if (round === 1 && truth.has(q))
        searchHit += body.items.filter((i) => truth.get(q)!.includes(i.id)).length
    }
  }
  console.log(
    `POST /rag/search at ${CHUNKS.toLocaleString('en')} chunks (ef_search ${chosen}): p50 ${percentile(searchTimes, 50).toFixed(1)} ms, p95 ${percentile(searchTimes, 95).toFixed(1)} ms, recall@10 ${(searchHit / (truth.size * 10)).toFixed(3)} (load ${load()})`,
  )
  instant.close()
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

// ── 3. Indexing TERMS terms through the in-process claim loop ───────────────────────────────────────────
if (run('reindex')) {
  // Starts from an empty glossary (a reused RAG_BENCH_DIR loses its chunks: run `search` in it again after).
  await em().execute('delete from term_chunks')
  await em().execute('delete from term_revisions')
  await em().execute('delete from terms')
  const standIn = await startStandIn()
  await updateRagConfig({
    input: { enabled: true, embeddingBaseUrl: standIn.url, embeddingModel: 'text-embed-small' },
    actorId: userId,
  })
  await em().execute('delete from rag_index_queue')
  await insertTerms(TERMS, 'Indexed Term')

  async function listTermsTimes(durationMs: number): Promise<number[]> {
    const times: number[] = []
    const end = performance.now() + durationMs
    while (performance.now() < end) {
      const started = performance.now()
      const res = await handleApiRequest(
        new Request('http://internal/api/v1/terms?pageSize=20', { headers: auth }),
        {
          requestId: 'bench',
          ip: '127.0.0.1',
          isHttps: false,
        },
      )
      await res.text()
      times.push(performance.now() - started)
      await new Promise((resolve) => setTimeout(resolve, 20))
    }
    return times
  }
  const idle = await listTermsTimes(5_000)

  const { reindexAll } = await import('../app/services/search/config.server.ts')
  const { claimLoop } = await import('../pipeline/index-loop.ts')
  await reindexAll()
  const started = performance.now()
  const loop = claimLoop({ idleMs: 100 })
  const busyTimesPromise = listTermsTimes(15_000)
  let remaining = TERMS
  while (remaining > 0) {
    await new Promise((resolve) => setTimeout(resolve, 500))
    const [{ n }] = await em().execute<{ n: string }[]>(
      `select count(*) as n from rag_index_queue where status in ('queued', 'processing')`,
    )
    remaining = Number(n)
  }
  const seconds = (performance.now() - started) / 1000
  await loop.stop()
  const busy = await busyTimesPromise
  const [{ chunks }] = await em().execute<{ chunks: string }[]>('select count(*) as chunks from term_chunks')
  console.log(
    `reindex of ${TERMS.toLocaleString('en')} terms: ${Number(chunks).toLocaleString('en')} chunks in ${seconds.toFixed(1)} s = ${(Number(chunks) / seconds).toFixed(0)} chunks/s (${(TERMS / seconds).toFixed(0)} terms/s)`,
  )
  console.log(
    `GET /terms p95: idle ${percentile(idle, 95).toFixed(1)} ms (p50 ${percentile(idle, 50).toFixed(1)}), during the reindex ${percentile(busy, 95).toFixed(1)} ms (p50 ${percentile(busy, 50).toFixed(1)}), ${busy.length} calls (load ${load()})`,
  )

  await standIn.close()
}

const { stopCompileWorker } = await import('../app/services/matching/compile-worker.ts')
await stopCompileWorker()
await closeDb()
