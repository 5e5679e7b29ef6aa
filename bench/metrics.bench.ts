/**
 * `/metrics` scrape benchmark (issue 31, "Figures for your note"):
 * `npx tsx bench/metrics.bench.ts [--terms N] [--scrapes N] [--ready-per-term N]`
 *
 * Loads TERMS (10,000) terms (each queued by its save), READY_PER_TERM (3) finished `ready` queue rows per term (the queue's history: ready
 * rows are never deleted, and the scrape counts them), a few hundred rows waiting (200 queued, 50 processing,
 * 50 failed) and three live worker heartbeats; serves 1,000 API requests over 50 term ids so the HTTP families
 * hold real series; then starts the real HTTP app on 127.0.0.1 and times SCRAPES (200) sequential
 * `GET /metrics` after 10 untimed ones, printing p50/p95/p99, the answer's size, the database reads alone, and
 * what the per-request hook (the route label and two metric updates) costs. Embedded PGlite in memory by
 * default; with `DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres` on PostgreSQL, in a throwaway
 * database on that server (bench-db.ts). No thresholds: the figures go to the release note.
 */
import type { AddressInfo } from 'node:net'
import type { ServerResponse } from 'node:http'
import os from 'node:os'
import { parseConfig, setConfig } from '../app/lib/config.server.ts'
import { createBenchPostgres, insertBenchTerms, openBenchDatabase } from './bench-db.ts'
import { benchEnv, loadAverage, percentile, prng, syntheticTerm, syntheticWords } from './support.ts'

const args = process.argv.slice(2)
const arg = (name: string, fallback: number) => {
  const at = args.indexOf(name)
  return at >= 0 ? Number(args[at + 1]) || fallback : fallback
}
const TERMS = arg('--terms', 10_000)
const SCRAPES = arg('--scrapes', 200)
const READY_PER_TERM = arg('--ready-per-term', 3)
const DATABASE_URL = process.env.DATABASE_URL

setConfig(parseConfig(benchEnv({ GLOSSARY_DATA_DIR: os.tmpdir() })))

function summary(label: string, times: number[]): string {
  const f = (p: number) => percentile(times, p).toFixed(2)
  return `${label}: p50 ${f(50)} ms, p95 ${f(95)} ms, p99 ${f(99)} ms (n=${times.length})`
}

async function main(): Promise<void> {
  const { closeDb, em } = await import('../db/orm.ts')
  const { createHttpApp } = await import('../app/server/http.server.ts')
  const { routeLabeler } = await import('../app/server/route-label.server.ts')
  const { observeHttpRequest, registry } = await import('../app/lib/metrics.server.ts')
  const { beat } = await import('../app/services/index-queue/store.server.ts')

  const postgres = DATABASE_URL ? await createBenchPostgres(DATABASE_URL) : undefined
  const { userId, auth } = await openBenchDatabase(postgres ? { databaseUrl: postgres.url } : {})
  const engine = postgres ? `PostgreSQL (${postgres.name})` : 'embedded PGlite (in memory)'
  const server = createHttpApp().listen(0, '127.0.0.1')
  try {
    const loadStarted = performance.now()
    const words = syntheticWords(prng(31))
    await insertBenchTerms(
      Array.from({ length: TERMS }, (_, i) => syntheticTerm(i, words)),
      userId,
    )
    const insertRows = (status: string, sql: string) =>
      em().execute(
        `insert into rag_index_queue (id, source_type, source_id, revision, status, action, attempts, created_at, updated_at, finished_at)
         select gen_random_uuid(), 'term', t.id, 1, ?, 'index', 1, now() - interval '1 day', now(), now() ${sql}`,
        [status],
        'run',
      )
    // Saving a term queued it: all but 200 of those rows are finished, as after an indexing pass.
    await em().execute(
      `update rag_index_queue set status = 'ready', attempts = 1, finished_at = now()
        where status = 'queued' and source_id not in (select id from terms order by id limit 200)`,
    )
    await insertRows('ready', `from terms t cross join generate_series(2, ${READY_PER_TERM})`)
    await insertRows('processing', 'from (select id from terms order by id offset 200 limit 50) t')
    await insertRows('failed', 'from (select id from terms order by id offset 250 limit 50) t')
    if (postgres) await em().execute('analyze rag_index_queue')
    for (const id of ['bench-worker-a', 'bench-worker-b', 'bench-worker-c']) await beat(em(), id, 'bullmq')
    const loadMs = performance.now() - loadStarted
    console.error(`loaded in ${(loadMs / 1000).toFixed(1)} s`)

    if (!server.listening) await new Promise<void>((resolve) => server.once('listening', resolve))
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
    const ids = await em().execute<{ id: string }[]>('select id from terms order by slug limit 50')
    for (let i = 0; i < 1_000; i++) {
      const res = await fetch(`${base}/api/v1/terms/${ids[i % ids.length]!.id}`, {
        headers: auth,
        signal: AbortSignal.timeout(30_000),
      })
      await res.arrayBuffer()
      if (res.status !== 200) throw new Error(`GET /api/v1/terms/{id} answered ${res.status}`)
    }

    console.error('API requests served')
    const scrape = async () => {
      const res = await fetch(`${base}/metrics`)
      const text = await res.text()
      if (res.status !== 200) throw new Error(`scrape answered ${res.status}: ${text.slice(0, 200)}`)
      return text
    }
    for (let i = 0; i < 10; i++) await scrape()
    const times: number[] = []
    let bytes = 0
    for (let i = 0; i < SCRAPES; i++) {
      const started = performance.now()
      bytes = (await scrape()).length
      times.push(performance.now() - started)
    }
    // The same HTTP path without the registry: what the scrape adds to any request.
    const healthTimes: number[] = []
    for (let i = 0; i < SCRAPES; i++) {
      const started = performance.now()
      await (await fetch(`${base}/healthz`)).arrayBuffer()
      healthTimes.push(performance.now() - started)
    }
    // The registry alone (the database reads and the text), without HTTP.
    const registryTimes: number[] = []
    for (let i = 0; i < SCRAPES; i++) {
      const started = performance.now()
      await registry.metrics()
      registryTimes.push(performance.now() - started)
    }
    // What every request pays: its route label (an API path, matched against the endpoint table) and the two updates.
    const label = routeLabeler(undefined)
    const res = {} as ServerResponse
    const N = 200_000
    const hookStarted = performance.now()
    for (let i = 0; i < N; i++) {
      observeHttpRequest('GET', label('GET', `/api/v1/terms/t-${i % 500}`, res), 200, 0.004)
    }
    const hookUs = ((performance.now() - hookStarted) * 1000) / N

    const [counts] = await em().execute<{ n: string; ready: string }[]>(
      `select count(*) as n, count(*) filter (where status = 'ready') as ready from rag_index_queue`,
    )
    console.log(
      `metrics scrape on ${engine}: ${TERMS} terms, ${counts!.n} queue rows (${counts!.ready} ready), 3 live workers; ` +
        `loaded in ${(loadMs / 1000).toFixed(1)} s; load average ${loadAverage()}`,
    )
    console.log(summary('GET /metrics over HTTP', times))
    console.log(summary('GET /healthz over HTTP (for comparison)', healthTimes))
    console.log(summary('registry.metrics() alone (database reads + text)', registryTimes))
    console.log(`answer: ${(bytes / 1024).toFixed(1)} KiB`)
    console.log(
      `per-request hook (route label of an API path + counter + histogram): ${hookUs.toFixed(2)} µs`,
    )
  } finally {
    server.closeAllConnections()
    await new Promise<void>((resolve) => server.close(() => resolve()))
    await closeDb()
    await postgres?.drop()
  }
}

main().then(
  // Exit once stdout has written everything (a pipe is written asynchronously).
  () => process.stdout.write('', () => process.exit(0)),
  (err: unknown) => {
    console.error(err)
    process.exit(1)
  },
)
