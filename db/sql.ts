import type { EntityManager } from '@mikro-orm/postgresql'

/**
 * Small helpers every data-access module shares: how values travel into raw SQL (array literals, LIKE
 * patterns, JSON parameters, batches) and how common column types come back (timestamps, jsonb, a joined
 * user). They live in db/ because they know only SQL and the driver, nothing of the services' rules, so the
 * area stores (`app/services/<area>/store.server.ts`), the worker (`pipeline/`) and offline sync (`sync/`)
 * all import them from the same place. Decision 006: raw SQL, identical on PGlite and PostgreSQL.
 */

/** A timestamp column as ISO 8601 (node-postgres returns `Date`, some drivers text). */
export function iso(value: Date | string): string {
  return (value instanceof Date ? value : new Date(value)).toISOString()
}

/** `iso` for a nullable timestamp column. */
export function isoOrNull(value: Date | string | null): string | null {
  return value === null ? null : iso(value)
}

/** A `text[]` literal for `?::text[]`, every element quoted, so any string is safe (commas, braces, quotes). */
export function textArray(values: readonly string[]): string {
  return `{${values.map((v) => `"${v.replace(/["\\]/g, (c) => `\\${c}`)}"`).join(',')}}`
}

/** A `uuid[]` literal for `?::uuid[]` (ids are UUIDs: no character in them needs quoting). */
export function uuidArray(ids: readonly string[]): string {
  return `{${ids.join(',')}}`
}

/** A vector as pgvector's text form, for `?::vector` (every digit of each number, so nothing is lost before float4). */
export function vectorLiteral(vector: readonly number[]): string {
  return `[${vector.join(',')}]`
}

/** Escapes LIKE wildcards with `\` (PostgreSQL's default escape character for LIKE and ILIKE). */
export function likeEscape(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`)
}

/** A LIKE pattern that matches `text` anywhere, wildcards in `text` taken literally. */
export function containsPattern(text: string): string {
  return `%${likeEscape(text)}%`
}

/** jsonb comes back parsed from node-postgres and as text from some drivers; accept both. */
export function parseJson<T>(value: unknown): T {
  return (typeof value === 'string' ? JSON.parse(value) : value) as T
}

/**
 * Rows per set-based statement: one JSON parameter (`jsonb_to_recordset`) carries a batch, so no statement
 * nears the bind-parameter limit, and a batch stays small enough to keep a transaction's memory flat.
 */
export const SQL_BATCH = 2000

/** `items` in consecutive slices of at most `size`. */
export function batches<T>(items: readonly T[], size = SQL_BATCH): T[][] {
  const out: T[][] = []
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size))
  return out
}

/** A user shown next to a record (author, reviewer…), from a `left join users` id and name. */
export interface PersonRef {
  id: string
  name: string
}

/** The joined user, or null when the record has none (or the account was deleted: `on delete set null`). */
export function personRef(id: string | null, name: string | null): PersonRef | null {
  return id ? { id, name: name ?? '' } : null
}

/**
 * The total of a paged list, counted only when its page cannot tell: a page with rows but fewer than `limit`
 * ends the list, and an empty first page means there is none. A statement that reads every match anyway (a
 * ranked text search sorts them all) carries the total in its rows, `count(*) over () as total`, which is then
 * taken as it is. An index-ordered list must not: the window makes the database read and sort every matching
 * row before it can keep a page (200,000 audit records on PGlite: 546 ms, against 2.3 ms for the page and
 * 85 ms for a count; `GET /terms` at 20,000 terms 56 → 24 ms). Ranked searches counted apart read their
 * matches twice (`GET /terms?q=` of a common fragment 74 → 98 ms), so they keep the window.
 */
export async function pageTotal(
  page: { rows: readonly object[]; offset: number; limit: number },
  count: { manager: EntityManager; from: string; params: readonly unknown[] },
): Promise<number> {
  const { rows, offset, limit } = page
  const carried = (rows[0] as { total?: string | number } | undefined)?.total
  if (carried !== undefined) return Number(carried)
  if (rows.length > 0 && rows.length < limit) return offset + rows.length
  if (rows.length === 0 && offset === 0) return 0
  // The embedded engine starts with `enable_seqscan = off` (decision 016); a count over most of a table is a
  // sequential read, and as an index scan it took 103 ms instead of 40 ms at 200,000 audit records.
  return count.manager.transactional(async (tx) => {
    await tx.execute(`select set_config('enable_seqscan', 'on', true)`)
    const [row] = await tx.execute<{ n: string | number }[]>(`select count(*) as n from ${count.from}`, [
      ...count.params,
    ])
    return Number(row?.n ?? 0)
  })
}

/** `, count(*) over () as total` when a statement reads every match anyway (see `pageTotal`), else nothing. */
export function windowTotal(readsEveryMatch: unknown): string {
  return readsEveryMatch ? ', count(*) over () as total' : ''
}

/**
 * Runs one `delete …` or `update …` statement (without `returning`) and answers how many rows it changed,
 * counted by the database in the same statement, so the number is the same on PGlite and PostgreSQL.
 */
export async function countChanged(
  manager: EntityManager,
  statement: string,
  params: readonly unknown[],
): Promise<number> {
  const rows = await manager.execute<{ n: number }[]>(
    `with changed as (${statement} returning 1) select count(*)::int as n from changed`,
    [...params],
  )
  return Number(rows[0]?.n ?? 0)
}

/** One optional condition of a `where` clause: its SQL and its parameters, or a falsy value to leave it out. */
export type Condition = readonly [sql: string, ...params: unknown[]] | false | undefined | '' | null

/**
 * A `where` clause joining the conditions that are present with `and` (an empty string when none is), and
 * their parameters in order: `where(filter.role && ['role = ?', filter.role], …)`.
 */
export function where(...conditions: readonly Condition[]): { sql: string; params: unknown[] } {
  const present = conditions.filter((c): c is readonly [string, ...unknown[]] => Array.isArray(c))
  return {
    sql: present.length ? `where ${present.map(([sql]) => sql).join(' and ')}` : '',
    params: present.flatMap(([, ...params]) => params),
  }
}
