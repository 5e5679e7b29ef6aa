import { spawn, type ChildProcess } from 'node:child_process'
import crypto from 'node:crypto'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import pg from 'pg'
import { afterAll, beforeAll } from 'vitest'
import { startStandIn, type StandIn } from '#tests/provider-stand-in.ts'
import { freePort, startPrivateRedis, type PrivateRedis } from '#tests/private-redis.ts'
import { ROOT, runCli } from './harness.ts'
import { SESSION_COOKIE } from './use-app.ts'

/**
 * The production shape on real processes (issue 28): one throwaway PostgreSQL database, a private Redis, and
 * `glossary web` / `glossary worker` processes of the built app that can each be killed and started again.
 * Built for the scenario of production-shape.e2e.test.ts and for fault tests on top of it (a worker killed
 * mid-reindex, Redis restarted losing every job, a web restarted, backends terminated, a worker started before
 * the migrations), so every part is reachable from the `Cluster` and nothing waits a fixed time where a
 * condition can be awaited (`until`).
 */

const CLI = path.join(ROOT, 'bin', 'glossary.js')
const POSTGRES_ADMIN_URL = process.env.TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres'
/** How long a start may take before the harness gives up (a cold `glossary web` takes a few seconds). */
const START_TIMEOUT_MS = 60_000
/** How long a SIGTERM may take before the harness sends SIGKILL (the web drains for at most 10 s). */
const STOP_GRACE_MS = 15_000

/**
 * Children still running. Should the test process end without its teardown (a crash, an interrupted run), they
 * are killed on its way out rather than left running with nobody to stop them.
 */
const liveChildren = new Set<ChildProcess>()
process.once('exit', () => {
  for (const child of liveChildren) child.kill('SIGKILL')
})

function track(child: ChildProcess): void {
  liveChildren.add(child)
  child.once('exit', () => liveChildren.delete(child))
}

// ── Waiting ───────────────────────────────────────────────────────────────────────────────────────────────

export interface UntilOptions {
  /** Give up after this long (default 10 s). */
  timeoutMs?: number
  /** Pause between probes (default 25 ms). */
  intervalMs?: number
  /** What is awaited, for the failure's message. */
  what?: string
}

type Truthy<T> = Exclude<T, undefined | null | false | 0 | ''>

/**
 * Probes until `probe` answers a truthy value and returns it. A probe that throws counts as "not yet"; on
 * timeout the error names what was awaited and the last answer or error.
 */
export async function until<T>(probe: () => T | Promise<T>, options: UntilOptions = {}): Promise<Truthy<T>> {
  const { timeoutMs = 10_000, intervalMs = 25, what = 'a condition' } = options
  const deadline = Date.now() + timeoutMs
  let last: unknown
  for (;;) {
    try {
      last = await probe()
      if (last) return last as Truthy<T>
    } catch (error) {
      last = error
    }
    if (Date.now() > deadline) {
      const detail = last instanceof Error ? last.message : JSON.stringify(last)
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}; last: ${detail}`)
    }
    await new Promise((resolve) => setTimeout(resolve, intervalMs))
  }
}

// ── PostgreSQL ────────────────────────────────────────────────────────────────────────────────────────────

export interface ScratchDatabase {
  name: string
  url: string
  /** One statement on the database, from a pool of the harness (application_name `cluster-harness`). */
  sql<R extends pg.QueryResultRow = Record<string, unknown>>(text: string, params?: unknown[]): Promise<R[]>
  /**
   * `pg_terminate_backend` on every connection of the glossary processes to this database (not the harness's
   * own): what a database failover or an administrator does to them. Answers how many were terminated.
   */
  terminateBackends(): Promise<number>
  /** Closes the pool and drops the database `with (force)`. */
  drop(): Promise<void>
}

async function asAdmin<T>(work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: POSTGRES_ADMIN_URL })
  await client.connect()
  try {
    return await work(client)
  } finally {
    await client.end()
  }
}

const HARNESS_APP = 'cluster-harness'

/** A new empty database with the extensions the schema needs, created as the superuser (README's recipe). */
export async function createScratchDatabase(): Promise<ScratchDatabase> {
  const name = `glossary_cluster_${crypto.randomBytes(5).toString('hex')}`
  await asAdmin((client) => client.query(`create database ${name}`))
  const url = new URL(POSTGRES_ADMIN_URL)
  url.pathname = `/${name}`
  const pool = new pg.Pool({ connectionString: url.toString(), max: 2, application_name: HARNESS_APP })
  const drop = async () => {
    await pool.end()
    await asAdmin((client) => client.query(`drop database if exists ${name} with (force)`))
  }
  try {
    await pool.query('create extension if not exists vector; create extension if not exists pg_trgm')
  } catch (error) {
    await drop()
    throw error
  }
  const sql = async <R extends pg.QueryResultRow>(text: string, params?: unknown[]) =>
    (await pool.query<R>(text, params)).rows
  return {
    name,
    url: url.toString(),
    sql,
    terminateBackends: async () => {
      const rows = await sql<{ terminated: boolean }>(
        `select pg_terminate_backend(pid) as terminated from pg_stat_activity
          where datname = current_database() and application_name <> $1 and pid <> pg_backend_pid()`,
        [HARNESS_APP],
      )
      return rows.filter((r) => r.terminated).length
    },
    drop,
  }
}

// ── Redis ─────────────────────────────────────────────────────────────────────────────────────────────────

// ── glossary processes ────────────────────────────────────────────────────────────────────────────────────

export type ProcessKind = 'web' | 'worker'

export interface Exit {
  code: number | null
  signal: NodeJS.Signals | null
}

/** One `glossary web` or `glossary worker`; it can be stopped (any signal) and started again with the same settings. */
export class GlossaryProcess {
  private child: ChildProcess | undefined
  private exit: Promise<Exit> | undefined
  private log = ''
  private runStart = 0
  private starts = 0

  constructor(
    readonly name: string,
    readonly kind: ProcessKind,
    private readonly env: Record<string, string | undefined>,
    /** The web's port (kept across restarts); 0 for a worker. */
    readonly port: number,
  ) {}

  /** The web's address (`http://127.0.0.1:<port>`); its origin is in every process's allowed origins. */
  get url(): string {
    return `http://127.0.0.1:${this.port}`
  }

  get pid(): number | undefined {
    return this.child?.pid
  }

  get running(): boolean {
    return !!this.child && this.child.exitCode === null && this.child.signalCode === null
  }

  /** Everything every run of this process wrote (stdout and stderr), each run after a `--- start n ---` line. */
  output(): string {
    return this.log
  }

  /** What the current (or last) run wrote. */
  outputOfThisRun(): string {
    return this.log.slice(this.runStart)
  }

  /**
   * Starts the process and, unless `wait` is false, waits until it serves: a web until `/readyz` answers 200,
   * a worker until it logs `worker started`. Fails with the output when the process exits first.
   */
  async start(options: { wait?: boolean; timeoutMs?: number } = {}): Promise<void> {
    if (this.running) throw new Error(`${this.name} is already running (pid ${this.pid})`)
    this.starts += 1
    this.runStart = this.log.length
    this.log += `--- start ${this.starts} of ${this.name} ---\n`
    const child = spawn(process.execPath, [CLI, this.kind], {
      cwd: ROOT,
      env: this.env as NodeJS.ProcessEnv,
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    track(child)
    child.stdout!.on('data', (d) => (this.log += d))
    child.stderr!.on('data', (d) => (this.log += d))
    this.child = child
    // 'close', not 'exit': by then the output is complete.
    this.exit = new Promise((resolve) => child.once('close', (code, signal) => resolve({ code, signal })))
    if (options.wait === false) return
    const ended = () => child.exitCode !== null || child.signalCode !== null
    const outcome = await until(async () => (ended() ? 'exited' : (await this.serves()) && 'serving'), {
      timeoutMs: options.timeoutMs ?? START_TIMEOUT_MS,
      intervalMs: 50,
      what: `${this.name} to serve`,
    }).catch(async (error: Error) => {
      await this.kill()
      throw new Error(`${error.message}\n${this.outputOfThisRun()}`)
    })
    if (outcome === 'exited') {
      const { code, signal } = await this.exited()
      throw new Error(`${this.name} exited (${code ?? signal}) before it served:\n${this.outputOfThisRun()}`)
    }
  }

  private async serves(): Promise<boolean> {
    if (this.kind === 'worker') return this.outputOfThisRun().includes('"msg":"worker started"')
    const res = await fetch(`${this.url}/readyz`)
    await res.arrayBuffer()
    return res.status === 200
  }

  /** Sends `signal` (SIGTERM: a clean stop; SIGKILL: a crash) and resolves with how the process ended. */
  async stop(signal: NodeJS.Signals = 'SIGTERM'): Promise<Exit> {
    const child = this.child
    if (!child || !this.exit) return { code: null, signal: null }
    if (this.running) child.kill(signal)
    return this.exit
  }

  kill(): Promise<Exit> {
    return this.stop('SIGKILL')
  }

  /** Resolves when the current run ends, however it ends. */
  exited(): Promise<Exit> {
    return this.exit ?? Promise.resolve({ code: null, signal: null })
  }

  /** Stops and starts again with the same settings (a web keeps its port). */
  async restart(signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
    await this.stop(signal)
    await this.start()
  }

  /** A call of `/api/v1<path>` on this web. */
  api(apiPath: string, init: ApiInit = {}): Promise<Response> {
    return callApi(this.url, apiPath, init)
  }
}

/** The pino lines of `output` at level error (50) or above: what a fault test asserts is empty, or expected. */
export function errorLines(output: string): string[] {
  return output.split('\n').filter((line) => {
    if (!line.startsWith('{')) return false
    try {
      return (JSON.parse(line) as { level?: number }).level! >= 50
    } catch {
      return false
    }
  })
}

// ── The cluster ───────────────────────────────────────────────────────────────────────────────────────────

export interface ClusterOptions {
  /** `glossary web` processes, each on its own port (default 2). */
  webs?: number
  /** `glossary worker` processes (default 2). */
  workers?: number
  /**
   * Run `glossary migrate` and start every process (default true). With false nothing is migrated or started:
   * the test calls `migrate()`, `startAll()` or a process's `start()` in the order it examines.
   */
  migrate?: boolean
  /** Variables for every process (they override the harness's). */
  env?: Record<string, string>
}

export interface Cluster {
  database: ScratchDatabase
  redis: PrivateRedis
  /** Shared by every process: the stored secrets (search provider keys) are readable by each. */
  encryptionKey: string
  webs: GlossaryProcess[]
  workers: GlossaryProcess[]
  /** `glossary migrate`; throws with its output when it fails. */
  migrate(): Promise<void>
  /** Starts every web and worker that is not running, in parallel, and waits until each serves. */
  startAll(): Promise<void>
  /** One more worker with the cluster's settings (started unless `start` is false). */
  addWorker(options?: { start?: boolean; env?: Record<string, string> }): Promise<GlossaryProcess>
  /** The provider stand-in (started on first use, closed with the cluster). */
  provider(): Promise<StandIn>
  /** Stops every process (SIGTERM, then SIGKILL after 15 s), Redis and the stand-in; drops the database. */
  stop(): Promise<void>
}

/** Starts a cluster: database, Redis, `glossary migrate`, then the webs and workers in parallel. */
export async function startCluster(options: ClusterOptions = {}): Promise<Cluster> {
  const { webs: webCount = 2, workers: workerCount = 2, migrate = true } = options
  const database = await createScratchDatabase()
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'glossary-cluster-'))
  let redis: PrivateRedis | undefined
  let standIn: Promise<StandIn> | undefined
  const processes: GlossaryProcess[] = []
  const stop = async () => {
    await Promise.all(processes.map((p) => stopWithin(p, STOP_GRACE_MS)))
    await redis?.stop()
    await (await standIn?.catch(() => undefined))?.close()
    await database.drop()
    fs.rmSync(dir, { recursive: true, force: true })
  }
  try {
    redis = await startPrivateRedis(path.join(dir, 'redis'))
    const encryptionKey = crypto.randomBytes(24).toString('hex')
    const ports = await distinctFreePorts(webCount)
    const shared: Record<string, string> = {
      NODE_ENV: 'production',
      LOG_LEVEL: 'info',
      HOST: '127.0.0.1',
      DATABASE_URL: database.url,
      REDIS_URL: redis.url,
      GLOSSARY_ENCRYPTION_KEY: encryptionKey,
      GLOSSARY_ALLOWED_ORIGINS: ports.map((port) => `http://127.0.0.1:${port}`).join(','),
      ...options.env,
    }
    // Each process its own data folder, as on its own machine: nothing may pass between them on disk.
    const envOf = (name: string, extra: Record<string, string>): Record<string, string | undefined> => {
      const dataDir = path.join(dir, name)
      fs.mkdirSync(dataDir, { recursive: true })
      return {
        PATH: process.env.PATH,
        HOME: process.env.HOME,
        GLOSSARY_DATA_DIR: dataDir,
        ...shared,
        ...extra,
      }
    }
    const webs = ports.map(
      (port, i) =>
        new GlossaryProcess(
          `web-${letter(i)}`,
          'web',
          envOf(`web-${letter(i)}`, { PORT: String(port) }),
          port,
        ),
    )
    const newWorker = (extra: Record<string, string> = {}) => {
      const name = `worker-${processes.filter((p) => p.kind === 'worker').length + 1}`
      const worker = new GlossaryProcess(name, 'worker', envOf(name, extra), 0)
      processes.push(worker)
      return worker
    }
    processes.push(...webs)
    const workers = Array.from({ length: workerCount }, () => newWorker())
    const cluster: Cluster = {
      database,
      redis,
      encryptionKey,
      webs,
      workers,
      async migrate() {
        const result = runCli(['migrate'], { ...shared, GLOSSARY_DATA_DIR: path.join(dir, 'migrate') })
        if (result.code !== 0) throw new Error(`glossary migrate exited ${result.code}:\n${result.stderr}`)
      },
      async startAll() {
        await Promise.all(processes.filter((p) => !p.running).map((p) => p.start()))
      },
      async addWorker(more = {}) {
        const worker = newWorker(more.env)
        workers.push(worker)
        if (more.start !== false) await worker.start()
        return worker
      },
      provider() {
        standIn ??= startStandIn()
        return standIn
      },
      stop,
    }
    if (migrate) {
      await cluster.migrate()
      await cluster.startAll()
    }
    return cluster
  } catch (error) {
    await stop().catch(() => undefined)
    throw error
  }
}

/** The fixture of a test file: a cluster started before its tests (fields set once the hook has run), stopped after. */
export function useCluster(options: ClusterOptions = {}): Cluster {
  const holder = {} as Cluster
  beforeAll(async () => {
    Object.assign(holder, await startCluster(options))
  }, 120_000)
  afterAll(async () => {
    await holder.stop?.()
  }, 60_000)
  return holder
}

function letter(i: number): string {
  return String.fromCharCode('a'.charCodeAt(0) + i)
}

async function distinctFreePorts(n: number): Promise<number[]> {
  const ports = new Set<number>()
  while (ports.size < n) ports.add(await freePort())
  return [...ports]
}

async function stopWithin(p: GlossaryProcess, graceMs: number): Promise<void> {
  if (!p.running) return
  const timer = setTimeout(() => void p.kill(), graceMs)
  await p.stop('SIGTERM')
  clearTimeout(timer)
}

// ── The API, as a client of one web ───────────────────────────────────────────────────────────────────────

export interface ApiInit {
  method?: string
  body?: unknown
  /** `glossary_session=…` */
  cookie?: string
  /** An API key's token (sent as `Authorization: Bearer`). */
  token?: string
  /** Other headers (e.g. `x-forwarded-for` behind GLOSSARY_TRUST_PROXY_HEADERS). */
  headers?: Record<string, string>
}

/** A JSON call of `<baseUrl>/api/v1<path>`; it sends the web's own origin, which cookie-session writes need. */
export function callApi(baseUrl: string, apiPath: string, init: ApiInit = {}): Promise<Response> {
  return fetch(`${baseUrl}/api/v1${apiPath}`, {
    method: init.method ?? 'GET',
    headers: {
      'content-type': 'application/json',
      origin: baseUrl,
      ...(init.cookie ? { cookie: init.cookie } : {}),
      ...(init.token ? { authorization: `Bearer ${init.token}` } : {}),
      ...init.headers,
    },
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  })
}

/** The answer's JSON when its status is `status`; otherwise an error with the status and body. */
export async function expectJson<T = Record<string, unknown>>(res: Response, status = 200): Promise<T> {
  const text = await res.text()
  if (res.status !== status) throw new Error(`${res.url}: expected ${status}, got ${res.status}: ${text}`)
  return (text ? JSON.parse(text) : undefined) as T
}

/** The `name=value` of the session cookie an answer sets. */
export function sessionCookieOf(res: Response): string {
  const line = res.headers.getSetCookie().find((l) => l.startsWith(`${SESSION_COOKIE}=`))
  if (!line) throw new Error(`${res.url}: no ${SESSION_COOKIE} cookie in the answer`)
  return line.split(';')[0]!
}

export const CLUSTER_ADMIN = {
  email: 'admin@cluster.test',
  password: 'cluster admin password',
  name: 'Ada Admin',
}

/** The first admin through `POST /setup` on `web`; answers the session cookie. */
export async function setupAdmin(web: GlossaryProcess, account = CLUSTER_ADMIN): Promise<string> {
  const res = await web.api('/setup', { method: 'POST', body: account })
  const cookie = sessionCookieOf(res)
  await expectJson(res)
  return cookie
}

/** A personal API key issued on `web` to the session's user. */
export async function createApiKey(
  web: GlossaryProcess,
  cookie: string,
  scopes: ('read' | 'write' | 'validate')[] = ['read', 'write', 'validate'],
  name = `key-${crypto.randomBytes(3).toString('hex')}`,
): Promise<{ id: string; token: string }> {
  const body = await expectJson<{ key: { id: string }; token: string }>(
    await web.api('/keys', { method: 'POST', cookie, body: { name, scopes } }),
    201,
  )
  return { id: body.key.id, token: body.token }
}

/** Search on with the stand-in as the embedding provider (`PATCH /admin/rag-config`, admin session). */
export async function configureSearch(
  web: GlossaryProcess,
  cookie: string,
  provider: StandIn,
): Promise<void> {
  await expectJson(
    await web.api('/admin/rag-config', {
      method: 'PATCH',
      cookie,
      body: {
        enabled: true,
        embeddingProvider: 'alpha_compatible',
        embeddingBaseUrl: provider.url,
        embeddingModel: 'text-embed-small',
        embeddingApiKey: 'sk-cluster-e2e',
      },
    }),
  )
}

/** The index queue's newest row of a source (`ready`, `queued`, …), or undefined when it has none. */
export async function indexStatus(database: ScratchDatabase, sourceId: string): Promise<string | undefined> {
  const rows = await database.sql<{ status: string }>(
    `select status from rag_index_queue where source_id = $1 order by updated_at desc, created_at desc limit 1`,
    [sourceId],
  )
  return rows[0]?.status
}
