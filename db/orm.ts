import fs from 'node:fs'
import path from 'node:path'
import { PGlite } from '@electric-sql/pglite'
import { vector } from '@electric-sql/pglite/vector'
import { MikroORM, type Options, type MigrationObject } from '@mikro-orm/core'
import { Migrator } from '@mikro-orm/migrations'
import { PostgreSqlDriver, type EntityManager } from '@mikro-orm/postgresql'
import { PGliteDriver } from 'mikro-orm-pglite'
import { getConfig } from '#app/lib/config.server.ts'
import { log } from '#app/lib/logger.server.ts'
import { MIGRATIONS } from '../migrations/index.ts'
import { ENTITIES } from './entities/index.ts'

/**
 * The database: a native PostgreSQL when DATABASE_URL is set, otherwise embedded PGlite (Postgres 17 + pgvector
 * compiled to WASM) in GLOSSARY_DATA_DIR/db. Same entities, same migrations, same SQL on both.
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
}

export interface InitDbOptions {
  /** An already opened PGlite (tests load a migrated template into memory). */
  pglite?: PGlite
  /** Migrations to use instead of `MIGRATIONS` (tests of the migrator). */
  migrations?: MigrationObject[]
}

let current: Db | undefined
let opening: Promise<Db> | undefined

export function embeddedDataPath(dataDir = getConfig().dataDir): string {
  return path.join(dataDir, 'db')
}

/** Opens the embedded database with the extensions the schema needs. */
export async function openPglite(dataPath?: string, loadDataDir?: Blob): Promise<PGlite> {
  if (dataPath) fs.mkdirSync(dataPath, { recursive: true })
  return PGlite.create({ dataDir: dataPath, loadDataDir, extensions: { vector } })
}

function ormOptions(pglite: PGlite | undefined, migrations: MigrationObject[]): Options {
  const config = getConfig()
  const common: Options = {
    entities: ENTITIES,
    discovery: { disableDynamicFileAccess: true, requireEntitiesArray: true },
    extensions: [Migrator],
    migrations: {
      migrationsList: migrations,
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
    logger: (message) => log().debug({ orm: message }),
  }
  if (config.databaseUrl) {
    return { ...common, driver: PostgreSqlDriver, clientUrl: config.databaseUrl, pool: { min: 0, max: 10 } }
  }
  return {
    ...common,
    driver: PGliteDriver,
    dbName: 'postgres',
    driverOptions: { connection: { pglite: () => pglite! } },
  } as Options
}

/** Opens (once) and returns the database of this process. */
export async function initDb(options: InitDbOptions = {}): Promise<Db> {
  if (current) return current
  opening ??= (async () => {
    const config = getConfig()
    let pglite = options.pglite
    if (!config.databaseUrl && !pglite) pglite = await openPglite(embeddedDataPath())
    const orm = await MikroORM.init(ormOptions(pglite, options.migrations ?? MIGRATIONS))
    current = { orm, em: orm.em as EntityManager, pglite }
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

/** Closes the ORM and the embedded engine cleanly, so a restarted PGlite needs no recovery. */
export async function closeDb(): Promise<void> {
  const db = current
  current = undefined
  if (!db) return
  await db.orm.close(true)
  if (db.pglite && !db.pglite.closed) await db.pglite.close()
}
