/**
 * AI observability benchmark (issue 29, "Speed"; decision 030):
 * `npx tsx bench/ai-observability.bench.ts [--rows N] [--requests N]`
 *
 * Loads ROWS (1,000,000) `ai_runs` rows spread over 60 days (llm, embedding and reranker calls over six models,
 * ~3% failures over the five classes, a few calls left running, tokens on llm and embedding calls) with
 * generate_series statements of 100,000 rows (the rollup triggers run once per statement, as for any insert),
 * then starts the real HTTP app on 127.0.0.1 and times `GET /api/v1/admin/ai-observability?hours=720` and
 * `?hours=24` (and 8760) as an admin session: REQUESTS (100) sequential requests each after 10 untimed ones,
 * printing p50/p95/p99 and the load time. Embedded PGlite in memory by default; with
 * `DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres` on PostgreSQL, in a throwaway database
 * `glossary_bench_<pid>` on that server (bench-db.ts; `AI_BENCH_DB=name` keeps that database and reuses its rows on
 * the next run). No thresholds: the figures go to decision 030.
 */
import type { AddressInfo } from 'node:net'
import os from 'node:os'
import { parseConfig, setConfig } from '../app/lib/config.server.ts'
import { benchEnv, loadAverage, percentile } from './support.ts'
import { createBenchPostgres } from './bench-db.ts'

const args = process.argv.slice(2)
const arg = (name: string, fallback: number) => {
  const at = args.indexOf(name)
  return at >= 0 ? Number(args[at + 1]) || fallback : fallback
}
const ROWS = arg('--rows', 1_000_000)
const REQUESTS = arg('--requests', 100)
const BATCH = 100_000
const DATABASE_URL = process.env.DATABASE_URL
/** Keeps (and on the next run reuses) the PostgreSQL database of this name, rows and all. */
const KEEP_DB = process.env.AI_BENCH_DB

setConfig(parseConfig(benchEnv({ GLOSSARY_DATA_DIR: os.tmpdir() })))

async function main(): Promise<void> {
  const { applyMigrations } = await import('../db/migrator.ts')
  const { closeDb, em, initDb } = await import('../db/orm.ts')
  const { createHttpApp } = await import('../app/server/http.server.ts')
  const { createSession, SESSION_COOKIE } = await import('../app/services/auth/sessions.server.ts')

  const postgres = DATABASE_URL ? await createBenchPostgres(DATABASE_URL, KEEP_DB) : undefined
  await initDb(postgres ? { databaseUrl: postgres.url } : {})
  await applyMigrations()
  const engine = postgres ? `PostgreSQL (${postgres.name})` : 'embedded PGlite (in memory)'
  try {
    const email = 'bench-admin@example.test'
    const [admin] = [
      ...(await em().execute<{ id: string }[]>('select id from users where email = ?', [email])),
      ...(await em().execute<{ id: string }[]>(
        `insert into users (id, email, name, role, auth_type)
         select gen_random_uuid(), ?, 'Bench admin', 'admin', 'password'
          where not exists (select 1 from users where email = ?) returning id`,
        [email, email],
      )),
    ]
    const { token } = await createSession(admin!.id)
    const cookie = `${SESSION_COOKIE}=${token}`

    // Rows i = 0 … ROWS-1 spread evenly over the last 60 days; a seeded mix by i (no random: runs compare).
    const loadStarted = performance.now()
    const [{ present } = { present: 0 }] = await em().execute<{ present: number }[]>(
      'select count(*)::int as present from ai_runs',
    )
    for (let first = present >= ROWS ? ROWS : 0; first < ROWS; first += BATCH) {
      await em().execute(
        `insert into ai_runs (id, trace_id, task, purpose, provider, model, status, failure_class, http_status,
                              items, latency_ms, input_tokens, output_tokens, total_tokens, started_at, finished_at)
         select gen_random_uuid(), 'bench-' || (i / 3), t.task,
                case t.task when 'llm' then 'chat' else (array['search', 'index'])[1 + i % 2] end,
                'alpha_compatible', t.task || '-' || (1 + (i / 7) % 2),
                case when i % 50000 = 7 then 'running' when i % 33 = 0 then 'failed' else 'succeeded' end,
                case when i % 50000 = 7 then null when i % 33 = 0 then
                  (array['authentication', 'model_not_found', 'rate_limited', 'provider_unavailable', 'timeout'])
                  [1 + (i / 33) % 5] end,
                null, 1,
                case when i % 50000 = 7 then null
                     when t.task = 'llm' then 400 + (i::bigint * 7919 % 2600)::int
                     else 15 + (i::bigint * 7919 % 300)::int end,
                case t.task when 'reranker' then null else 20 + i % 400 end,
                case t.task when 'llm' then 50 + i % 300 end,
                case t.task when 'reranker' then null else 20 + i % 400 + case t.task when 'llm' then 50 + i % 300 else 0 end end,
                s.at, case when i % 50000 = 7 then null else s.at + interval '1 second' end
           from generate_series(?::int, ?::int) i,
                lateral (select (array['embedding', 'embedding', 'reranker', 'llm'])[1 + i % 4] as task) t,
                lateral (select now() - (i * (interval '60 days' / ?::int)) as at) s`,
        [first, Math.min(ROWS, first + BATCH) - 1, ROWS],
      )
    }
    const loadSeconds = (performance.now() - loadStarted) / 1000
    if (postgres) await em().execute('vacuum analyze ai_runs, ai_run_rollups, ai_run_latency_rollups')
    else await em().execute('analyze')
    const [rollups] = await em().execute<{ rows: number; buckets: number }[]>(
      `select (select count(*) from ai_run_rollups)::int as rows,
              (select count(*) from ai_run_latency_rollups)::int as buckets`,
    )

    const server = createHttpApp().listen(0, '127.0.0.1')
    await new Promise<void>((resolve) => server.once('listening', resolve))
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
    try {
      console.log(
        `${engine}; ${ROWS.toLocaleString('en')} ai_runs rows ` +
          (present >= ROWS ? 'reused ' : `loaded in ${loadSeconds.toFixed(1)} s `) +
          `(${rollups!.rows} rollup rows, ${rollups!.buckets} latency buckets); Node ${process.version}, ` +
          `${os.cpus().length} CPU(s), load ${loadAverage()}; ${REQUESTS} requests each after 10 untimed\n`,
      )
      const row = (cells: (string | number)[]) =>
        console.log(cells.map((c) => String(c).padStart(12)).join(''))
      row(['hours', 'p50 ms', 'p95 ms', 'p99 ms', 'calls'])
      for (const hours of [720, 24, 8760]) {
        const times: number[] = []
        let calls = 0
        for (let i = 0; i < REQUESTS + 10; i++) {
          const started = performance.now()
          const res = await fetch(`${base}/api/v1/admin/ai-observability?hours=${hours}`, {
            headers: { cookie },
          })
          const body = (await res.json()) as { totals: { calls: number } }
          if (res.status !== 200) throw new Error(`answered ${res.status}: ${JSON.stringify(body)}`)
          if (i >= 10) times.push(performance.now() - started)
          calls = body.totals.calls
        }
        const ms = (p: number) => percentile(times, p).toFixed(1)
        row([hours, ms(50), ms(95), ms(99), calls])
      }
    } finally {
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    }
  } finally {
    await closeDb()
    await postgres?.drop()
  }
}

main().catch((error) => {
  console.error(error)
  process.exit(1)
})
