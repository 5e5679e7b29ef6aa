import type { EntityManager } from '@mikro-orm/postgresql'
import { getDb } from './orm.ts'
import { vectorLiteral } from './sql.ts'

/**
 * Rows in PostgreSQL's binary COPY format, loaded with PGlite's `COPY … FROM '/dev/blob'` (the query's `blob`
 * option, PGlite's documented way to hand a COPY its data). Why: the embedded engine parses text very slowly
 * where floats are concerned (pgvector's text form costs ~3 ms per 1536-d vector in WASM), while the binary
 * form of a vector is read as is (pgvector's `vector_recv`). PostgreSQL parses text fast, and node-postgres
 * has no COPY FROM STDIN of its own, so callers keep their text statement there (`canCopyIn()`).
 */

/** One field of a row: its bytes with their length prefix (or the NULL marker). */
export type CopyField = Buffer

const SIGNATURE = Buffer.from('PGCOPY\n\xff\r\n\0', 'latin1')

/** A NULL field. */
export const copyNull: CopyField = Buffer.from([0xff, 0xff, 0xff, 0xff])

/** An `integer` (int4). */
export function copyInt4(n: number): CopyField {
  const b = Buffer.alloc(8)
  b.writeInt32BE(4, 0)
  b.writeInt32BE(n, 4)
  return b
}

/** A `uuid`. */
export function copyUuid(id: string): CopyField {
  const b = Buffer.alloc(20)
  b.writeInt32BE(16, 0)
  b.write(id.replace(/-/g, ''), 4, 'hex')
  return b
}

/** A `text` (UTF-8, the database's encoding). */
export function copyText(s: string): CopyField {
  const body = Buffer.from(s, 'utf8')
  const b = Buffer.alloc(4 + body.length)
  b.writeInt32BE(body.length, 0)
  body.copy(b, 4)
  return b
}

/**
 * A pgvector `vector` in its binary form (pgvector's `vector_send`: dimensions as int16, an unused int16,
 * then each value as a big-endian float4). Values are rounded to float4 exactly as the column stores them.
 */
export function copyVector(values: readonly number[]): CopyField {
  const b = Buffer.alloc(8 + values.length * 4)
  b.writeInt32BE(4 + values.length * 4, 0)
  writeVector(b, 4, values)
  return b
}

/**
 * A vector in pgvector's binary form (`vector_recv`: dimensions, an unused int16, big-endian float4s). As a
 * bound parameter (`?::vector`) the PostgreSQL driver sends a Buffer in binary, so the server neither parses
 * nor receives the ~3× larger text form.
 */
export function vectorBinary(values: readonly number[]): Buffer {
  const b = Buffer.alloc(4 + values.length * 4)
  writeVector(b, 0, values)
  return b
}

/** A query vector as a `?::vector` parameter (`vectorParam`). */
export type VectorParam = string | Buffer

/**
 * A query vector as a `?::vector` parameter: on PostgreSQL its binary form (`vectorBinary`), 6 kB instead of
 * 21–32 kB of text that the service would format and the server parse (issue 28); on the embedded engine, whose
 * driver sends every parameter as text, its text form.
 */
export function vectorParam(values: readonly number[]): VectorParam {
  return getDb().pglite ? vectorLiteral(values) : vectorBinary(values)
}

function writeVector(b: Buffer, at: number, values: readonly number[]): void {
  b.writeInt16BE(values.length, at)
  b.writeInt16BE(0, at + 2)
  let o = at + 4
  for (const x of values) o = b.writeFloatBE(x, o)
}

/** A whole binary COPY file: header, every row (all rows with the same columns), trailer. */
export function binaryCopyData(rows: readonly (readonly CopyField[])[]): Uint8Array {
  const header = Buffer.alloc(SIGNATURE.length + 8) // flags and header extension length: both 0
  SIGNATURE.copy(header, 0)
  const parts: Buffer[] = [header]
  for (const row of rows) {
    const count = Buffer.alloc(2)
    count.writeInt16BE(row.length, 0)
    parts.push(count, ...row)
  }
  const trailer = Buffer.alloc(2)
  trailer.writeInt16BE(-1, 0)
  parts.push(trailer)
  return new Uint8Array(Buffer.concat(parts))
}

/** Whether the open database takes `copyIn` (the embedded engine). */
export function canCopyIn(): boolean {
  return getDb().pglite !== undefined
}

/**
 * `COPY <target> FROM` the given binary COPY data, on the embedded engine, inside the caller's transaction.
 * The transaction is what makes the direct call safe: it holds the pool's one connection, so no other query of
 * this process can run between its statements and this COPY on PGlite's single session.
 */
export async function copyIn(tx: EntityManager, target: string, data: Uint8Array): Promise<void> {
  const pglite = getDb().pglite
  if (!pglite) throw new Error('copyIn needs the embedded database: check canCopyIn() first.')
  if (!tx.isInTransaction())
    throw new Error('copyIn must run inside a transaction (it holds the connection).')
  await pglite.query(`copy ${target} from '/dev/blob' with (format binary)`, [], {
    blob: new Blob([data as Uint8Array<ArrayBuffer>]),
  })
}

/**
 * `COPY (<query>) TO` in the binary format, on the embedded engine, inside the caller's transaction (as `copyIn`,
 * for the same reason); answers each row's fields as bytes (`null` for NULL), for the caller to read (a vector:
 * `vectorValues`). Why: PGlite hands `bytea` and every other result over as text, so 6 kB of a vector arrive as
 * 12 kB of hex to decode; the COPY's blob is the binary rows as they are. `query` takes no parameters.
 */
export async function copyOut(tx: EntityManager, query: string): Promise<(Buffer | null)[][]> {
  const pglite = getDb().pglite
  if (!pglite) throw new Error('copyOut needs the embedded database: check canCopyIn() first.')
  if (!tx.isInTransaction())
    throw new Error('copyOut must run inside a transaction (it holds the connection).')
  const result = await pglite.query(`copy (${query}) to '/dev/blob' with (format binary)`)
  if (!result.blob) return []
  const data = Buffer.from(await result.blob.arrayBuffer())
  let at = SIGNATURE.length + 4
  at += 4 + data.readInt32BE(at)
  const rows: (Buffer | null)[][] = []
  for (;;) {
    const fields = data.readInt16BE(at)
    at += 2
    if (fields === -1) return rows
    const row: (Buffer | null)[] = []
    for (let f = 0; f < fields; f++) {
      const length = data.readInt32BE(at)
      at += 4
      if (length === -1) row.push(null)
      else {
        row.push(data.subarray(at, at + length))
        at += length
      }
    }
    rows.push(row)
  }
}

/** The values of a vector in pgvector's binary form (two int16, then float4 big-endian), into `out`. */
export function vectorValues(field: Buffer, out: Float32Array): void {
  const dimensions = field.readInt16BE(0)
  for (let d = 0; d < dimensions; d++) out[d] = field.readFloatBE(4 + 4 * d)
}
