import pg from 'pg'
import { isConnectionLost } from './sql.ts'

/**
 * A small pool of PostgreSQL connections whose sessions start with fixed settings (`-c name=value` at connect),
 * for statements that need planner settings of their own: the search store's nearest-neighbour statements
 * (decision 016, "Speed on PostgreSQL"). Through the ORM such a statement needs a transaction to `set local`
 * its settings (BEGIN, the settings, the statement, COMMIT): four round trips and a knex transaction, which cost
 * a search 1–2 ms of the service's CPU and 1–4 ms of its latency (bench/rag-search.bench.ts). Here it is one
 * round trip. These connections run nothing else, so their session settings reach no other statement.
 *
 * Settings that vary by statement (`session`) are set for the session when the connection's differ, and
 * remembered per connection. A statement that fails because its connection was lost (the server restarted,
 * `pg_terminate_backend`) runs once more on another: what runs here only reads.
 */
export interface SettingsPoolOptions {
  /** Its connections' `application_name` (what `pg_stat_activity` shows an operator). */
  applicationName: string
  /** node-postgres options of the service's connections (the ORM's: address, credentials, type parsers). */
  connection: pg.PoolConfig
  /** Settings every session starts with. */
  settings: Record<string, string>
  /** Most connections open at once. */
  max: number
  /** How long an unused connection stays open. */
  idleMs: number
}

/** `?` placeholders (the ORM's) as PostgreSQL's `$1…$n`; the statements here hold no `?` of their own. */
function positional(sql: string): string {
  let n = 0
  return sql.replace(/\?/g, () => `$${++n}`)
}

export class SettingsPool {
  readonly #pool: pg.Pool
  /** The varying settings each open connection's session has now. */
  readonly #sessions = new WeakMap<pg.PoolClient, Map<string, string>>()

  constructor(options: SettingsPoolOptions) {
    const startup = Object.entries(options.settings)
      .map(([name, value]) => `-c ${name}=${value}`)
      .join(' ')
    this.#pool = new pg.Pool({
      ...options.connection,
      options: [options.connection.options, startup].filter(Boolean).join(' '),
      application_name: options.applicationName,
      max: options.max,
      idleTimeoutMillis: options.idleMs,
    })
    // An idle connection the server closed: the pool drops it and the next statement opens another. Without a
    // listener the error would end the process.
    this.#pool.on('error', () => undefined)
  }

  /** The rows of `sql` (`?` placeholders), on a connection whose session has `session` set. */
  async query<T>(
    sql: string,
    params: readonly unknown[],
    session: Record<string, string> = {},
  ): Promise<T[]> {
    try {
      return await this.#run<T>(sql, params, session)
    } catch (error) {
      if (!isConnectionLost(error)) throw error
      return this.#run<T>(sql, params, session)
    }
  }

  async #run<T>(sql: string, params: readonly unknown[], session: Record<string, string>): Promise<T[]> {
    const client = await this.#pool.connect()
    let lost: Error | undefined
    try {
      let current = this.#sessions.get(client)
      if (!current) this.#sessions.set(client, (current = new Map()))
      const changes = Object.entries(session).filter(([name, value]) => current.get(name) !== value)
      if (changes.length > 0) {
        for (const [name] of changes) current.delete(name) // unknown until the statement below succeeds
        await client.query(
          `select ${changes.map((_, i) => `set_config($${2 * i + 1}, $${2 * i + 2}, false)`).join(', ')}`,
          changes.flat(),
        )
        for (const [name, value] of changes) current.set(name, value)
      }
      const result = await client.query(positional(sql), params as unknown[])
      return result.rows as T[]
    } catch (error) {
      if (isConnectionLost(error)) lost = error as Error
      throw error
    } finally {
      // A lost connection is closed rather than handed to the next statement.
      client.release(lost)
    }
  }

  /** Its connections in use and idle, and the statements waiting for one (the metrics' `glossary_db_connections`). */
  usage(): { used: number; free: number; pending: number } {
    const pool = this.#pool
    return { used: pool.totalCount - pool.idleCount, free: pool.idleCount, pending: pool.waitingCount }
  }

  async close(): Promise<void> {
    await this.#pool.end()
  }
}
