import type { Migrator } from '@mikro-orm/migrations'
import { getDb } from './orm.ts'

function migrator(): Migrator {
  return getDb().orm.getMigrator() as Migrator
}

/** Names of migrations not applied yet. */
export async function pendingMigrations(): Promise<string[]> {
  return (await migrator().getPendingMigrations()).map((m) => m.name)
}

/**
 * Applies every pending migration in ONE transaction (MikroORM's `allOrNothing`): when any fails, the schema is
 * left as it was and the error is thrown (`MissingExtensionsError` when the role may not create an extension).
 */
export async function applyMigrations(): Promise<string[]> {
  try {
    const applied = await migrator().up()
    return applied.map((m) => m.name)
  } catch (error) {
    const extension = extensionRefused(error)
    if (extension === undefined) throw error
    throw new MissingExtensionsError(await connectedAs(), extension)
  }
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
