/**
 * The chatbot's own overhead (issue 29, decision 029): `POST /api/v1/chat` with an instant provider at TERMS
 * terms (default 10,000) and CHUNKS chunks (default 100,000: 90 % term chunks, 5 % each wiki and meeting chunks,
 * dense 1536-d vectors, HNSW indexes built after the load), on the embedded database or, with DATABASE_URL, on
 * PostgreSQL (a throwaway database of its own on that server, as bench/rag-search.bench.ts does).
 *
 * Measured from a client in its own process (bench/chat-client.mjs), one question at a time:
 * - `json`: the time to the answer's last byte minus the provider's time (the request's AI run rows: embedding and
 *   LLM latency, by its trace id) = our overhead: settings, rate limit, storing the question, retrieval (matcher,
 *   keyword search, three KNN searches, evidence rows), the prompt, storing the answer. Goal p95 ≤ 50 ms.
 * - `stream`: the time to the first byte of the server-sent events (the `meta` event, sent just before the model
 *   is asked). Goal p95 ≤ 60 ms.
 * The provider answers at once: dense query vectors (`textVector`), and a short answer citing G1 (streamed in
 * six pieces when asked).
 *
 * Run: `npx tsx bench/chat.bench.ts [json] [stream]` (both without arguments; QUESTIONS=200 by default;
 * CHUNKS=20000 TERMS=2000 for a quicker look). PostgreSQL:
 * `DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres npx tsx bench/chat.bench.ts`.
 */
import { execFile } from 'node:child_process'
import fs from 'node:fs'
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import os from 'node:os'
import path from 'node:path'
import { promisify } from 'node:util'
import { parseConfig, setConfig } from '../app/lib/config.server.ts'
import { createBenchPostgres, insertBenchTerms, openBenchDatabase } from './bench-db.ts'
import { loadTermChunks, textVector, vectorStream } from './rag-data.ts'
import { benchEnv, benchParts, loadAverage, percentile, prng, syntheticWords } from './support.ts'

setConfig(parseConfig(benchEnv({ GLOSSARY_RATE_CHAT_PER_MINUTE: '100000000' })))
const TERMS = Number(process.env.TERMS ?? 10_000)
const CHUNKS = Number(process.env.CHUNKS ?? 100_000)
const QUESTIONS = Number(process.env.QUESTIONS ?? 200)
const WARMUP = 20
const run = benchParts()

const postgres = process.env.DATABASE_URL ? await createBenchPostgres(process.env.DATABASE_URL) : undefined
const { userId } = await openBenchDatabase({ databaseUrl: postgres?.url })
const { em, getDb, closeDb } = await import('../db/orm.ts')
const { createHttpApp } = await import('../app/server/http.server.ts')
const { createSession, SESSION_COOKIE } = await import('../app/services/auth/sessions.server.ts')
const { updateRagConfig } = await import('../app/services/search/rag-config.server.ts')
const { EVIDENCE_SEARCH } = await import('../app/services/search/retrieval.server.ts')
const { updateAiProviderSettings } = await import('../app/services/ai/ai-provider.server.ts')
console.log(
  `${postgres ? `PostgreSQL (database ${postgres.name})` : 'embedded PGlite'}; cpus ${os.cpus().length}, load average at start ${loadAverage()}`,
)

/** An instant provider: `POST /embeddings` (dense vectors) and `POST /chat/completions` (whole or streamed). */
async function startInstantChatProvider() {
  const answer = 'The glossary defines it so [G1].'
  const server = http.createServer((req, res) => {
    let raw = ''
    req.on('data', (c) => (raw += c))
    req.on('end', () => {
      const body = JSON.parse(raw) as { input?: string[]; stream?: boolean }
      if (req.url!.endsWith('/embeddings')) {
        res.writeHead(200, { 'content-type': 'application/json' })
        res.end(
          JSON.stringify({ data: body.input!.map((t, index) => ({ index, embedding: textVector(t) })) }),
        )
        return
      }
      const usage = { prompt_tokens: 100, completion_tokens: 8, total_tokens: 108 }
      if (!body.stream) {
        res.writeHead(200, { 'content-type': 'application/json' })
        res.end(JSON.stringify({ choices: [{ message: { role: 'assistant', content: answer } }], usage }))
        return
      }
      res.writeHead(200, { 'content-type': 'text/event-stream' })
      const pieces = answer.match(/\s*\S+/g)!
      for (const piece of pieces) {
        res.write(
          `data: ${JSON.stringify({ choices: [{ delta: { content: piece }, finish_reason: null }] })}\n\n`,
        )
      }
      res.write(`data: ${JSON.stringify({ choices: [{ delta: {}, finish_reason: 'stop' }], usage })}\n\n`)
      res.end('data: [DONE]\n\n')
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
    close: () => new Promise((resolve) => server.close(resolve)),
  }
}

const provider = await startInstantChatProvider()
await updateRagConfig({
  input: {
    enabled: true,
    chatEnabled: true,
    embeddingBaseUrl: provider.url,
    embeddingModel: 'bench-embed',
    topK: 10,
  },
  actorId: userId,
  audit: { actor: { userId, label: 'bench' } },
})
await updateAiProviderSettings({
  input: { provider: 'alpha_compatible', baseUrl: provider.url, model: 'bench-chat' },
  actorId: userId,
  audit: { actor: { userId, label: 'bench' } },
})
const space = `alpha_compatible|${provider.url}|bench-embed`

// ── The data: terms with names and notations, chunks of terms, wiki pages and meetings ─────────────────────
const words = syntheticWords(prng(29))
const names: string[] = []
console.log(`loading ${TERMS.toLocaleString('en')} terms and ${CHUNKS.toLocaleString('en')} chunks…`)
const started = performance.now()
// One call: the bench writer numbers the slugs `t-0`, `t-1`, … per call.
await insertBenchTerms(
  Array.from({ length: TERMS }, (_, i) => {
    const name = `${words.enWord(3)}${i}`
    names.push(name)
    return {
      name,
      notations: [{ text: `${words.enWord(4)}${i}`, kind: 'admitted' as const, lang: null }],
      definition: `Definition of ${name}: ${words.enWord(3)} ${words.enWord(2)} ${words.enWord(4)} of the ledger.`,
    }
  }),
  userId,
)
await em().execute('delete from rag_index_queue')
const termIds = (await em().execute<{ id: string }[]>('select id from terms order by slug')).map((r) => r.id)
for (const table of ['term_chunks', 'wiki_chunks', 'meeting_chunks'])
  await em().execute(`drop index if exists ${table}_embedding_idx`)
const termChunks = Math.round(CHUNKS * 0.9)
const perTerm = Math.ceil(termChunks / termIds.length)
const next = vectorStream(1)
for (let start = 0; start < termChunks; start += 1000) {
  await loadTermChunks(
    space,
    Array.from({ length: Math.min(1000, termChunks - start) }, (_, k) => ({
      termId: termIds[Math.floor((start + k) / perTerm)]!,
      chunkIndex: (start + k) % perTerm,
      vector: next(),
    })),
  )
}
// Wiki pages and meetings, 5 chunks each, their vectors copied from term chunks inside the database.
const sideChunks = Math.round(CHUNKS * 0.05)
const sources = Math.ceil(sideChunks / 5)
await em().execute(
  `insert into wiki_pages (id, slug, title, content, status)
   select gen_random_uuid(), 'page-' || g, 'Ledger page ' || g, repeat('The ledger closes at night. ', 40), 'published'
     from generate_series(1, ?) g`,
  [sources],
)
await em().execute(
  `insert into meetings (id, title, meeting_date, content, status)
   select gen_random_uuid(), 'Ledger meeting ' || g, now() - make_interval(days => g), repeat('We discussed the ledger. ', 40), 'active'
     from generate_series(1, ?) g`,
  [sources],
)
for (const [table, owner, from] of [
  ['wiki_chunks', 'page_id', 'wiki_pages'],
  ['meeting_chunks', 'meeting_id', 'meetings'],
] as const) {
  await em().execute(
    `insert into ${table} (id, ${owner}, revision, chunk_index, start_offset, end_offset, content, content_hash, model, embedding)
     select gen_random_uuid(), s.id, 1, k, k * 100, k * 100 + 100, 'The ledger closes at night.', md5(random()::text), ?,
            (select embedding from term_chunks offset (s.n * 5 + k) % ? limit 1)
       from (select id, row_number() over (order by id) as n from ${from}) s, generate_series(0, 4) k`,
    [space, termChunks],
  )
}
// The embedded engine's tables have no HNSW index (decision 035).
if (postgres) {
  await em().transactional(async (tx) => {
    await tx.execute(`set local maintenance_work_mem = '${process.env.BUILD_MEMORY ?? '1GB'}'`, [], 'run')
    for (const table of ['term_chunks', 'wiki_chunks', 'meeting_chunks']) {
      await tx.execute(
        `create index ${table}_embedding_idx on ${table} using hnsw (embedding vector_cosine_ops) with (m = 16, ef_construction = 64)`,
        [],
        'run',
      )
    }
  })
}
await em().execute('analyze')
console.log(
  `loaded and indexed in ${((performance.now() - started) / 1000).toFixed(0)} s (load ${loadAverage()})`,
)

// ── The questions, asked over HTTP from a client process ───────────────────────────────────────────────────
const { token } = await createSession(userId)
const headers = { cookie: `${SESSION_COOKIE}=${token}`, origin: 'http://localhost:3000' }
const server = createHttpApp().listen(0, '127.0.0.1')
await new Promise<void>((resolve) => server.once('listening', resolve))
const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v1/chat`
const rand = prng(7)
/** "What is X?" for a random term, every other one, else a question naming none (keyword and vector only). */
const question = (i: number) =>
  i % 2 === 0
    ? `What is ${names[Math.floor(rand() * names.length)]}?`
    : `How does the nightly ${words.enWord(3)} close the ledger ${i}?`

interface Result {
  firstByte: number
  total: number
  traceId: string
  searchMode: string
}

async function ask(stream: boolean): Promise<Result[]> {
  const bodyFile = path.join(os.tmpdir(), `chat-bench-${process.pid}.ndjson`)
  const bodies = Array.from({ length: WARMUP + QUESTIONS }, (_, i) =>
    JSON.stringify({ message: question(i) }),
  )
  fs.writeFileSync(bodyFile, bodies.join('\n'))
  try {
    const { stdout } = await promisify(execFile)(
      process.execPath,
      [
        path.join(import.meta.dirname, 'chat-client.mjs'),
        url,
        JSON.stringify(headers),
        bodyFile,
        '50',
        String(WARMUP),
        stream ? '1' : '0',
      ],
      { maxBuffer: 64 * 1024 * 1024 },
    )
    return JSON.parse(stdout) as Result[]
  } finally {
    fs.rmSync(bodyFile, { force: true })
  }
}

/** The provider's time of each request: the latency of its AI run rows (embedding, reranker, LLM). */
async function providerMs(results: readonly Result[]): Promise<Map<string, number>> {
  const rows = await em().execute<{ trace_id: string; ms: string }[]>(
    `select trace_id, sum(latency_ms) as ms from ai_runs where trace_id = any(?::text[]) group by trace_id`,
    [`{${results.map((r) => r.traceId).join(',')}}`],
  )
  return new Map(rows.map((r) => [r.trace_id, Number(r.ms)]))
}

/**
 * The database's time per kind of statement (its first words) while `work` runs, on the embedded engine (around
 * PGlite's `query`): where a request's time goes. Printed per question with PROFILE=1.
 */
async function profiled<T>(work: () => Promise<T>, questions: number): Promise<T> {
  const pglite = getDb().pglite
  if (!process.env.PROFILE || !pglite) return work()
  const stats = new Map<string, { ms: number; calls: number }>()
  const query = pglite.query.bind(pglite)
  pglite.query = (async (sql: string, ...rest: unknown[]) => {
    const t0 = performance.now()
    try {
      return await (query as (...a: unknown[]) => Promise<unknown>)(sql, ...rest)
    } finally {
      const key = sql.replace(/\s+/g, ' ').trim().slice(0, 90)
      const entry = stats.get(key) ?? { ms: 0, calls: 0 }
      entry.ms += performance.now() - t0
      entry.calls++
      stats.set(key, entry)
    }
  }) as typeof pglite.query
  try {
    return await work()
  } finally {
    pglite.query = query
    const total = [...stats.values()].reduce((n, e) => n + e.ms, 0)
    console.log(`  database time per question: ${(total / questions).toFixed(1)} ms; the largest:`)
    for (const [sql, e] of [...stats].sort((a, b) => b[1].ms - a[1].ms).slice(0, 12)) {
      console.log(`    ${(e.ms / questions).toFixed(2)} ms, ${(e.calls / questions).toFixed(1)}×  ${sql}`)
    }
  }
}

const fmt = (values: number[]) =>
  `p50 ${percentile(values, 50).toFixed(1)} ms, p95 ${percentile(values, 95).toFixed(1)} ms, max ${Math.max(...values).toFixed(1)} ms`

try {
  const chosen = EVIDENCE_SEARCH.efSearch
  // CHAT_EF=40,200 sweeps the evidence searches' ef_search (the JSON part once per value).
  for (const ef of (process.env.CHAT_EF ?? String(chosen)).split(',').map(Number)) {
    if (!run('json')) break
    EVIDENCE_SEARCH.efSearch = ef
    console.log(`evidence searches at ef_search ${ef}:`)
    const results = await profiled(() => ask(false), WARMUP + QUESTIONS)
    const provided = await providerMs(results)
    const overhead = results.map((r) => r.total - (provided.get(r.traceId) ?? 0))
    const modes = results.reduce<Record<string, number>>(
      (n, r) => ({ ...n, [r.searchMode]: (n[r.searchMode] ?? 0) + 1 }),
      {},
    )
    console.log(`POST /chat (JSON), ${results.length} questions, modes ${JSON.stringify(modes)}`)
    console.log(`  total:    ${fmt(results.map((r) => r.total))}`)
    console.log(`  provider: ${fmt(results.map((r) => provided.get(r.traceId) ?? 0))}`)
    console.log(`  overhead: ${fmt(overhead)}   (goal p95 ≤ 50 ms; load ${loadAverage()})`)
  }
  EVIDENCE_SEARCH.efSearch = chosen
  if (run('stream')) {
    const results = await ask(true)
    const provided = await providerMs(results)
    console.log(`POST /chat (text/event-stream), ${results.length} questions`)
    console.log(`  first byte: ${fmt(results.map((r) => r.firstByte))}   (goal p95 ≤ 60 ms)`)
    console.log(`  total:      ${fmt(results.map((r) => r.total))}`)
    console.log(
      `  overhead:   ${fmt(results.map((r) => r.total - (provided.get(r.traceId) ?? 0)))}   (load ${loadAverage()})`,
    )
  }
} finally {
  // Kept-alive connections (the client's, ours to the provider) would hold both servers open.
  server.closeAllConnections()
  server.close()
  await closeDb()
  await postgres?.drop()
  process.exit(process.exitCode ?? 0)
}
