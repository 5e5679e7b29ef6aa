import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { embeddedDataPath, openPglite } from '#db/orm.ts'
import { openArchive, type OpenedArchive } from './archive.server.ts'
import { checkRestored, type RestoredChecks } from './checks.server.ts'
import { BackupError } from './errors.ts'
import { pgRestore } from './pg-tools.server.ts'
import { databaseOf, inPgliteTransaction, inPostgresTransaction, onServer } from './sessions.server.ts'
import {
  checksumProblem,
  dumpBlob,
  ensureExtensions,
  report,
  serverMajor,
  type VerifyReport,
} from './verify.server.ts'

/**
 * `glossary restore` (issue 31): a backup into an EMPTY target only — never over live data — then the same
 * verification as `verify-backup`, against the restored database. Embedded: GLOSSARY_DATA_DIR/db missing or
 * empty. PostgreSQL: the DATABASE_URL database without any table in its public schema (extensions may exist: a
 * superuser creates vector and pg_trgm). A failed verification leaves the restored data there for inspection.
 */

export interface RestoreOptions {
  /** GLOSSARY_DATA_DIR: an embedded backup is restored into its `db` folder. */
  dataDir: string
  /** DATABASE_URL: a PostgreSQL backup is restored into its database. */
  databaseUrl?: string
}

function isEmptyDir(dir: string): boolean {
  return !fs.existsSync(dir) || (fs.statSync(dir).isDirectory() && fs.readdirSync(dir).length === 0)
}

/**
 * The lock openPglite takes on a data directory (db/orm.ts: `<dir>.lock` holding the pid) belongs to an open
 * database of this process; a restore closes its PGlite without the application's database module, so it
 * removes its own lock itself.
 */
function releaseLock(dataPath: string): void {
  const lock = path.join(path.dirname(dataPath), `${path.basename(dataPath)}.lock`)
  if (fs.existsSync(lock) && fs.readFileSync(lock, 'utf8').trim() === String(process.pid)) fs.rmSync(lock)
}

async function restorePglite(
  opened: OpenedArchive,
  dataDir: string,
): Promise<{ into: string; checks: RestoredChecks }> {
  const dataPath = path.resolve(embeddedDataPath(dataDir))
  if (!isEmptyDir(dataPath)) {
    throw new BackupError(
      `${dataPath} is not empty: restore writes only into a missing or empty data directory, never over a ` +
        'database; move it away or set GLOSSARY_DATA_DIR to a new folder.',
    )
  }
  const pglite = await openPglite(dataPath, await dumpBlob(opened))
  try {
    const checks = await inPgliteTransaction(pglite, (session) => checkRestored(session, opened.manifest))
    return { into: dataPath, checks }
  } finally {
    await pglite.close()
    releaseLock(dataPath)
  }
}

async function restorePostgres(
  opened: OpenedArchive,
  databaseUrl: string,
): Promise<{ into: string; checks: RestoredChecks }> {
  const url = new URL(databaseUrl)
  const into = `database "${databaseOf(databaseUrl)}" on ${url.hostname}:${url.port || 5432}`
  const result = (await onServer(databaseUrl, (c) =>
    c.raw(
      `select count(*)::int as n from pg_class c join pg_namespace n on n.oid = c.relnamespace
        where n.nspname = 'public' and c.relkind in ('r', 'p', 'v', 'm', 'S', 'f')`,
    ),
  )) as { rows: { n: number }[] }
  if (result.rows[0]!.n > 0) {
    throw new BackupError(
      `The ${into} (DATABASE_URL) is not empty: restore writes only into a database without any table in its ` +
        'public schema, never over live data; create a new database and point DATABASE_URL at it.',
    )
  }
  await ensureExtensions(databaseUrl, `the ${into}`, 'restore')
  await pgRestore(databaseUrl, databaseOf(databaseUrl), opened.dumpPath, await serverMajor(databaseUrl))
  return { into, checks: await inPostgresTransaction(databaseUrl, (s) => checkRestored(s, opened.manifest)) }
}

/** Restores `file` into the empty target and verifies it; a target that is not empty is refused, untouched. */
export async function restoreBackup(file: string, options: RestoreOptions): Promise<VerifyReport> {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'glossary-restore-'))
  try {
    const opened = await openArchive(file, work)
    const corrupted = checksumProblem(opened)
    if (corrupted.length) throw new BackupError(`${corrupted[0]}; nothing was restored.`)
    if (opened.manifest.engine === 'pglite' && options.databaseUrl) {
      throw new BackupError(
        `${file} is a backup of the embedded database: restore it without DATABASE_URL, into an empty GLOSSARY_DATA_DIR.`,
      )
    }
    if (opened.manifest.engine === 'postgres' && !options.databaseUrl) {
      throw new BackupError(
        `${file} is a backup of a PostgreSQL database: set DATABASE_URL to an empty database to restore it into.`,
      )
    }
    const { into, checks } =
      opened.manifest.engine === 'pglite'
        ? await restorePglite(opened, options.dataDir)
        : await restorePostgres(opened, options.databaseUrl!)
    return { ...report(path.resolve(file), opened, checks, []), restoredInto: into }
  } finally {
    fs.rmSync(work, { recursive: true, force: true })
  }
}
