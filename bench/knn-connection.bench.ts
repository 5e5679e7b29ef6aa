/**
 * The HNSW search of one PostgreSQL connection over its life (issue 28): how fast the KNN statement is on a
 * fresh connection and once that connection has run a few hundred searches, each query new. A backend maps each
 * shared buffer into its own memory on first touch, so a fresh connection pays for it on the pages a search
 * visits; and an index larger than `shared_buffers` is read from the OS cache page by page. Run it against the
 * database `bench/rag-search.bench.ts search` loaded and kept, once with the server's `shared_buffers` as it is
 * and once with it larger than the index (README "Production", "Sizing the database for search"):
 *
 *   DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres RAG_BENCH_DB=ragbench \
 *     npx tsx bench/rag-search.bench.ts search          # loads 100,000 chunks once, keeps them
 *   DATABASE_URL=postgres://postgres@127.0.0.1:5432/ragbench npx tsx bench/knn-connection.bench.ts
 *
 * Prints, per pass of 200 queries on one connection: p50 and p95 of the KNN statement at ef_search 200 (the
 * API's), under the planner settings the search store sets.
 */
import pg from 'pg'
import { percentile } from './support.ts'

const url = process.env.DATABASE_URL
if (!url) throw new Error('Set DATABASE_URL to the database bench/rag-search.bench.ts loaded (RAG_BENCH_DB).')
const PASSES = Number(process.env.PASSES ?? 5)
const PER_PASS = 200

const client = new pg.Client({ connectionString: url })
await client.connect()
const [settings] = (
  await client.query<{ buffers: string; index: string }>(
    `select current_setting('shared_buffers') as buffers,
            pg_size_pretty(pg_relation_size('term_chunks_embedding_idx')) as index`,
  )
).rows
console.log(`shared_buffers ${settings!.buffers}, HNSW index ${settings!.index}`)

// Queries near stored chunks (a chunk's vector moved a little, normalised), each used once.
const { rows } = await client.query<{ e: string; model: string }>(
  `select embedding::text as e, model from term_chunks order by random() limit ${PASSES * PER_PASS}`,
)
const model = rows[0]!.model
const queries = rows.map((row) => {
  const v = (JSON.parse(row.e) as number[]).map((x) => x + (Math.random() - 0.5) * 0.03)
  const norm = Math.hypot(...v)
  return `[${v.map((x) => (x / norm).toFixed(7)).join(',')}]`
})

for (let pass = 0; pass < PASSES; pass++) {
  const times: number[] = []
  for (const query of queries.slice(pass * PER_PASS, (pass + 1) * PER_PASS)) {
    await client.query('begin')
    await client.query(
      `select set_config('hnsw.ef_search', '200', true), set_config('enable_seqscan', 'off', true),
              set_config('enable_bitmapscan', 'off', true), set_config('enable_sort', 'off', true),
              set_config('jit', 'off', true), set_config('hnsw.iterative_scan', 'relaxed_order', true)`,
    )
    const started = performance.now()
    await client.query(
      'select id from term_chunks where model = $2 order by embedding <=> $1::vector limit 50',
      [query, model],
    )
    times.push(performance.now() - started)
    await client.query('commit')
  }
  console.log(
    `pass ${pass + 1} (searches ${pass * PER_PASS + 1}–${(pass + 1) * PER_PASS} of this connection): ` +
      `p50 ${percentile(times, 50).toFixed(1)} ms, p95 ${percentile(times, 95).toFixed(1)} ms`,
  )
}
await client.end()
