/**
 * Planner settings benchmark: `npx tsx bench/planner.bench.ts [--terms N] [--runs N]`
 *
 * PGlite starts its server with `enable_seqscan = off` (its own command line; decision 016 "Speed"). This
 * measures what that setting does to the app's hot reads at realistic sizes, on an embedded database on disk
 * (as `glossary start` runs): N terms (default 20,000) × 4 notations through the real write path, 2,000 wiki
 * pages (70% published), 200,000 audit rows over 180 days. For each request (`GET /terms` with and without `q`,
 * `GET /terms/{slug}`, `GET /wiki`, `GET /admin/audit` with and without `action`) it prints the p50 of --runs
 * calls through the dispatcher with `enable_seqscan` off and on, and every SELECT the request ran with its
 * execution time under each (EXPLAIN ANALYZE, median of 5) and, where the plan differs, its top nodes. No assertions: figures for docs/decisions/016-index-pipeline.md.
 */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { parseConfig, setConfig } from '../app/lib/config.server.ts'
import { insertBenchTerms, openBenchDatabase } from './bench-db.ts'
import { benchEnv, percentile, prng, syntheticWords } from './support.ts'

setConfig(parseConfig(benchEnv()))

const arg = (name: string, fallback: number) =>
  process.argv.includes(name) ? Number(process.argv[process.argv.indexOf(name) + 1]) : fallback
const TERMS = arg('--terms', 20_000)
const RUNS = arg('--runs', 40)
const PAGES = 2_000
const AUDIT_ROWS = 200_000
const load = () =>
  os
    .loadavg()
    .map((x) => x.toFixed(1))
    .join(' / ')

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'planner-bench-'))
const { userId, auth } = await openBenchDatabase({ dataDir })
const { em, getDb, closeDb } = await import('../db/orm.ts')
const { handleApiRequest } = await import('../app/api/handler.server.ts')
const { stopCompileWorker } = await import('../app/services/matching/compile-worker.ts')
const { createUser } = await import('../tests/factories.ts')

const rand = prng(7)
const { enWord, koWord } = syntheticWords(rand)
console.log(
  `planner benchmark: ${TERMS.toLocaleString('en')} terms, ${PAGES} wiki pages, ${AUDIT_ROWS.toLocaleString('en')} audit rows; load ${load()}`,
)

// ── Data ────────────────────────────────────────────────────────────────────────────────────────────────
const started = performance.now()
const DOMAINS = ['payments', 'platform', 'finance', 'ops', 'security']
{
  const seen = new Set<string>()
  const fresh = (make: () => string) => {
    for (;;) {
      const s = make()
      if (!seen.has(s)) {
        seen.add(s)
        return s
      }
    }
  }
  const terms = Array.from({ length: TERMS }, () => {
    const name = fresh(() => `${enWord(3)} ${enWord(2)}`)
    return {
      name,
      notations: [
        { text: fresh(() => enWord(4)), kind: 'admitted' as const, lang: 'en' },
        { text: fresh(() => `${enWord(2)} ${enWord(3)}`), kind: 'admitted' as const, lang: 'en' },
        { text: fresh(() => koWord(3)), kind: 'preferred' as const, lang: 'ko' },
        { text: fresh(() => `${koWord(2)} ${koWord(2)}`), kind: 'deprecated' as const, lang: 'ko' },
      ],
      definition: `Definition of ${name}: ${Array.from({ length: 12 }, () => enWord(2)).join(' ')}.`,
    }
  })
  await insertBenchTerms(terms, userId)
}
await em().execute(
  `insert into wiki_pages (id, slug, title, content, summary, domain, status, revision, created_by_id,
                           updated_by_id, created_at, updated_at)
   select gen_random_uuid(), 'page-' || g, 'Page ' || g, repeat('Text of a wiki page. ', 70), 'Text of a wiki page.',
          array[(array[${DOMAINS.map((d) => `'${d}'`).join(',')}])[1 + g % 5]],
          case when g % 10 < 7 then 'published' when g % 10 < 9 then 'draft' else 'archived' end, 1, ?, ?,
          now() - make_interval(secs => g * 37), now() - make_interval(secs => g * 37)
     from generate_series(1, ?) g`,
  [userId, userId, PAGES],
  'run',
)
await em().execute(
  `insert into audit_log (id, at, action, actor_user_id, actor_label, target_type, target_id, ip, details)
   select gen_random_uuid(), now() - make_interval(secs => g * 77),
          (array['auth.login','term.update','term.create','wiki.update','api_key.create','settings.update'])[1 + (g * 7) % 6],
          case when g % 3 = 0 then ?::uuid else null end, 'user ' || (g % 50), 'term', g::text, '127.0.0.1',
          jsonb_build_object('n', g)
     from generate_series(1, ?) g`,
  [userId, AUDIT_ROWS],
  'run',
)
await em().execute('analyze', [], 'run')
console.log(`data written in ${((performance.now() - started) / 1000).toFixed(0)} s`)

// ── Capture what each request runs ──────────────────────────────────────────────────────────────────────
const pglite = getDb().pglite!
const query = pglite.query.bind(pglite)
let captured: { sql: string; params: unknown[] }[] | undefined
pglite.query = (async (sql: string, params?: unknown[], options?: object) => {
  captured?.push({ sql, params: params ?? [] })
  return query(sql, params, options)
}) as typeof pglite.query

async function setSeqscan(on: boolean): Promise<void> {
  await em().execute(`set enable_seqscan = ${on ? 'on' : 'off'}`, [], 'run')
}

// The audit list takes a signed-in admin's session, not an API key.
const { sessionHeaders } = await createUser({ role: 'admin' })

async function get(url: string): Promise<void> {
  const headers = url.startsWith('/admin/') ? sessionHeaders : auth
  const res = await handleApiRequest(new Request(`http://internal/api/v1${url}`, { headers }), {
    requestId: 'bench',
    ip: '127.0.0.1',
    isHttps: false,
  })
  if (!res.ok) throw new Error(`${url}: ${res.status} ${await res.text()}`)
  await res.text()
}

interface PlanNode {
  'Node Type': string
  'Index Name'?: string
  'Relation Name'?: string
  Plans?: PlanNode[]
}
/** Every node of a plan, depth first (type, and the index or table it reads). */
const nodes = (node: PlanNode): string[] => [
  `${node['Node Type']}${node['Index Name'] ? ` using ${node['Index Name']}` : node['Relation Name'] ? ` on ${node['Relation Name']}` : ''}`,
  ...(node.Plans ?? []).flatMap(nodes),
]
/** The scans of a plan: what differs when sequential scans are allowed. */
const scans = (node: PlanNode) =>
  nodes(node)
    .filter((n) => n.includes('Scan') && !n.startsWith('CTE'))
    .join(', ')

async function explain(
  sql: string,
  params: unknown[],
): Promise<{ shape: string; scans: string; ms: number }> {
  const times: number[] = []
  let top: PlanNode | undefined
  for (let i = 0; i < 5; i++) {
    const res = await query<{ 'QUERY PLAN': [{ Plan: PlanNode; 'Execution Time': number }] }>(
      `explain (analyze, format json) ${sql}`,
      params,
    )
    const plan = res.rows[0]!['QUERY PLAN'][0]
    top = plan.Plan
    times.push(plan['Execution Time'])
  }
  return { shape: nodes(top!).join(' > '), scans: scans(top!), ms: percentile(times, 50) }
}

const requests: [string, string][] = [
  ['GET /terms (first page)', '/terms?pageSize=20'],
  ['GET /terms?q= (a common fragment)', '/terms?q=ba&pageSize=20'],
  ['GET /terms?q= (a rare word)', '/terms?q=zuzu&pageSize=20'],
  ['GET /terms/{slug}', '/terms/t-12345'],
  ['GET /wiki (published)', '/wiki?status=published&pageSize=20'],
  ['GET /wiki?q=', '/wiki?q=page%2019&pageSize=20'],
  ['GET /admin/audit', '/admin/audit?pageSize=50'],
  ['GET /admin/audit?action=', '/admin/audit?action=api_key.create&pageSize=50'],
]

for (const [label, url] of requests) {
  // The two settings take turns call by call, so a change in the machine's load falls on both alike.
  const times: Record<'off' | 'on', number[]> = { off: [], on: [] }
  for (let i = 0; i < 5 + RUNS; i++) {
    for (const mode of ['off', 'on'] as const) {
      await setSeqscan(mode === 'on')
      const t0 = performance.now()
      await get(url)
      if (i >= 5) times[mode].push(performance.now() - t0) // the first 5 of each are an untimed warm-up
    }
  }
  const p50 = { off: percentile(times.off, 50), on: percentile(times.on, 50) }
  console.log(
    `${label}: p50 ${p50.off.toFixed(1)} ms with enable_seqscan off, ${p50.on.toFixed(1)} ms on (load ${load()})`,
  )
  captured = []
  await get(url)
  const statements = captured.filter((s) => /^\s*(select|with)\b/i.test(s.sql))
  captured = undefined
  for (const s of statements) {
    await setSeqscan(false)
    const off = await explain(s.sql, s.params)
    await setSeqscan(true)
    const on = await explain(s.sql, s.params)
    const sql = s.sql.replace(/\s+/g, ' ').slice(0, 110)
    if (off.shape === on.shape) {
      console.log(`  ${off.ms.toFixed(2)} ms off, ${on.ms.toFixed(2)} ms on, same plan: ${sql}…`)
      continue
    }
    console.log(`  plan differs: ${sql}…`)
    console.log(`    off: ${off.ms.toFixed(2)} ms, scans: ${off.scans}`)
    console.log(`    on:  ${on.ms.toFixed(2)} ms, scans: ${on.scans}`)
  }
}

await setSeqscan(false)
await stopCompileWorker()
await closeDb()
fs.rmSync(dataDir, { recursive: true, force: true })
