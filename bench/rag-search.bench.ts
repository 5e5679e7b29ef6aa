/**
 * Search by meaning (issue 12, decision 016), on the embedded database:
 *
 * 1. Vector search at CHUNKS chunks (default 100,000; 1536-d, clustered non-uniform vectors: 300 topic
 *    centres, each chunk a centre plus noise): recall@10 of the HNSW search against an exact scan for several
 *    `hnsw.ef_search` values, and p50/p95 of `POST /rag/search` through the dispatcher with a provider on
 *    127.0.0.1 that answers at once.
 * 2. Loading: rows/s inserting into a table that has the HNSW index vs inserting without it and building
 *    the index after (LOAD_ROWS rows each).
 * 3. Indexing: chunks/s of a reindex of TERMS terms (default 10,000) through the in-process claim loop with
 *    the provider stand-in, and the p95 of `GET /terms` while it runs versus idle.
 *
 * Run: `npx tsx bench/rag-search.bench.ts` (CHUNKS=20000 TERMS=2000 for a quicker look).
 */
import crypto from 'node:crypto'
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { parseConfig, setConfig } from '../app/lib/config.server.ts'
import { openBenchDatabase } from './bench-db.ts'
import { benchEnv, percentile, prng } from './support.ts'

setConfig(parseConfig(benchEnv()))
const CHUNKS = Number(process.env.CHUNKS ?? 100_000)
const TERMS = Number(process.env.TERMS ?? 10_000)
const LOAD_ROWS = Number(process.env.LOAD_ROWS ?? 2_000)
const QUERIES = 200
const DIM = 1536

const { userId, auth } = await openBenchDatabase()
const { em, closeDb } = await import('../db/orm.ts')
const { handleApiRequest } = await import('../app/api/handler.server.ts')
const { updateRagConfig } = await import('../app/services/search/config.server.ts')
const { startStandIn } = await import('../tests/provider-stand-in.ts')

const rand = prng(12)
const gauss = () => Math.sqrt(-2 * Math.log(rand() + 1e-12)) * Math.cos(2 * Math.PI * rand())
const normalize = (v: number[]) => {
  const n = Math.sqrt(v.reduce((s, x) => s + x * x, 0)) || 1
  return v.map((x) => x / n)
}
const centres = Array.from({ length: 300 }, () => normalize(Array.from({ length: DIM }, gauss)))
/** A centre (chosen with a skew: some topics are much more common) plus noise. */
function realisticVector(): number[] {
  const c = centres[Math.floor(centres.length * rand() ** 2)]!
  return normalize(c.map((x) => x + gauss() * 0.03))
}
const literal = (v: number[]) => `[${v.map((x) => x.toFixed(6)).join(',')}]`

// ── Set-up: terms to hang chunks on, and an instant provider for query vectors ─────────────────────────
const queryVectors = new Map<string, number[]>()
const instant = http.createServer((req, res) => {
  let raw = ''
  req.on('data', (c) => (raw += c))
  req.on('end', () => {
    const input = JSON.parse(raw).input as string[]
    res.writeHead(200, { 'content-type': 'application/json' })
    res.end(
      JSON.stringify({
        data: input.map((t, index) => ({ index, embedding: queryVectors.get(t) ?? centres[0] })),
      }),
    )
  })
})
await new Promise<void>((resolve) => instant.listen(0, '127.0.0.1', resolve))
const instantUrl = `http://127.0.0.1:${(instant.address() as AddressInfo).port}/v1`
await updateRagConfig({
  input: { enabled: true, embeddingBaseUrl: instantUrl, embeddingModel: 'bench-embed', topK: 10 },
  actorId: userId,
})
const space = `alpha_compatible|${instantUrl}|bench-embed`

async function insertTerms(count: number, prefix: string): Promise<string[]> {
  const ids: string[] = []
  for (let start = 0; start < count; start += 1000) {
    const rows = Array.from({ length: Math.min(1000, count - start) }, (_, k) => {
      const i = start + k
      const id = crypto.randomUUID()
      ids.push(id)
      const name = `${prefix} ${i}`
      const content = {
        slug: `${prefix}-${i}`.toLowerCase(),
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
console.log(`loading ${CHUNKS.toLocaleString('en')} chunks…`)
const termIds = await insertTerms(Math.ceil(CHUNKS / 5), 'Vector Term')
await em().execute('drop index term_chunks_embedding_idx')
let loadStarted = performance.now()
for (let start = 0; start < CHUNKS; start += 500) {
  const n = Math.min(500, CHUNKS - start)
  const ids = Array.from({ length: n }, () => crypto.randomUUID())
  await em().execute(
    `insert into term_chunks (id, term_id, revision, source_field, chunk_index, content, content_hash, model, embedding)
     select x.id, x.term_id, 1, 'definition', x.k, 'chunk', md5(x.id::text), ?, x.embedding::vector
       from unnest(?::uuid[], ?::uuid[], ?::integer[], ?::text[]) as x(id, term_id, k, embedding)`,
    [
      space,
      `{${ids.join(',')}}`,
      `{${ids.map((_, k) => termIds[Math.floor((start + k) / 5)]).join(',')}}`,
      `{${ids.map((_, k) => (start + k) % 5).join(',')}}`,
      `{${ids.map(() => `"${literal(realisticVector())}"`).join(',')}}`,
    ],
  )
  if ((start / 500) % 20 === 0) console.log(`  ${start + n} rows`)
}
const loadSeconds = (performance.now() - loadStarted) / 1000
loadStarted = performance.now()
// The HNSW graph of 100,000 × 1536-d vectors (~650 MB) must fit in maintenance_work_mem, or the build takes
// pgvector's much slower on-disk path.
await em().execute(`set maintenance_work_mem = '${process.env.BUILD_MEMORY ?? '1GB'}'`)
await em().execute(
  'create index term_chunks_embedding_idx on term_chunks using hnsw (embedding vector_cosine_ops) with (m = 16, ef_construction = 64)',
)
const buildSeconds = (performance.now() - loadStarted) / 1000
console.log(
  `bulk load without index: ${(CHUNKS / loadSeconds).toFixed(0)} rows/s; HNSW build after it: ${buildSeconds.toFixed(1)} s`,
)

const queries = Array.from({ length: QUERIES }, (_, i) => {
  const text = `query ${i}`
  queryVectors.set(text, realisticVector())
  return text
})

async function exactTop10(v: number[]): Promise<string[]> {
  return em().transactional(async (tx) => {
    await tx.execute('set local enable_indexscan = off', [], 'run')
    const rows = await tx.execute<{ id: string }[]>(
      'select id from term_chunks order by embedding <=> ?::vector limit 10',
      [literal(v)],
    )
    return rows.map((r) => r.id)
  })
}
const truth = new Map<string, string[]>()
for (const q of queries.slice(0, 50)) truth.set(q, await exactTop10(queryVectors.get(q)!))

for (const ef of [40, 100, 200]) {
  let hit = 0
  const times: number[] = []
  for (const [q, ids] of truth) {
    const started = performance.now()
    const rows = await em().transactional(async (tx) => {
      await tx.execute(`set local hnsw.ef_search = ${ef}`, [], 'run')
      await tx.execute('set local hnsw.iterative_scan = relaxed_order', [], 'run')
      return tx.execute<{ id: string }[]>(
        `select c.id from term_chunks c join terms t on t.id = c.term_id and t.revision = c.revision
          where t.deleted_at is null and t.status <> 'merged' and c.model = ?
          order by c.embedding <=> ?::vector limit 10`,
        [space, literal(queryVectors.get(q)!)],
      )
    })
    times.push(performance.now() - started)
    hit += rows.filter((r) => ids.includes(r.id)).length
  }
  console.log(
    `ef_search ${ef}: recall@10 ${(hit / (truth.size * 10)).toFixed(3)}, SQL p50 ${percentile(times, 50).toFixed(1)} ms, p95 ${percentile(times, 95).toFixed(1)} ms`,
  )
}

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
  `POST /rag/search at ${CHUNKS.toLocaleString('en')} chunks (EF_SEARCH of the store): p50 ${percentile(searchTimes, 50).toFixed(1)} ms, p95 ${percentile(searchTimes, 95).toFixed(1)} ms, recall@10 ${(searchHit / (truth.size * 10)).toFixed(3)}`,
)

// ── 2. Inserting into an indexed table vs building after ────────────────────────────────────────────────
await em().execute('create table load_probe (id uuid primary key, embedding vector(1536) not null)')
const probeRows = () =>
  Array.from({ length: LOAD_ROWS }, () => ({
    id: crypto.randomUUID(),
    embedding: literal(realisticVector()),
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
    `without it ${(LOAD_ROWS / plain).toFixed(0)} rows/s, then building the index over all ${3 * LOAD_ROWS} rows ${rebuild.toFixed(1)} s`,
)
await em().execute('drop table load_probe')

// ── 3. Indexing TERMS terms through the in-process claim loop ───────────────────────────────────────────
await em().execute('delete from term_chunks')
await em().execute('delete from term_revisions')
await em().execute('delete from terms')
const standIn = await startStandIn()
await updateRagConfig({
  input: { embeddingBaseUrl: standIn.url, embeddingModel: 'text-embed-small' },
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
  `GET /terms p95: idle ${percentile(idle, 95).toFixed(1)} ms (p50 ${percentile(idle, 50).toFixed(1)}), during the reindex ${percentile(busy, 95).toFixed(1)} ms (p50 ${percentile(busy, 50).toFixed(1)}), ${busy.length} calls`,
)

await standIn.close()
instant.close()
const { stopCompileWorker } = await import('../app/services/matching/compile-worker.ts')
await stopCompileWorker()
await closeDb()
