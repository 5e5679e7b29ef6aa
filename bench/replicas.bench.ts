/**
 * Web replicas on one PostgreSQL database (issue 28, "Speed on PostgreSQL"): `POST /validate` (a ~1 MB text)
 * and `POST /terms/lookup` (500 texts) throughput and latency with one `glossary web` process, then with two,
 * driven by the same load generator.
 *
 * Makes a throwaway database on the server DATABASE_URL points at (default the machine's,
 * postgres://postgres@127.0.0.1:5432/postgres; that URL's own database is not touched) and drops it at the
 * end; writes TERMS terms into it (default 10,000, tests/case-glossary.ts: the letter-case benchmark's style
 * guide, whose text of planted uses is the `/validate` body); then for 1 and 2 replicas starts that many
 * `glossary web` processes of the built CLI (bin/glossary.js; build/ must exist) on free loopback ports, and
 * runs bench/load-client.mjs, a client in its own process keeping CONCURRENCY requests in flight (default 4
 * for /validate, 8 for the lookup), round-robin over the replicas, for SECONDS (default 20) after WARMUP
 * (default 10) uncounted seconds that also build each replica's matcher. Prints requests/s and p50/p95/p99
 * per phase, the cores each replica kept busy (from /proc), and the ratio of two replicas to one. No
 * assertions.
 *
 * Run: `npx tsx bench/replicas.bench.ts [validate] [lookup]` (both without arguments). The replicas share the
 * machine's cores with PostgreSQL and the load generator: two replicas can only add throughput where one
 * leaves cores idle.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process'
import fs from 'node:fs'
import net from 'node:net'
import os from 'node:os'
import path from 'node:path'
import { promisify } from 'node:util'
import { parseConfig, setConfig } from '../app/lib/config.server.ts'
import { generateCaseGlossary } from '../tests/case-glossary.ts'
import { createBenchPostgres, insertBenchTerms, openBenchDatabase } from './bench-db.ts'
import { benchEnv, benchParts, loadAverage } from './support.ts'

const ROOT = path.resolve(import.meta.dirname, '..')
const TERMS = Number(process.env.TERMS ?? 10_000)
const SECONDS = Number(process.env.SECONDS ?? 20)
const WARMUP = Number(process.env.WARMUP ?? 10)
const run = benchParts()
const load = loadAverage

if (!fs.existsSync(path.join(ROOT, 'build', 'server', 'index.js'))) {
  throw new Error('build/ is missing: run `npx remix vite:build` first (the replicas are the built CLI).')
}

const postgres = await createBenchPostgres(
  process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres',
)
const env = benchEnv({ DATABASE_URL: postgres.url })
setConfig(parseConfig(env))
const workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'replicas-bench-'))

/** A free loopback port (the CLI derives its allowed origins from PORT, so 0 will not do). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer()
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo
      server.close(() => resolve(port))
    })
    server.on('error', reject)
  })
}

interface Replica {
  url: string
  child: ChildProcess
  output: () => string
}

/** Starts `glossary web` on the benchmark's database and waits until its /readyz answers 200. */
async function startReplica(): Promise<Replica> {
  const port = await freePort()
  const replicaEnv: Record<string, string | undefined> = {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    ...env,
    LOG_LEVEL: 'warn',
    PORT: String(port),
    HOST: '127.0.0.1',
    GLOSSARY_ALLOWED_ORIGINS: `http://127.0.0.1:${port}`,
    GLOSSARY_DATA_DIR: path.join(workDir, `data-${port}`),
  }
  const child = spawn(process.execPath, [path.join(ROOT, 'bin', 'glossary.js'), 'web'], {
    cwd: ROOT,
    env: replicaEnv as NodeJS.ProcessEnv,
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let output = ''
  child.stdout!.on('data', (d) => (output += d))
  child.stderr!.on('data', (d) => (output += d))
  const url = `http://127.0.0.1:${port}`
  const deadline = Date.now() + 60_000
  for (;;) {
    if (child.exitCode !== null) throw new Error(`glossary web exited ${child.exitCode}:\n${output}`)
    const status = await fetch(`${url}/readyz`).then(
      (res) => res.status,
      () => 0,
    )
    if (status === 200) return { url, child, output: () => output }
    if (Date.now() > deadline) {
      child.kill('SIGKILL')
      throw new Error(`glossary web did not become ready:\n${output}`)
    }
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
}

/**
 * CPU seconds a process has used (user + system, from /proc: Linux only; NaN elsewhere). Ticks are 1/100 s on
 * Linux (`getconf CLK_TCK`).
 */
function cpuSeconds(pid: number | undefined): number {
  try {
    const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')
    return (Number(fields[11]) + Number(fields[12])) / 100
  } catch {
    return Number.NaN
  }
}

async function stopReplica(replica: Replica): Promise<void> {
  if (replica.child.exitCode !== null) return
  const exited = new Promise((resolve) => replica.child.once('exit', resolve))
  replica.child.kill('SIGTERM')
  await exited
}

interface LoadResult {
  requests: number
  errors: number
  firstError?: unknown
  seconds: number
  perSecond: number
  p50: number
  p95: number
  p99: number
  perTarget: number[]
}

/** Runs bench/load-client.mjs against `urls` with the body in `bodyFile`. */
async function drive(urls: string[], bodyFile: string, concurrency: number): Promise<LoadResult> {
  const { stdout } = await promisify(execFile)(
    process.execPath,
    [
      path.join(import.meta.dirname, 'load-client.mjs'),
      urls.join(','),
      JSON.stringify(auth),
      bodyFile,
      String(concurrency),
      String(SECONDS),
      String(WARMUP),
    ],
    { maxBuffer: 16 * 1024 * 1024 },
  )
  return JSON.parse(stdout) as LoadResult
}

// ── The glossary and the bodies ─────────────────────────────────────────────────────────────────────────
const { terms, text } = generateCaseGlossary({
  count: TERMS,
  bytes: 1024 * 1024,
  deprecatedUses: 2000,
  preferredUses: 2000,
})
const { userId, auth } = await openBenchDatabase({ databaseUrl: postgres.url })
await insertBenchTerms(
  terms.map((t) => ({ ...t, definition: `Definition of ${t.name}.` })),
  userId,
)
const { closeDb } = await import('../db/orm.ts')
await closeDb()

const validateBody = path.join(workDir, 'validate.json')
fs.writeFileSync(validateBody, JSON.stringify({ text, includePreferred: false }))
// The letter-case benchmark's lookup: 500 notations of the glossary, every tenth text unknown.
const lookupBody = path.join(workDir, 'lookup.json')
fs.writeFileSync(
  lookupBody,
  JSON.stringify({
    texts: Array.from({ length: 500 }, (_, i) => {
      const t = terms[(i * 7919) % terms.length]!
      return i % 10 === 0 ? `unknown ${i}` : t.notations[i % t.notations.length]!.text
    }),
  }),
)
console.log(
  `PostgreSQL (throwaway database ${postgres.name}), ${TERMS.toLocaleString('en')} terms, /validate body ${(fs.statSync(validateBody).size / 1048576).toFixed(2)} MB; ` +
    `cpus ${os.cpus().length}, Node ${process.version}, load average ${load()}`,
)

// ── 1 replica, then 2 ───────────────────────────────────────────────────────────────────────────────────
const phases = [
  {
    name: 'validate',
    path: '/api/v1/validate',
    body: validateBody,
    concurrency: Number(process.env.CONCURRENCY ?? 4),
  },
  {
    name: 'lookup',
    path: '/api/v1/terms/lookup',
    body: lookupBody,
    concurrency: Number(process.env.CONCURRENCY ?? 8),
  },
].filter((phase) => run(phase.name))
const results = new Map<string, LoadResult>()
try {
  for (const count of [1, 2]) {
    const replicas: Replica[] = []
    try {
      for (let i = 0; i < count; i++) replicas.push(await startReplica())
      for (const phase of phases) {
        const cpuBefore = replicas.map((r) => cpuSeconds(r.child.pid))
        const wallBefore = performance.now()
        const result = await drive(
          replicas.map((r) => `${r.url}${phase.path}`),
          phase.body,
          phase.concurrency,
        )
        results.set(`${phase.name} ${count}`, result)
        const wall = (performance.now() - wallBefore) / 1000
        const busy = replicas
          .map((r, i) => ((cpuSeconds(r.child.pid) - cpuBefore[i]!) / wall).toFixed(2))
          .join(' + ')
        console.log(
          `POST ${phase.path.replace('/api/v1', '')}, ${count} replica${count > 1 ? 's' : ''}, ${phase.concurrency} in flight: ` +
            `${result.perSecond.toFixed(1)} requests/s, p50 ${result.p50.toFixed(1)} ms, p95 ${result.p95.toFixed(1)} ms, p99 ${result.p99.toFixed(1)} ms ` +
            `(${result.requests} requests in ${result.seconds.toFixed(1)} s, per replica ${result.perTarget.join('/')}, ${result.errors} errors${result.errors ? `, first: ${String(result.firstError)}` : ''}; ` +
            `replicas' CPU ${busy} cores, warm-up included; load ${load()})`,
        )
      }
    } catch (error) {
      for (const replica of replicas) console.error(replica.output())
      throw error
    } finally {
      await Promise.all(replicas.map(stopReplica))
    }
  }
  for (const phase of phases) {
    const one = results.get(`${phase.name} 1`)!
    const two = results.get(`${phase.name} 2`)!
    console.log(
      `${phase.name}: 2 replicas / 1 = ${(two.perSecond / one.perSecond).toFixed(2)}× the requests/s, p95 ${(two.p95 / one.p95).toFixed(2)}×`,
    )
  }
} finally {
  fs.rmSync(workDir, { recursive: true, force: true })
  await postgres.drop()
}
