/**
 * A full reindex in the production shape (issue 28): PostgreSQL with pgvector, Redis, WORKERS `glossary worker`
 * processes and one `glossary web`, all on one database, and a provider on 127.0.0.1 that answers at once with
 * dense realistic vectors (`rag-data.ts`). Prints the chunks per second from "search switched on" to "queue
 * empty", the CPU seconds of the workers, the web, PostgreSQL and the provider, and `GET /terms` p50/p95 on the
 * web while idle and during the reindex.
 *
 *   npx remix vite:build && npx tsx bench/production-reindex.bench.ts
 *
 * DATABASE_URL: a PostgreSQL server with pgvector (any database on it; default
 * postgres://postgres@127.0.0.1:5432/postgres, trust auth); the benchmark creates a database of its own there
 * and drops it after. A private redis-server on a free port (so the machine's Redis keeps nothing of it).
 * TERMS (10000) and WORKERS (2) scale it.
 */
import { spawn, type ChildProcess, type SpawnOptions } from 'node:child_process'
import fs from 'node:fs'
import crypto from 'node:crypto'
import os from 'node:os'
import path from 'node:path'
import pg from 'pg'
import { freePort, ROOT, runCli, startService, tempDataDir } from '../tests/e2e/harness.ts'
import { startInstantProvider, textVector } from './rag-data.ts'
import { benchEnv, percentile } from './support.ts'

const TERMS = Number(process.env.TERMS ?? 10_000)
const WORKERS = Number(process.env.WORKERS ?? 2)
const SERVER_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres'
const NAME = `glossary_bench_reindex_${process.pid}`

function urlOf(database: string): string {
  const url = new URL(SERVER_URL)
  url.pathname = `/${database}`
  return url.toString()
}

async function onServer<T>(database: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: urlOf(database) })
  await client.connect()
  try {
    return await work(client)
  } finally {
    await client.end()
  }
}

/** CPU seconds (user + system) of a process, from /proc. */
function cpuSeconds(pid: number): number {
  try {
    const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')
    return (Number(fields[11]) + Number(fields[12])) / 100
  } catch {
    return 0
  }
}

/** CPU seconds of every PostgreSQL process of the machine (its backends come and go with connections). */
function postgresCpu(): number {
  let total = 0
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue
    try {
      if (fs.readFileSync(`/proc/${entry}/comm`, 'utf8').trim() === 'postgres')
        total += cpuSeconds(Number(entry))
    } catch {
      // gone meanwhile
    }
  }
  return total
}

async function startRedis(): Promise<{ url: string; child: ChildProcess }> {
  const port = await freePort()
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'glossary-bench-redis-'))
  const child = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir],
    { stdio: 'ignore' },
  )
  const { Redis } = await import('ioredis')
  for (let i = 0; i < 100; i++) {
    const client = new Redis(port, '127.0.0.1', { lazyConnect: true, maxRetriesPerRequest: 0 })
    const ok = await client
      .connect()
      .then(() => client.ping())
      .catch(() => '')
    client.disconnect()
    if (ok === 'PONG') return { url: `redis://127.0.0.1:${port}/0`, child }
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  throw new Error('redis-server did not start')
}

async function main() {
  await onServer('postgres', (c) => c.query(`create database ${NAME}`))
  const children: { stop(): Promise<unknown> }[] = []
  let redis: ChildProcess | undefined
  const provider = await startInstantProvider(textVector)
  try {
    await onServer(NAME, (c) => c.query('create extension vector; create extension pg_trgm'))
    const { url: redisUrl, child } = await startRedis()
    redis = child
    // Each web takes its own PORT (the harness's); the rest is what production needs.
    const { PORT: _port, ...env } = benchEnv({
      DATABASE_URL: urlOf(NAME),
      REDIS_URL: redisUrl,
      LOG_LEVEL: 'warn',
    })
    const migrated = runCli(['migrate'], env)
    if (migrated.code !== 0) throw new Error(`migrate failed: ${migrated.stderr}`)

    // The glossary and an admin key, written here through the service's own modules.
    const { setConfig, parseConfig } = await import('../app/lib/config.server.ts')
    setConfig(parseConfig(env))
    const { initDb, closeDb } = await import('../db/orm.ts')
    await initDb({ databaseUrl: urlOf(NAME) })
    const { em } = await import('../db/orm.ts')
    const { issueApiKey } = await import('../app/services/auth/api-keys.server.ts')
    const { insertBenchTerms } = await import('./bench-db.ts')
    const userId = crypto.randomUUID()
    await em().execute(
      `insert into users (id, email, name, role, auth_type) values (?, 'bench@example.test', 'Bench', 'admin', 'agent')`,
      [userId],
    )
    const { token } = await issueApiKey({ userId, name: 'bench', scopes: ['read', 'write', 'validate'] })
    await insertBenchTerms(
      Array.from({ length: TERMS }, (_, i) => ({
        name: `Indexed Term ${i}`,
        notations: [],
        definition: `Definition of Indexed Term ${i}: ${'words about the topic '.repeat(8)}`,
      })),
      userId,
    )
    await em().execute('delete from rag_index_queue')

    const web = await startService('web', { dataDir: tempDataDir(), env })
    children.push(web)
    const auth = { authorization: `Bearer ${token}`, 'content-type': 'application/json' }
    // Sampled from a process of its own: the provider stand-in computes vectors in this one.
    const listTermsTimes = () => {
      const client = spawn(
        process.execPath,
        [
          path.join(import.meta.dirname, 'sample-client.mjs'),
          `${web.url}/api/v1/terms?pageSize=20`,
          JSON.stringify(auth),
        ],
        { stdio: ['pipe', 'pipe', 'inherit'] },
      )
      let out = ''
      client.stdout!.on('data', (chunk) => (out += chunk))
      const exited = new Promise((resolve) => client.once('exit', resolve))
      return {
        async stop(): Promise<number[]> {
          client.stdin!.end('stop\n')
          await exited
          return JSON.parse(out) as number[]
        },
      }
    }
    const warm = listTermsTimes()
    await new Promise((resolve) => setTimeout(resolve, 2_000))
    await warm.stop()
    const idleSampler = listTermsTimes()
    await new Promise((resolve) => setTimeout(resolve, 15_000))
    const idle = await idleSampler.stop()

    const workers = await Promise.all(Array.from({ length: WORKERS }, () => startWorkerProcess(env)))
    children.push(...workers)
    const cpu0 = {
      workers: workers.map((w) => cpuSeconds(w.child.pid!)),
      web: cpuSeconds(web.child.pid!),
      postgres: postgresCpu(),
      self: process.cpuUsage(),
    }
    const started = performance.now()
    // Search switched on queues every term (a new embedding space), as an administrator's save does.
    const { updateRagConfig } = await import('../app/services/search/rag-config.server.ts')
    await updateRagConfig({
      input: { enabled: true, embeddingBaseUrl: provider.url, embeddingModel: 'bench-embed' },
      actorId: userId,
      audit: { actor: { userId, label: 'bench' } },
    })
    const busySampler = listTermsTimes()
    const db = new pg.Client({ connectionString: urlOf(NAME) })
    await db.connect()
    for (;;) {
      const { rows } = await db.query<{ n: string }>(
        `select count(*) as n from rag_index_queue where status in ('queued', 'processing')`,
      )
      if (Number(rows[0]!.n) === 0) break
      await new Promise((resolve) => setTimeout(resolve, 200))
    }
    const seconds = (performance.now() - started) / 1000
    const busy = await busySampler.stop()
    const { rows } = await db.query<{ chunks: string; failed: string }>(
      `select (select count(*) from term_chunks) as chunks,
              (select count(*) from rag_index_queue where status = 'failed') as failed`,
    )
    await db.end()
    await closeDb()
    const chunks = Number(rows[0]!.chunks)
    const self = process.cpuUsage(cpu0.self)
    const workerCpu = workers.map((w, i) => cpuSeconds(w.child.pid!) - cpu0.workers[i]!)
    const line = (times: number[]) =>
      `p50 ${percentile(times, 50).toFixed(1)} ms, p95 ${percentile(times, 95).toFixed(1)} ms (${times.length} calls)`
    console.log(
      `reindex of ${TERMS.toLocaleString('en')} terms with ${WORKERS} workers on PostgreSQL + Redis: ` +
        `${chunks.toLocaleString('en')} chunks in ${seconds.toFixed(1)} s = ${(chunks / seconds).toFixed(0)} chunks/s; ` +
        `${rows[0]!.failed} failed (load ${os.loadavg()[0]!.toFixed(2)}, ${os.cpus().length} cores)`,
    )
    console.log(
      `CPU s: workers ${workerCpu.map((c) => c.toFixed(1)).join(' + ')} ` +
        `(${((workerCpu.reduce((a, b) => a + b, 0) * 1000) / chunks).toFixed(2)} ms per chunk), ` +
        `web ${(cpuSeconds(web.child.pid!) - cpu0.web).toFixed(1)}, PostgreSQL ${(postgresCpu() - cpu0.postgres).toFixed(1)}, ` +
        `provider + this process ${((self.user + self.system) / 1e6).toFixed(1)}`,
    )
    console.log(`GET /terms on the web: idle ${line(idle)}; during the reindex ${line(busy)}`)
  } finally {
    await Promise.all(children.map((c) => c.stop()))
    redis?.kill('SIGKILL')
    void provider.close()
    await onServer('postgres', (c) => c.query(`drop database if exists ${NAME} with (force)`))
  }
}

interface WorkerProcess {
  child: ChildProcess
  stop(): Promise<unknown>
}

/** `glossary worker` in the background, ready once its heartbeat is written. */
async function startWorkerProcess(env: Record<string, string>): Promise<WorkerProcess> {
  const count = () =>
    onServer(
      NAME,
      async (c) =>
        (await c.query<{ n: number }>('select count(*)::int as n from worker_heartbeat')).rows[0]!.n,
    )
  const before = await count()
  const options: SpawnOptions = {
    env: {
      NODE_ENV: 'production',
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '',
      ...env,
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  }
  // e.g. WORKER_NODE_ARGS="--cpu-prof --cpu-prof-dir=/tmp/prof" to see where a worker's time goes
  const nodeArgs = (process.env.WORKER_NODE_ARGS ?? '').split(' ').filter(Boolean)
  const child = spawn(
    process.execPath,
    [...nodeArgs, path.join(ROOT, 'bin', 'glossary.js'), 'worker'],
    options,
  )
  const stop = () =>
    new Promise((resolve) => {
      if (child.exitCode !== null) return resolve(child.exitCode)
      child.once('exit', resolve)
      child.kill('SIGTERM')
    })
  for (let i = 0; i < 200; i++) {
    if ((await count()) > before) return { child, stop }
    if (child.exitCode !== null) break
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  await stop()
  throw new Error('the worker did not start')
}

await main()
