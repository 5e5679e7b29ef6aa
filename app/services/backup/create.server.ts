import fs from 'node:fs'
import path from 'node:path'
import { IsolationLevel } from '@mikro-orm/core'
import { getDb } from '#db/orm.ts'
import { RELEASE } from '#domain/release.ts'
import { fileDigest, writeArchive } from './archive.server.ts'
import { BackupError } from './errors.ts'
import { encryptionKeyLocation } from './key.server.ts'
import { DUMP_FILES, type BackupEngine, type Manifest, type TableStats } from './manifest.ts'
import { assertToolFits, pgDump } from './pg-tools.server.ts'
import { ormSession } from './sessions.server.ts'
import { appliedMigrations, serverVersion, tableStats, type SqlSession } from './table-stats.server.ts'

/**
 * `glossary backup` (issue 31): one file holding a consistent snapshot of the whole database and its manifest,
 * taken through the database this process has open (`glossary start` calls it before a pending migration).
 * Embedded: PGlite's own dump of its data directory, taken while this process's only connection is held by the
 * transaction that computed the manifest, so nothing writes in between. PostgreSQL: `pg_dump` of a snapshot
 * exported by the repeatable-read transaction that computed the manifest, held open while it runs.
 */

export interface BackupResult {
  file: string
  bytes: number
  manifest: Manifest
  /** Where the encryption key is (never in the file). */
  key: string
}

interface Snapshot {
  tables: TableStats[]
  migrations: string[]
  serverVersion: string
  databaseRelease: string | null
}

async function readSnapshot(session: SqlSession): Promise<Snapshot> {
  const tables = await tableStats(session)
  const [recorded] = tables.some((t) => t.name === 'glossary_release')
    ? await session.query<{ release: string }>('select release from glossary_release')
    : []
  return {
    serverVersion: await serverVersion(session),
    migrations: await appliedMigrations(session),
    tables,
    databaseRelease: recorded?.release ?? null,
  }
}

async function dumpPglite(dumpFile: string): Promise<Snapshot> {
  const db = getDb()
  const pglite = db.pglite!
  return db.em.fork().transactional(async (tx) => {
    const snapshot = await readSnapshot(ormSession(tx))
    // The data files then hold every committed change: a restore needs no WAL replay. Without recycling, the
    // checkpoint removes the WAL segments it no longer needs instead of keeping them for reuse: PGlite's dump
    // is the whole data directory, and after a busy day those segments were most of it (measured on a data
    // directory of 927 MB with 436 MB of WAL: pg_wal 436 → 1 MB, the dump 52 → 24 MB and 12.6 → 6.8 s).
    await tx.execute('set local wal_recycle = off')
    await tx.execute('checkpoint')
    const dump = await pglite.dumpDataDir('gzip')
    fs.writeFileSync(dumpFile, Buffer.from(await dump.arrayBuffer()))
    return snapshot
  })
}

async function dumpPostgres(dumpFile: string): Promise<Snapshot> {
  const db = getDb()
  const databaseUrl = db.orm.config.get('clientUrl')
  if (!databaseUrl) throw new Error('The open PostgreSQL database has no client URL.')
  const [{ num }] = await db.em
    .fork()
    .execute<{ num: string }[]>("select current_setting('server_version_num') as num")
  const serverMajor = Math.floor(Number(num) / 10000)
  // Before anything is read: a missing or old client is the one line the operator sees.
  await assertToolFits('pg_dump', serverMajor)
  return db.em.fork().transactional(
    async (tx) => {
      const [{ snapshot }] = await tx.execute<{ snapshot: string }[]>(
        'select pg_export_snapshot() as snapshot',
      )
      const read = await readSnapshot(ormSession(tx))
      await pgDump(databaseUrl, dumpFile, snapshot, serverMajor)
      return read
    },
    { isolationLevel: IsolationLevel.REPEATABLE_READ, readOnly: true },
  )
}

/** Writes a backup of the open database to `out` (refused when it exists); a failure leaves no file there. */
export async function createBackup(out: string): Promise<BackupResult> {
  const file = path.resolve(out)
  const dir = path.dirname(file)
  if (fs.existsSync(file)) throw new BackupError(`${file} exists: choose a new file name for the backup.`)
  if (!fs.existsSync(dir) || !fs.statSync(dir).isDirectory())
    throw new BackupError(`The folder ${dir} does not exist: create it first or choose another --out.`)
  const engine: BackupEngine = getDb().pglite ? 'pglite' : 'postgres'
  // Beside the target: a large dump is written once, on the file system it ends up on.
  const work = fs.mkdtempSync(path.join(dir, '.glossary-backup-'))
  try {
    const dumpFile = path.join(work, DUMP_FILES[engine])
    const snapshot = engine === 'pglite' ? await dumpPglite(dumpFile) : await dumpPostgres(dumpFile)
    const manifest: Manifest = {
      format: 'glossary-backup',
      formatVersion: 1,
      release: RELEASE,
      databaseRelease: snapshot.databaseRelease,
      createdAt: new Date().toISOString(),
      engine,
      serverVersion: snapshot.serverVersion,
      migrations: snapshot.migrations,
      tables: snapshot.tables,
      dump: { file: DUMP_FILES[engine], ...(await fileDigest(dumpFile)) },
    }
    await writeArchive(file, work, manifest)
    return { file, bytes: fs.statSync(file).size, manifest, key: encryptionKeyLocation().where }
  } finally {
    fs.rmSync(work, { recursive: true, force: true })
  }
}
