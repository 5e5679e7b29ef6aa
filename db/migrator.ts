import type { Migrator } from '@mikro-orm/migrations'
import semver from 'semver'
import { RELEASE } from '../domain/release.ts'
import { getDb } from './orm.ts'

function migrator(): Migrator {
  return getDb().orm.getMigrator() as Migrator
}

/** Names of the migrations applied to the database, in order (none: a new database). */
export async function executedMigrations(): Promise<string[]> {
  return (await migrator().getExecutedMigrations()).map((m) => m.name)
}

/** Names of migrations not applied yet. */
export async function pendingMigrations(): Promise<string[]> {
  return (await migrator().getPendingMigrations()).map((m) => m.name)
}

/**
 * Applies every pending migration in ONE transaction (MikroORM's `allOrNothing`): when any fails, the schema is
 * left as it was and the error is thrown (`MissingExtensionsError` when the role may not create an extension).
 * Then records this code's release as the database's (`glossary_release`), also when nothing was pending: a
 * migrate that stopped between the two is completed by running it again. A database of a NEWER release is never
 * migrated by older code (`ReleaseMismatchError`): going back is a restore of the backup taken before the upgrade.
 */
export async function applyMigrations(): Promise<string[]> {
  const recorded = await databaseRelease()
  if (recorded && semver.valid(recorded.release) && semver.gt(recorded.release, RELEASE)) {
    throw new ReleaseMismatchError(recorded.release, 'migrate')
  }
  let applied: string[]
  try {
    applied = (await migrator().up()).map((m) => m.name)
  } catch (error) {
    const extension = extensionRefused(error)
    if (extension !== undefined) throw new MissingExtensionsError(await connectedAs(), extension)
    throw new MigrationFailedError(error, recorded?.release)
  }
  await recordRelease()
  return applied
}

/** What the database says about its release: the code that last migrated it (undefined before this table existed). */
export interface DatabaseRelease {
  release: string
  migrations: number
  lastMigration: string
  recordedAt: Date
}

/** The release recorded by the last `glossary migrate`; undefined when none is (a database never migrated). */
export async function databaseRelease(): Promise<DatabaseRelease | undefined> {
  if (!(await hasReleaseTable())) return undefined
  const [row] = await getDb()
    .em.getConnection()
    .execute<{ release: string; migrations: number; last_migration: string; recorded_at: Date | string }[]>(
      'select release, migrations, last_migration, recorded_at from glossary_release',
    )
  return (
    row && {
      release: row.release,
      migrations: row.migrations,
      lastMigration: row.last_migration,
      recordedAt: new Date(row.recorded_at),
    }
  )
}

async function hasReleaseTable(): Promise<boolean> {
  const [table] = await getDb()
    .em.getConnection()
    .execute<{ present: boolean }[]>(`select to_regclass('public.glossary_release') is not null as present`)
  return table?.present === true
}

/** Records this code's release; skipped for a migration list without the release table (the migrator's tests). */
async function recordRelease(): Promise<void> {
  if (!(await hasReleaseTable())) return
  const executed = await migrator().getExecutedMigrations()
  await getDb()
    .em.getConnection()
    .execute(
      `insert into glossary_release (id, release, migrations, last_migration, recorded_at)
       values (true, ?, ?, ?, now())
       on conflict (id) do update set release = excluded.release, migrations = excluded.migrations,
         last_migration = excluded.last_migration, recorded_at = excluded.recorded_at`,
      [RELEASE, executed.length, executed.at(-1)?.name ?? ''],
    )
}

/**
 * Why a process of this release may not run against the open database, or undefined when it may: the database's
 * release (recorded by the migrator) differs, older or newer. A database the migrator never recorded a release in
 * is refused too (it is older than the release check); `pendingMigrations` says the same of it in other words.
 */
export async function releaseMismatch(): Promise<string | undefined> {
  const recorded = await databaseRelease()
  if (recorded?.release === RELEASE) return undefined
  return releaseMessage(recorded?.release)
}

function releaseMessage(database: string | undefined, command?: 'migrate'): string {
  const theirs = database ? `release ${database}` : 'an older release (no release recorded)'
  if (command === 'migrate') {
    return (
      `The database is at ${theirs}, newer than this glossary (release ${RELEASE}): an older release never ` +
      'migrates a newer database. Run the newer release, or restore the backup taken before the upgrade ' +
      '(`glossary restore`).'
    )
  }
  const newer = database && semver.valid(database) && semver.gt(database, RELEASE)
  return (
    `The database is at ${theirs} and this glossary is release ${RELEASE}: the web, the worker and the migrator ` +
    'must run the same release. ' +
    (newer
      ? 'Stop this process and run the newer release everywhere.'
      : 'Run `glossary migrate` of this release (after a verified backup), or run the release the database has.')
  )
}

/** Thrown when the database's release is not this code's (web and worker at start, migrate over a newer one). */
export class ReleaseMismatchError extends Error {
  constructor(database: string | undefined, command?: 'migrate') {
    super(releaseMessage(database, command))
    this.name = 'ReleaseMismatchError'
  }
}

/** Web and worker at start: refuses a database of another release (after `assertNoPendingMigrations`). */
export async function assertSameRelease(): Promise<void> {
  const recorded = await databaseRelease()
  if (recorded?.release !== RELEASE) throw new ReleaseMismatchError(recorded?.release)
}

/**
 * The extensions the migrations create (`Migration20261121000000_init`: vector, `Migration20261121000600_trigram`:
 * pg_trgm). pgvector is not a trusted extension, so only a superuser may create it; an ordinary owner of the
 * database migrates once a superuser has created them.
 */
export const REQUIRED_EXTENSIONS = ['vector', 'pg_trgm'] as const

/** The statements a superuser runs, once, in the application's database. */
export function createExtensionStatements(): string {
  return REQUIRED_EXTENSIONS.map((name) => `create extension if not exists ${name};`).join(' ')
}

/**
 * Thrown by `applyMigrations` when a migration fails: every pending one ran in one transaction, so none of them
 * is applied and the database is as it was. The operator sees one line (bin/glossary.js) naming the migration
 * and the database's answer; the original error, with its stack, is the `cause` (logged by the caller).
 */
export class MigrationFailedError extends Error {
  constructor(error: unknown, release: string | undefined) {
    const migration = (error as { migration?: { name?: unknown } }).migration?.name
    let reason = error instanceof Error ? error.message : String(error)
    for (let cause = error; cause instanceof Error; cause = cause.cause) reason = cause.message
    // The driver's words end the message ("<the statement> - <what the database said>"); a statement may span
    // many lines and be long, so the line keeps its end.
    reason = reason.replace(/\s+/g, ' ').trim()
    if (reason.length > 400) reason = `…${reason.slice(-400)}`
    super(
      `Migration ${typeof migration === 'string' ? migration : '(unknown)'} failed: ${reason}. ` +
        `No pending migration was applied (they run in one transaction): the database is as it was` +
        `${release ? `, at release ${release}` : ''}, and this release (${RELEASE}) will not serve it until ` +
        '`glossary migrate` succeeds. Keep this message for the report.',
      { cause: error },
    )
    this.name = 'MigrationFailedError'
  }
}

/** Thrown by `applyMigrations` when the database lacks an extension its role may not create. */
export class MissingExtensionsError extends Error {
  constructor(
    where: { database: string; role: string } | undefined,
    public readonly extension: string,
  ) {
    const database = where ? `database "${where.database}"` : 'database'
    const role = where ? `role "${where.role}"` : 'role of DATABASE_URL'
    super(
      `The ${database} lacks the extension "${extension}" and its ${role} may not create it: a PostgreSQL ` +
        `superuser must run, once, in that database: ${createExtensionStatements()} Then run \`glossary migrate\` again.`,
    )
    this.name = 'MissingExtensionsError'
  }
}

/**
 * The extension a failed migration was refused (SQLSTATE 42501 on its `create extension`), if that is why it
 * failed. The statement is ours, so this reads the same whatever language the server reports errors in.
 */
function extensionRefused(error: unknown): string | undefined {
  for (let cause = error; cause instanceof Error; cause = cause.cause) {
    const code = (cause as { code?: unknown }).code
    const statement = /^create extension (?:if not exists )?"?([\w-]+)"?/i.exec(cause.message)
    if (code === '42501' && statement) return statement[1]
  }
  return undefined
}

async function connectedAs(): Promise<{ database: string; role: string } | undefined> {
  try {
    const [row] = await getDb()
      .em.getConnection()
      .execute<{ database: string; role: string }[]>(
        'select current_database() as database, current_user as role',
      )
    return row
  } catch {
    return undefined // the message then names neither; it still says what to run
  }
}

/** Thrown by web and worker when the schema is behind the code. */
export class PendingMigrationsError extends Error {
  constructor(public readonly pending: string[]) {
    super(
      `The database schema is not up to date: ${pending.length} migration(s) pending (${pending.join(', ')}). ` +
        'Run `glossary migrate` first.',
    )
    this.name = 'PendingMigrationsError'
  }
}

export async function assertNoPendingMigrations(): Promise<void> {
  const pending = await pendingMigrations()
  if (pending.length) throw new PendingMigrationsError(pending)
}
