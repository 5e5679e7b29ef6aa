import crypto from 'node:crypto'
import type { PGlite } from '@electric-sql/pglite'
import { prng } from './support.ts'

/**
 * The data of the search-by-meaning benchmarks: realistic non-uniform 1536-d vectors (300 topic centres, some
 * much more common than others, each vector a centre plus noise) and a fast loader for them.
 */
export const DIM = 1536

const normalize = (v: number[]) => {
  const n = Math.sqrt(v.reduce((s, x) => s + x * x, 0)) || 1
  return v.map((x) => x / n)
}
const gaussian = (rand: () => number) => () =>
  Math.sqrt(-2 * Math.log(rand() + 1e-12)) * Math.cos(2 * Math.PI * rand())

/** The 300 topic centres (always the same). */
export const TOPICS: readonly number[][] = (() => {
  const gauss = gaussian(prng(12))
  return Array.from({ length: 300 }, () => normalize(Array.from({ length: DIM }, gauss)))
})()

/**
 * A seeded stream of vectors, each a topic centre (chosen with a skew: some topics are much more common) plus
 * noise. Chunks and queries use different seeds, so a benchmark reusing loaded chunks still gets its queries.
 */
export function vectorStream(seed: number): () => number[] {
  const rand = prng(seed)
  const gauss = gaussian(rand)
  return () => {
    const c = TOPICS[Math.floor(TOPICS.length * rand() ** 2)]!
    return normalize(c.map((x) => x + gauss() * 0.03))
  }
}

/** pgvector's text form of a vector. */
export const vectorLiteral = (v: readonly number[]) => `[${v.map((x) => x.toFixed(6)).join(',')}]`

export interface BenchChunk {
  termId: string
  chunkIndex: number
  vector: readonly number[]
}

/**
 * Appends term chunks (revision 1, field `definition`) with PGlite's binary COPY: each vector arrives in
 * pgvector's binary form, so nothing is parsed from text (parsing the text form costs ~3 ms a vector on
 * PGlite, which made loading 100,000 chunks take half an hour).
 */
export async function copyTermChunks(pglite: PGlite, space: string, chunks: readonly BenchChunk[]) {
  const text = (s: string) => Buffer.from(s, 'utf8')
  const content = text('chunk')
  const model = text(space)
  const field = text('definition')
  const parts: Buffer[] = [Buffer.from('PGCOPY\n\xff\r\n\0', 'latin1'), Buffer.alloc(8)]
  for (const chunk of chunks) {
    const id = crypto.randomUUID()
    const hash = text(crypto.createHash('md5').update(id).digest('hex'))
    const row = Buffer.alloc(128 + field.length + content.length + hash.length + model.length + DIM * 4)
    let o = row.writeInt16BE(9, 0)
    const uuid = (u: string) => {
      o = row.writeInt32BE(16, o)
      o += Buffer.from(u.replace(/-/g, ''), 'hex').copy(row, o)
    }
    const int = (n: number) => {
      o = row.writeInt32BE(4, o)
      o = row.writeInt32BE(n, o)
    }
    const bytes = (b: Buffer) => {
      o = row.writeInt32BE(b.length, o)
      o += b.copy(row, o)
    }
    uuid(id)
    uuid(chunk.termId)
    int(1)
    bytes(field)
    int(chunk.chunkIndex)
    bytes(content)
    bytes(hash)
    bytes(model)
    o = row.writeInt32BE(4 + DIM * 4, o)
    o = row.writeInt16BE(DIM, o)
    o = row.writeInt16BE(0, o)
    for (const x of chunk.vector) o = row.writeFloatBE(x, o)
    parts.push(row.subarray(0, o))
  }
  const trailer = Buffer.alloc(2)
  trailer.writeInt16BE(-1, 0)
  parts.push(trailer)
  await pglite.query(
    `copy term_chunks (id, term_id, revision, source_field, chunk_index, content, content_hash, model, embedding)
       from '/dev/blob' with (format binary)`,
    [],
    { blob: new Blob([new Uint8Array(Buffer.concat(parts))]) },
  )
}
