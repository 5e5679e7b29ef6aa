import type { TableStats } from './manifest.ts'

/**
 * The SQL a backup's manifest is made of and checked with, on any of the three connections it runs on (the
 * application's open database, a scratch PGlite, a `pg` client on a scratch or restored database): a session
 * that runs one statement without parameters, inside a transaction its caller opened.
 */
export interface SqlSession {
  query<T>(sql: string): Promise<T[]>
}

/**
 * Every output setting a row's text depends on, pinned for the transaction: a digest taken on one server reads
 * the same on another (or in PGlite) whatever their defaults. Needs an open transaction (`set local`).
 */
export const PIN_TEXT_OUTPUT = [
  "set local timezone = 'UTC'",
  "set local datestyle = 'ISO, MDY'",
  "set local intervalstyle = 'postgres'",
  'set local extra_float_digits = 1',
  "set local bytea_output = 'hex'",
]

/** Every table of the public schema (the migrations' tables, mikro_orm_migrations and any added later). */
export async function publicTables(session: SqlSession): Promise<string[]> {
  const rows = await session.query<{ name: string }>(
    `select c.relname as name from pg_class c join pg_namespace n on n.oid = c.relnamespace
      where n.nspname = 'public' and c.relkind in ('r', 'p') and not c.relispartition
      order by c.relname collate "C"`,
  )
  return rows.map((r) => r.name)
}

function quoteIdent(name: string): string {
  return `"${name.replace(/"/g, '""')}"`
}

/**
 * The text a row is digested as: its columns in a row constructor, a pgvector column as the md5 of its binary
 * form (`vector_send`, network byte order: the same on every server) rather than its text. Printing 1536 floats
 * as text is most of the cost on the chunk tables (about 5× as slow on PGlite, measured on 5,000 chunks).
 */
async function rowExpressions(session: SqlSession): Promise<Map<string, string>> {
  const columns = await session.query<{ table_name: string; column_name: string; type_name: string }>(
    `select c.relname as table_name, a.attname as column_name, ty.typname as type_name
       from pg_class c join pg_namespace n on n.oid = c.relnamespace
       join pg_attribute a on a.attrelid = c.oid and a.attnum > 0 and not a.attisdropped
       join pg_type ty on ty.oid = a.atttypid
      where n.nspname = 'public' and c.relkind in ('r', 'p') and not c.relispartition
      order by c.relname, a.attnum`,
  )
  const byTable = new Map<string, string[]>()
  for (const { table_name, column_name, type_name } of columns) {
    const column = `t.${quoteIdent(column_name)}`
    const list = byTable.get(table_name) ?? []
    list.push(type_name === 'vector' ? `md5(vector_send(${column}))` : column)
    byTable.set(table_name, list)
  }
  return new Map([...byTable].map(([table, list]) => [table, `row(${list.join(', ')})::text`]))
}

/**
 * Row count and content digest of every public table: the sum of the first 60 bits of md5 of each row's text
 * (`rowExpressions`). A sum does not depend on the order rows are read in (a restore stores them elsewhere), and
 * 60 bits keep each term in a bigint. The caller has opened a transaction; the output settings are pinned in it
 * first.
 */
export async function tableStats(session: SqlSession): Promise<TableStats[]> {
  for (const statement of PIN_TEXT_OUTPUT) await session.query(statement)
  const rows = await rowExpressions(session)
  const out: TableStats[] = []
  for (const name of await publicTables(session)) {
    const [row] = await session.query<{ rows: string; digest: string }>(
      `select count(*)::text as rows,
              coalesce(sum(('x' || substr(md5(${rows.get(name) ?? 't::text'}), 1, 15))::bit(60)::bigint), 0)::text
                as digest
         from ${quoteIdent(name)} t`,
    )
    out.push({ name, rows: Number(row!.rows), digest: row!.digest })
  }
  return out
}

/** Names of the applied migrations, in the order they were applied (none when the table is missing). */
export async function appliedMigrations(session: SqlSession): Promise<string[]> {
  const tables = await publicTables(session)
  if (!tables.includes('mikro_orm_migrations')) return []
  const rows = await session.query<{ name: string }>('select name from mikro_orm_migrations order by id')
  return rows.map((r) => r.name)
}

export async function serverVersion(session: SqlSession): Promise<string> {
  const [row] = await session.query<{ server_version: string }>('show server_version')
  return row?.server_version ?? 'unknown'
}
