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
 * left as it was and the error is thrown.
 */
export async function applyMigrations(): Promise<string[]> {
  const applied = await migrator().up()
  return applied.map((m) => m.name)
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
