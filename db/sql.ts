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

/**
 * A vector as pgvector's text form, for `?::vector`. Each value is rounded to float4 here, as the binary path
 * rounds it (`copyVector`): pgvector parses the decimal straight to float4, which settles a value halfway
 * between two float4s differently from that rounding, so the engines would store different vectors.
 */
export function vectorLiteral(vector: readonly number[]): string {
  return `[${vector.map(Math.fround).join(',')}]`
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

/**
 * The SQLSTATE of a database error (`40P01`, `55P03` …), whichever driver raised it and however MikroORM
 * wrapped it (the code is on the error or on one of its causes); undefined for any other error.
 */
export function sqlState(error: unknown): string | undefined {
  for (let e: unknown = error; e && typeof e === 'object'; e = (e as { cause?: unknown }).cause) {
    const { sqlState: state, code } = e as { sqlState?: unknown; code?: unknown }
    const value = typeof state === 'string' ? state : code
    if (typeof value === 'string' && /^[0-9A-Z]{5}$/.test(value)) return value
  }
  return undefined
}

/** Socket failures under a database client: the server went away between or during statements. */
const LOST_SOCKET_CODES = new Set(['ECONNRESET', 'EPIPE', 'ECONNREFUSED', 'ETIMEDOUT'])
/**
 * node-postgres's own words for a connection that ended under it (it sets no code on these). Not anchored:
 * MikroORM puts the statement's text (never its values: they are bound) before the driver's message.
 */
const LOST_CONNECTION_MESSAGE =
  /Connection terminated|Client has encountered a connection error|Connection ended unexpectedly/

/**
 * Whether a statement never ran because no connection came free in time (knex's acquire timeout, 60 s): on the
 * embedded engine, whose one connection a long transaction (a sync apply of thousands of items) holds until it
 * commits. The caller may ask again later; nothing of the request was done.
 */
export function isDatabaseBusy(error: unknown): boolean {
  for (let e: unknown = error; e && typeof e === 'object'; e = (e as { cause?: unknown }).cause) {
    const { name, message } = e as { name?: unknown; message?: unknown }
    if (name === 'KnexTimeoutError') return true
    if (typeof message === 'string' && message.includes('Timeout acquiring a connection')) return true
  }
  return false
}

/**
 * The pauses before each new attempt of a read that lost its connection. The pool learns that a connection
 * died from its socket's close event: a statement sent at once can still be handed the dead connection it
 * just gave back, so the first pause lets that event run; a second attempt covers a pool full of dead ones.
 */
export const LOST_CONNECTION_PAUSES_MS = [50, 250] as const

/**
 * Whether an error means the database connection was lost rather than that the statement was wrong: the
 * server ended it (`57P01` admin shutdown, e.g. `pg_terminate_backend` or a restart; `57P02` crash;
 * `57P03` starting up), a connection exception (SQLSTATE class `08`), or the socket failed. The pool drops
 * such a connection, so a read can simply run again on a fresh one.
 */
export function isConnectionLost(error: unknown): boolean {
  for (let e: unknown = error; e && typeof e === 'object'; e = (e as { cause?: unknown }).cause) {
    const { code, message } = e as { code?: unknown; message?: unknown }
    if (typeof code === 'string' && LOST_SOCKET_CODES.has(code)) return true
    if (typeof message === 'string' && LOST_CONNECTION_MESSAGE.test(message)) return true
  }
  const state = sqlState(error)
  return state !== undefined && (state.startsWith('08') || /^57P0[123]$/.test(state))
}
