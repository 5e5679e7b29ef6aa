import fs from 'node:fs'
import path from 'node:path'
import { PGlite } from '@electric-sql/pglite'
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm'
import { vector } from '@electric-sql/pglite/vector'
import { MikroORM, type Options, type MigrationObject } from '@mikro-orm/core'
import { Migrator } from '@mikro-orm/migrations'
import type { EntityManager } from '@mikro-orm/postgresql'
import type { PoolConfig } from 'pg'
import { MIGRATIONS } from '../migrations/index.ts'
import { BoundPGliteDriver, BoundPostgreSqlDriver } from './drivers.ts'
import { ENTITIES } from './entities/index.ts'
import { SettingsPool } from './settings-pool.ts'

/**
 * The database: a native PostgreSQL when DATABASE_URL is set, otherwise embedded PGlite (Postgres 17 + pgvector
 * compiled to WASM) in GLOSSARY_DATA_DIR/db. Same entities, same migrations, same SQL on both, every value
 * bound as a parameter on both (`drivers.ts`, decision 023).
 *
 * PGlite has ONE connection (knex pool max 1), so transactions run one after another. Inside a transaction,
 * always use the transaction's EntityManager: a query on another one would wait for the connection forever.
 */
export interface Db {
  orm: MikroORM
  /** The global EntityManager; fork it (or use `em()`) for a unit of work. */
  em: EntityManager
  /** The embedded engine when there is one (tests and `close()` use it). */
  pglite: PGlite | undefined
  /** True when committed changes are observed (see `onCommittedChange`). */
  observesChanges: boolean
  /** Pools of connections with session settings of their own, by name (`settingsPool`). */
  settingsPools: Map<string, SettingsPool>
}

/**
 * Channels the schema's triggers notify on commit (migrations: `credentials_changed` when an API key or a user
 * changes, `glossary_changed` when the glossary version moves). The embedded database listens to all of them
 * from the moment it opens.
 */
export const CHANGE_CHANNELS = ['credentials_changed', 'glossary_changed'] as const
export type ChangeChannel = (typeof CHANGE_CHANNELS)[number]

const changeListeners = new Map<ChangeChannel, Set<() => void>>()

/**
 * Calls `listener` after every committed transaction that notified `channel`, and when the database closes.
 * Only the embedded database delivers these in time to matter: this process is its only writer, and PGlite
 * runs the listener as part of the COMMIT that sent the notification, before the committing code goes on. On
 * PostgreSQL other processes write too, so nothing is observed there: check `observesCommittedChanges()`
 * before trusting a cache that relies on this.
 */
export function onCommittedChange(channel: ChangeChannel, listener: () => void): () => void {
  let set = changeListeners.get(channel)
  if (!set) changeListeners.set(channel, (set = new Set()))
  set.add(listener)
  return () => set.delete(listener)
}

/** Whether every committed change of the open database reaches `onCommittedChange` listeners at commit. */
export function observesCommittedChanges(): boolean {
  return current?.observesChanges ?? false
}

function notifyChange(channel: ChangeChannel): void {
  for (const listener of changeListeners.get(channel) ?? []) listener()
}

export interface InitDbOptions {
  /** `postgres://…` of a PostgreSQL server; without it the embedded engine is used. */
  databaseUrl?: string
  /** Where the embedded database lives on disk (`<dataDir>/db`); without it (and without `pglite`), in memory. */
  dataDir?: string
  /** An already opened PGlite (tests load a migrated template into memory). */
  pglite?: PGlite
  /** Migrations to use instead of `MIGRATIONS` (tests of the migrator). */
  migrations?: MigrationObject[]
  /** Receives MikroORM's debug messages (the app passes its logger; db/ depends on nothing of app/). */
  debugLog?: (message: string) => void
}

let current: Db | undefined
let opening: Promise<Db> | undefined

export function embeddedDataPath(dataDir: string): string {
  return path.join(dataDir, 'db')
}

/** Another live process holds the embedded database: an operator's situation, reported without a stack. */
export class DataDirInUseError extends Error {
  override name = 'DataDirInUseError'
}

/**
 * Opens the embedded database with the extensions the schema needs. An on-disk database is locked to this
 * process (PGlite is single-process: a second writer would corrupt it); the lock goes with `closeDb()`.
 */
export async function openPglite(dataPath?: string, loadDataDir?: Blob): Promise<PGlite> {
  if (dataPath) {
    fs.mkdirSync(dataPath, { recursive: true })
    lockDataDir(dataPath)
  }
  try {
    return await PGlite.create({ dataDir: dataPath, loadDataDir, extensions: { vector, pg_trgm } })
  } catch (error) {
    if (dataPath) unlockDataDir(dataPath)
    throw error
  }
}

const locks = new Set<string>()

function lockPath(dataPath: string): string {
  return path.join(path.dirname(dataPath), `${path.basename(dataPath)}.lock`)
}

function lockDataDir(dataPath: string): void {
  const file = lockPath(dataPath)
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      fs.writeFileSync(file, String(process.pid), { flag: 'wx' })
      locks.add(dataPath)
      return
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
      const pid = Number(fs.readFileSync(file, 'utf8'))
      if (pid && pid !== process.pid && isAlive(pid)) {
        throw new DataDirInUseError(
          `The embedded database in ${dataPath} is in use by another glossary process (pid ${pid}). ` +
            'Stop it first, or set DATABASE_URL to share a PostgreSQL server between processes.',
        )
      }
      fs.rmSync(file, { force: true }) // left behind by a process that died
    }
  }
  throw new Error(`Could not lock ${dataPath}.`)
}

function unlockDataDir(dataPath: string): void {
  if (locks.delete(dataPath)) fs.rmSync(lockPath(dataPath), { force: true })
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM'
  }
}

function ormOptions(pglite: PGlite | undefined, options: InitDbOptions): Options {
  const common: Options = {
    entities: ENTITIES,
    discovery: { disableDynamicFileAccess: true, requireEntitiesArray: true },
    extensions: [Migrator],
    migrations: {
      migrationsList: options.migrations ?? MIGRATIONS,
      tableName: 'mikro_orm_migrations',
      transactional: true,
      allOrNothing: true,
      snapshot: false,
      emit: 'ts',
      path: 'migrations',
    },
    allowGlobalContext: false,
    forceUtcTimezone: true,
    debug: false,
    logger: options.debugLog ?? (() => undefined),
  }
  if (options.databaseUrl) {
    return {
      ...common,
      driver: BoundPostgreSqlDriver,
      clientUrl: options.databaseUrl,
      pool: { min: 0, max: 10 },
    }
  }
  return {
    ...common,
    driver: BoundPGliteDriver,
    dbName: 'postgres',
    driverOptions: { connection: { pglite: () => pglite! } },
  } as Options
}

/** Opens (once) and returns the database of this process. */
export async function initDb(options: InitDbOptions = {}): Promise<Db> {
  if (current) return current
  opening ??= (async () => {
    let pglite = options.pglite
    if (!options.databaseUrl && !pglite) {
      pglite = await openPglite(options.dataDir === undefined ? undefined : embeddedDataPath(options.dataDir))
    }
    const orm = await MikroORM.init(ormOptions(pglite, options))
    if (pglite) {
      for (const channel of CHANGE_CHANNELS) await pglite.listen(channel, () => notifyChange(channel))
    }
    current = {
      orm,
      em: orm.em as EntityManager,
      pglite,
      observesChanges: Boolean(pglite),
      settingsPools: new Map(),
    }
    return current
  })()
  try {
    return await opening
  } finally {
    opening = undefined
  }
}

/** The open database; throws when `initDb` has not run (a programming error). */
export function getDb(): Db {
  if (!current) throw new Error('The database is not open: call initDb() first.')
  return current
}

/** A fresh EntityManager for one unit of work. */
export function em(): EntityManager {
  return getDb().em.fork()
}

/** Connections of a settings pool at most, per process: searches beside the ORM's pool of 10. */
const SETTINGS_POOL_MAX = 4
/** A connection that searched keeps its mapped shared buffers warm (bench/rag-search.bench.ts `WARMUP`). */
const SETTINGS_POOL_IDLE_MS = 10 * 60_000

/**
 * On PostgreSQL, the pool `name` of connections whose sessions start with `settings` (db/settings-pool.ts;
 * `application_name` `glossary-<name>`), opened on first use with the ORM's connection options and closed with
 * the database; a name keeps the settings it was first opened with. Undefined on the embedded engine: its one
 * connection serves everything, so settings there are set per transaction.
 */
export function settingsPool(name: string, settings: Record<string, string>): SettingsPool | undefined {
  const db = getDb()
  if (db.pglite) return undefined
  let pool = db.settingsPools.get(name)
  if (!pool) {
    pool = new SettingsPool({
      applicationName: `glossary-${name}`,
      connection: db.orm.em.getConnection().getConnectionOptions() as PoolConfig,
      settings,
      max: SETTINGS_POOL_MAX,
      idleMs: SETTINGS_POOL_IDLE_MS,
    })
    db.settingsPools.set(name, pool)
  }
  return pool
}

/** Closes the ORM and the embedded engine cleanly, so a restarted PGlite needs no recovery. */
export async function closeDb(): Promise<void> {
  const db = current
  current = undefined
  if (!db) return
  await Promise.all([...db.settingsPools.values()].map((pool) => pool.close()))
  await db.orm.close(true)
  if (db.pglite && !db.pglite.closed) await db.pglite.close()
  // One process holds one database at a time, so every lock it holds goes with it.
  for (const dataPath of [...locks]) unlockDataDir(dataPath)
  // Whatever was cached from this database is stale for the next one.
  for (const channel of CHANGE_CHANNELS) notifyChange(channel)
}
