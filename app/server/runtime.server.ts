import fs from 'node:fs'
import type { Server } from 'node:http'
import path from 'node:path'
import type { AddressInfo } from 'node:net'
import type { ServerBuild } from '@remix-run/node'
import { pino } from 'pino'
import { getConfig } from '#app/lib/config.server.ts'
import {
  assertQueueReachable,
  databaseFailure,
  hostAndPort,
  listenFailure,
  syncDataDirHeld,
} from './startup-failures.server.ts'

// `glossary` asks the runtime which failures are the operator's to fix (bin/glossary.js).
import { operatorMessage } from './startup-failures.server.ts'
export { operatorMessage }
import { log, setLogDestination } from '#app/lib/logger.server.ts'
import { ensureEncryptionKey } from '#app/lib/secrets.server.ts'
import { stopCompileWorker } from '#app/services/matching/compile-worker.ts'
import { matcherCache } from '#app/services/validation/matcher-cache.server.ts'
import { seedAdmin as seedAdminAccount } from '#app/services/auth/seed-admin.server.ts'
import {
  applyMigrations,
  assertNoPendingMigrations,
  assertSameRelease,
  databaseRelease,
  pendingMigrations,
} from '#db/migrator.ts'
import { RELEASE } from '#domain/release.ts'
import { backupBeforeMigration } from '#app/services/backup/automatic.server.ts'
import { flushKeyUses } from '#app/services/auth/key-cache.server.ts'
import { closeDb, DataDirInUseError, embeddedDataPath, initDb, type InitDbOptions } from '#db/orm.ts'
import { closeJobs } from '#pipeline/jobs/client.ts'
import { closeQueue } from '#pipeline/transport.ts'
import { startWorker, type WorkerHandle } from '#pipeline/worker.ts'
import { syncCli } from '#sync/cli.ts'
import { backupCli, type BackupCommand } from './backup-cli.server.ts'
import { answerClientErrors, createHttpApp, type HttpAppOptions } from './http.server.ts'
import { startWorkerMetrics, type WorkerMetricsServer } from './worker-metrics.server.ts'

/**
 * The process entry points behind `glossary <command>`. They live in the server build (exported from
 * entry.server.tsx) so that the CLI, the web server and the worker share ONE copy of the database module.
 */

export interface WebOptions {
  build: ServerBuild
  clientDir: string
}

/** What the database module needs from the configuration (db/ reads no app module itself). */
function databaseSettings(): InitDbOptions {
  const config = getConfig()
  return {
    databaseUrl: config.databaseUrl,
    dataDir: config.dataDir,
    debugLog: (message) => log().debug({ orm: message }),
  }
}

/** Opens the database; a server that cannot be reached or refuses the login becomes a `StartupError`. */
async function openDatabase(): Promise<void> {
  const settings = databaseSettings()
  try {
    await initDb(settings)
  } catch (error) {
    throw (settings.databaseUrl && databaseFailure(error, settings.databaseUrl)) || error
  }
}

async function applyPending(): Promise<string[]> {
  const applied = await applyMigrations()
  log().info({ applied }, applied.length ? 'migrations applied' : 'schema already up to date')
  return applied
}

/** Applies pending migrations; resolves with their names. The process exits non-zero when it throws. */
export async function migrate(): Promise<string[]> {
  try {
    await openDatabase()
    return await applyPending()
  } finally {
    await closeDb()
  }
}

/** Where the web listens and the address an operator opens: a wildcard HOST is reached on this machine as localhost. */
function listeningOn(bound: AddressInfo, host: string): { listening: string; url: string } {
  const wildcard = bound.address === '0.0.0.0' || bound.address === '::'
  const urlHost = wildcard ? 'localhost' : host
  return {
    listening: hostAndPort(bound.address, bound.port),
    url: `http://${hostAndPort(urlHost, bound.port)}`,
  }
}

/** Everything a running process holds, closed in reverse order on SIGTERM/SIGINT. */
class Lifecycle {
  private server: Server | undefined
  private worker: WorkerHandle | undefined
  private stopping: Promise<void> | undefined
  /** `glossary worker`'s own `/metrics` when GLOSSARY_WORKER_METRICS_PORT is set. */
  metrics: WorkerMetricsServer | undefined

  /**
   * Checks Redis and the database before anything starts: no migration pending and the database at this release
   * (spec "Versioning"); `migrate` first applies pending migrations (start, dev).
   */
  async open({ migrate = false } = {}): Promise<void> {
    await assertQueueReachable()
    await openDatabase()
    if (migrate) {
      // The embedded default upgrades itself: a backup first, so the upgrade can be undone (issue 31).
      const config = getConfig()
      if (!config.databaseUrl) {
        await backupBeforeMigration({ dir: path.join(config.dataDir, 'backups'), keep: config.backupKeep })
      }
      await applyPending()
    }
    await assertNoPendingMigrations()
    await assertSameRelease()
    ensureEncryptionKey()
  }

  async listen(options: HttpAppOptions): Promise<Server> {
    const config = getConfig()
    // The matcher is built before the port opens: the first validation or lookup a load balancer sends to a
    // web that just (re)started is then as fresh as any other, instead of waiting seconds for the compile
    // thread's first start and answering `upToDate: false` (issue 28).
    const started = performance.now()
    const snapshot = await matcherCache.get()
    log().info(
      { terms: snapshot.terms, forms: snapshot.forms, ms: Math.round(performance.now() - started) },
      'matcher ready',
    )
    const app = createHttpApp(options)
    const server = answerClientErrors(app.listen(config.port, config.host))
    await new Promise<void>((resolve, reject) => {
      server.once('listening', resolve)
      server.once('error', (error) => reject(listenFailure(error, config.host, config.port)))
    })
    this.server = server
    const bound = server.address() as AddressInfo
    const { listening, url } = listeningOn(bound, config.host)
    log().info({ host: bound.address, port: bound.port, url }, `web listening on ${listening}: open ${url}`)
    return server
  }

  async work(): Promise<void> {
    this.worker = await startWorker()
  }

  /** Stops accepting requests, lets in-flight ones finish (10 s at most) and running jobs too, closes the database. */
  stop(): Promise<void> {
    this.stopping ??= (async () => {
      const server = this.server
      if (server) {
        const closed = new Promise<void>((resolve) => server.close(() => resolve()))
        server.closeIdleConnections()
        const force = setTimeout(() => server.closeAllConnections(), 10_000)
        await closed
        clearTimeout(force)
      }
      await this.metrics?.close()
      await this.worker?.stop()
      await closeJobs()
      await stopCompileWorker()
      await closeQueue()
      await flushKeyUses().catch((err: unknown) => log().warn({ err }, 'could not record API key uses'))
      await closeDb()
      log().info('stopped cleanly')
    })()
    return this.stopping
  }

  onSignals(): void {
    for (const signal of ['SIGTERM', 'SIGINT'] as const) {
      process.once(signal, () => {
        log().info({ signal }, 'shutting down')
        this.stop().then(
          () => process.exit(0),
          (err) => {
            log().error({ err }, 'shutdown failed')
            process.exit(1)
          },
        )
      })
    }
  }
}

export async function web(options: WebOptions): Promise<void> {
  const life = new Lifecycle()
  life.onSignals()
  await life.open()
  await life.listen(options)
}

export async function worker(): Promise<void> {
  const life = new Lifecycle()
  life.onSignals()
  await life.open()
  await life.work()
  life.metrics = await startWorkerMetrics()
}

/** The embedded default: migrate, then web and worker in one process. */
export async function start(options: WebOptions): Promise<void> {
  // The database stays open from the migration to serving: one open of the embedded engine, not two.
  const life = new Lifecycle()
  life.onSignals()
  await life.open({ migrate: true })
  await life.work()
  await life.listen(options)
}

/** `npm run dev`: like `start`, with the Vite dev server serving the app from source. */
export async function dev(options: Pick<HttpAppOptions, 'build' | 'before'>): Promise<void> {
  const life = new Lifecycle()
  life.onSignals()
  await life.open({ migrate: true })
  await life.work()
  await life.listen({ ...options, isDev: true })
}

/**
 * `glossary version`: the release of this code and of the database (the release its last `glossary migrate`
 * recorded, and the migrations this code would still apply). Informational: it never creates the embedded
 * database, and a database it cannot open is said in the line, not by the exit code.
 */
export async function version(): Promise<string[]> {
  const lines = [`code: release ${RELEASE}`]
  const config = getConfig()
  const dataPath = embeddedDataPath(config.dataDir)
  if (!config.databaseUrl && !fs.existsSync(dataPath)) {
    return [...lines, `database: none yet in ${dataPath} (\`glossary start\` creates it)`]
  }
  try {
    await openDatabase()
  } catch (error) {
    const reason = operatorMessage(error) ?? (error instanceof Error ? error.message : String(error))
    return [...lines, `database: could not be opened: ${reason}`]
  }
  try {
    const [recorded, pending] = [await databaseRelease(), await pendingMigrations()]
    lines.push(
      recorded
        ? `database: release ${recorded.release} (${recorded.migrations} migrations, the last ${recorded.lastMigration}; migrated ${recorded.recordedAt.toISOString()})`
        : 'database: no release recorded (migrated by a release before 0.3.3, or never)',
    )
    if (pending.length)
      lines.push(`pending for this release: ${pending.length} migration(s) (${pending.join(', ')})`)
    if (recorded && recorded.release !== RELEASE)
      lines.push('the releases differ: web and worker refuse to start')
    return lines
  } finally {
    await closeDb()
  }
}

/** Parses the environment now, so a bad variable stops the command before anything starts. */
export function loadConfig(): void {
  getConfig()
}

/** `glossary seed-admin`: needs a migrated database; the credentials come only from the environment. */
export async function seedAdmin(): Promise<string> {
  try {
    await openDatabase()
    await assertNoPendingMigrations()
    await assertSameRelease()
    const result = await seedAdminAccount()
    return result.created ? `created admin ${result.email}` : `${result.email} exists; role set to admin`
  } finally {
    await closeDb()
  }
}

/**
 * `glossary sync …` (sync/cli.ts); resolves with the exit code. Like `web`, it refuses a pending migration. Its
 * logs go to stderr, so stdout holds only what it prints (a bundle's path, a JSON report). On the embedded
 * database, a running service holding the data directory is said in one line that names its admin screen.
 */
export async function sync(args: readonly string[]): Promise<number> {
  const config = getConfig()
  if (config.logLevel !== 'silent') {
    setLogDestination(pino.destination({ dest: 2, sync: true }), config.logLevel)
  }
  return syncCli(args, {
    openDatabase: async () => {
      try {
        await openDatabase()
      } catch (error) {
        if (error instanceof DataDirInUseError) throw syncDataDirHeld(embeddedDataPath(config.dataDir))
        throw error
      }
      await assertNoPendingMigrations()
      await assertSameRelease()
    },
    closeDatabase: async () => {
      // An apply tells this build's matcher cache that terms changed, and it starts rebuilding (what a web
      // process needs): let that finish before the database closes under it.
      await matcherCache.whenIdle()
      await stopCompileWorker()
      await closeDb()
    },
  })
}

/**
 * `glossary backup|verify-backup|restore` (app/server/backup-cli.server.ts); resolves with the exit code. Logs
 * go to stderr, so stdout holds only what it prints (a JSON report). `backup` reads the database through the
 * database module, whatever its schema (a backup before an upgrade has migrations pending); verify and restore
 * open their own scratch or target database.
 */
export async function backup(command: BackupCommand, args: readonly string[]): Promise<number> {
  const config = getConfig()
  if (config.logLevel !== 'silent') {
    setLogDestination(pino.destination({ dest: 2, sync: true }), config.logLevel)
  }
  return backupCli(command, args, { openDatabase, closeDatabase: closeDb })
}
