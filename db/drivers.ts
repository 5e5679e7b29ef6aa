import {
  AbstractSqlDriver,
  PostgreSqlConnection,
  PostgreSqlPlatform,
  type AbstractSqlConnection,
  type Configuration,
  type Knex,
} from '@mikro-orm/postgresql'
import type { PGliteInterface } from '@electric-sql/pglite'
import { PGliteConnection, PGliteKnexDialect } from 'mikro-orm-pglite'

/**
 * The two MikroORM drivers of the service, PostgreSQL (node-postgres) and embedded PGlite, changed in one way:
 * every value of `em.execute(sql, params)` reaches the engine as a bound parameter (decision 023).
 *
 * MikroORM 6's `execute` writes the parameters into the SQL text (`platform.formatQuery`, quoted by its own
 * escaping) and hands knex a statement without bindings. On PostgreSQL that is escaping instead of binding; on
 * PGlite it changed answers, because the knex-pglite dialect runs a statement whose text holds a `;` as several
 * statements through the simple protocol (`exec`), which answers a list of results: `GET /terms?q=a;b` answered
 * `{"items":[],"total":1}`, and a sign-in with `a;b@x.test` was a 500. Here `execute` hands knex the SQL with
 * its `?` placeholders and the values apart (`knex.raw(sql, bindings)`), so both engines receive the same
 * text with `$1…$n` and the values through the extended protocol, and a value can never change a statement.
 */

type Method = 'all' | 'get' | 'run'

/** What `AbstractSqlConnection.execute` reaches of the connection (protected members, typed here once). */
interface ConnectionInternals {
  ensureConnection(): Promise<void>
  getKnex(): Knex
  getSql(query: string, formatted: string, loggerContext?: unknown): string
  executeQuery<T>(query: string, cb: () => Promise<T>, context?: unknown): Promise<T>
  transformRawResult<T>(res: unknown, method: Method): T
  platform: PostgreSqlPlatform
  config: Configuration
  logger: { isEnabled(namespace: 'query', context?: Record<string, unknown>): boolean }
}

async function executeBound<T>(
  connection: ConnectionInternals,
  queryOrKnex: string | Knex.QueryBuilder | Knex.Raw,
  params: readonly unknown[] = [],
  method: Method = 'all',
  ctx?: Knex.Transaction | null,
  loggerContext?: Record<string, unknown>,
): Promise<T> {
  await connection.ensureConnection()
  let sql: string
  let values: unknown[]
  if (typeof queryOrKnex === 'string') {
    sql = queryOrKnex
    values = [...params]
  } else {
    // A knex builder (MikroORM's own queries): knex already keeps its values apart.
    const builder = queryOrKnex as Knex.QueryBuilder & { client: { transacting?: boolean } }
    ctx ??= builder.client.transacting ? (builder as unknown as Knex.Transaction) : null
    const compiled = builder.toSQL()
    sql = compiled.sql
    values = [...(compiled.bindings ?? [])]
  }
  sql = connection.config.get('onQuery')(sql, values)
  // knex refuses `undefined` bindings; MikroORM's inlining wrote them as NULL, and so do we.
  const bindings = values.map((value) => (value === undefined ? null : value)) as Knex.RawBinding[]
  // Only the log line shows the values written in (MikroORM's own formatting, for debug logs), and only when the
  // query log is on: formatting escapes every value into the text, which for a batch's JSON parameter of
  // megabytes cost seconds per sync apply (bench/sync.bench.ts) to make a line nobody logs.
  const logged = connection.logger.isEnabled('query', loggerContext)
    ? connection.getSql(sql, connection.platform.formatQuery(sql, bindings), loggerContext)
    : sql
  return connection.executeQuery(
    logged,
    async () => {
      const query = bindings.length ? connection.getKnex().raw(sql, bindings) : connection.getKnex().raw(sql)
      if (ctx) query.transacting(ctx)
      return connection.transformRawResult<T>(await query, method)
    },
    { query: sql, params: bindings, ...loggerContext },
  )
}

class BoundPostgreSqlConnection extends PostgreSqlConnection {
  override execute<T>(...args: Parameters<AbstractSqlConnection['execute']>): Promise<T> {
    return executeBound<T>(this as unknown as ConnectionInternals, ...args)
  }
}

/** PostgreSQL through node-postgres, values bound. */
export class BoundPostgreSqlDriver extends AbstractSqlDriver<BoundPostgreSqlConnection> {
  constructor(config: Configuration) {
    super(config, new PostgreSqlPlatform(), BoundPostgreSqlConnection, ['knex', 'pg'])
  }
}

/**
 * The knex-pglite dialect, except that a statement with values always runs as ONE statement with its values
 * bound. The dialect's own rule (a raw statement whose text splits on `;` into several parts runs through
 * `exec`, without its values) stays for statements without values: the migrations' multi-statement scripts.
 */
/** knex's query object as the knex-pglite dialect receives it (sql, bindings, method, response). */
type QueryObject = Parameters<PGliteKnexDialect['_query']>[1]

class BoundPGliteKnexDialect extends PGliteKnexDialect {
  override async _query(connection: PGliteInterface, obj: QueryObject): Promise<QueryObject> {
    if (obj.bindings?.length) {
      if (!obj.sql) throw new Error('The query is empty.')
      obj.response = await connection.query(obj.sql, obj.bindings as unknown[])
      return obj
    }
    return super._query(connection, obj)
  }
}

class BoundPGliteConnection extends PGliteConnection {
  /** `PGliteConnection.createKnex` with our dialect in place of `PGliteKnexDialect`. */
  override createKnex(): void {
    this.client = this.createKnexClient(BoundPGliteKnexDialect as never)
    const dialect = this.getKnex().client as unknown as { ormConfig: unknown; driver: unknown }
    dialect.ormConfig = this.config
    dialect.driver = (this as unknown as { dialectDataSource: unknown }).dialectDataSource
    this.connected = true
  }

  override execute<T>(...args: Parameters<AbstractSqlConnection['execute']>): Promise<T> {
    return executeBound<T>(this as unknown as ConnectionInternals, ...args)
  }
}

/** Embedded PGlite (one connection), values bound. */
export class BoundPGliteDriver extends AbstractSqlDriver<BoundPGliteConnection> {
  constructor(config: Configuration) {
    super(config, new PostgreSqlPlatform(), BoundPGliteConnection, ['knex', '@electric-sql/pglite'])
  }
}
