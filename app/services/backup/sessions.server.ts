import type { PGlite } from '@electric-sql/pglite'
import type { EntityManager } from '@mikro-orm/postgresql'
import { knex, type Knex } from '@mikro-orm/knex'
import type { SqlSession } from './table-stats.server.ts'

/**
 * One transaction on each of the connections a backup reads through (table-stats.server.ts's `SqlSession`):
 * the application's open database (its EntityManager), a PGlite that is not the application's (a scratch
 * load, a restored data directory), a PostgreSQL database by URL (a scratch or restored one). Read only: what
 * runs in them pins output settings and reads.
 */

export function ormSession(tx: EntityManager): SqlSession {
  return { query: <T>(sql: string) => tx.execute<T[]>(sql) }
}

export function inPgliteTransaction<T>(
  pglite: PGlite,
  work: (session: SqlSession) => Promise<T>,
): Promise<T> {
  return pglite.transaction((tx) => work({ query: async <R>(sql: string) => (await tx.query<R>(sql)).rows }))
}

/**
 * A connection of its own to `databaseUrl` (knex, the client MikroORM's PostgreSQL driver runs on: `pg` is not
 * a dependency of the application itself), closed after `work`.
 */
export async function onServer<T>(databaseUrl: string, work: (client: Knex) => Promise<T>): Promise<T> {
  const client = knex({ client: 'pg', connection: databaseUrl, pool: { min: 0, max: 1 } })
  try {
    return await work(client)
  } finally {
    await client.destroy()
  }
}

/** Runs `work` in one read-only repeatable-read transaction on `databaseUrl`. */
export function inPostgresTransaction<T>(
  databaseUrl: string,
  work: (session: SqlSession) => Promise<T>,
): Promise<T> {
  return onServer(databaseUrl, (client) =>
    client.transaction(
      (trx) => work({ query: async <R>(sql: string) => ((await trx.raw(sql)) as { rows: R[] }).rows }),
      { isolationLevel: 'repeatable read', readOnly: true },
    ),
  )
}

/** `databaseUrl` with another database name. */
export function withDatabase(databaseUrl: string, database: string): string {
  const url = new URL(databaseUrl)
  url.pathname = `/${encodeURIComponent(database)}`
  return url.toString()
}

/** The database a URL names (its user's name when it names none, as libpq does). */
export function databaseOf(databaseUrl: string): string {
  const url = new URL(databaseUrl)
  return decodeURIComponent(url.pathname.slice(1)) || decodeURIComponent(url.username) || 'postgres'
}
