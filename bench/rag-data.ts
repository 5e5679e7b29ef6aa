import { spawn } from 'node:child_process'
import crypto from 'node:crypto'
import fs from 'node:fs'
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import os from 'node:os'
import path from 'node:path'
import {
  binaryCopyData,
  canCopyIn,
  copyIn,
  copyInt4,
  copyText,
  copyUuid,
  copyVector,
  vectorBinary,
} from '../db/binary-copy.ts'
import { em } from '../db/orm.ts'
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

/** A realistic vector for a text (the same text, the same vector): what the benchmark's provider answers. */
export function textVector(text: string): number[] {
  return vectorStream(crypto.createHash('sha256').update(text).digest().readUInt32BE(0))()
}

/** pgvector's text form of a vector. */
export const vectorLiteral = (v: readonly number[]) => `[${v.map((x) => x.toFixed(6)).join(',')}]`

export interface BenchChunk {
  termId: string
  chunkIndex: number
  vector: readonly number[]
}

/**
 * Appends term chunks (revision 1, field `definition`) with PGlite's binary COPY (db/binary-copy.ts, the
 * encoder the index pipeline uses): each vector arrives in pgvector's binary form, so nothing is parsed from
 * text (parsing the text form costs ~3 ms a vector on PGlite, which made loading 100,000 chunks take half an
 * hour).
 */
export async function copyTermChunks(space: string, chunks: readonly BenchChunk[]) {
  const rows = chunks.map((chunk) => {
    const id = crypto.randomUUID()
    return [
      copyUuid(id),
      copyUuid(chunk.termId),
      copyInt4(1),
      copyText('definition'),
      copyInt4(chunk.chunkIndex),
      copyText('chunk'),
      copyText(crypto.createHash('md5').update(id).digest('hex')),
      copyText(space),
      copyVector(chunk.vector),
    ]
  })
  await em().transactional((tx) =>
    copyIn(
      tx,
      'term_chunks (id, term_id, revision, source_field, chunk_index, content, content_hash, model, embedding)',
      binaryCopyData(rows),
    ),
  )
}

/**
 * Appends term chunks as `copyTermChunks` does, on either engine: the binary COPY on the embedded one; on
 * PostgreSQL (node-postgres has no COPY FROM STDIN) multi-row inserts of 500 rows whose vectors are bound in
 * pgvector's binary form (`vectorBinary`), which the driver sends as binary parameters, so the server parses
 * no text either (8× the rate of the text form). Straight through knex: the ORM's `execute` also formats every
 * statement with its values for its log line, which for 3 MB of vectors a statement cost more than the insert.
 */
export async function loadTermChunks(space: string, chunks: readonly BenchChunk[]) {
  if (canCopyIn()) return copyTermChunks(space, chunks)
  const knex = em().getConnection().getKnex()
  for (let start = 0; start < chunks.length; start += 500) {
    const batch = chunks.slice(start, start + 500)
    await knex.raw(
      `insert into term_chunks (id, term_id, revision, source_field, chunk_index, content, content_hash, model,
                                embedding)
       select gen_random_uuid(), x.term_id, 1, 'definition', x.chunk_index, 'chunk', md5(random()::text), ?,
              x.embedding
         from (values ${batch.map(() => '(?::uuid, ?::integer, ?::vector)').join(', ')})
           as x(term_id, chunk_index, embedding)`,
      [space, ...batch.flatMap((c) => [c.termId, c.chunkIndex, vectorBinary(c.vector)])],
    )
  }
}

/**
 * A provider on 127.0.0.1 that answers at once (alpha-compatible `POST /embeddings`, numbers or base64 as
 * asked), each text with `vectorOf(text)`: dense, realistic vectors, unlike the test stand-in's sparse hashed words, whose zeros
 * pgvector's text parse reads much faster than real embeddings.
 */
export async function startInstantProvider(vectorOf: (text: string) => readonly number[], port = 0) {
  const server = http.createServer((req, res) => {
    let raw = ''
    req.on('data', (c) => (raw += c))
    req.on('end', () => {
      const { input, encoding_format: format } = JSON.parse(raw) as {
        input: string[]
        encoding_format?: string
      }
      const encode = (v: readonly number[]) =>
        format === 'base64' ? Buffer.from(new Float32Array(v).buffer).toString('base64') : v
      res.writeHead(200, { 'content-type': 'application/json' })
      res.end(JSON.stringify({ data: input.map((t, index) => ({ index, embedding: encode(vectorOf(t)) })) }))
    })
  })
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
    close: () => new Promise((resolve) => server.close(resolve)),
  }
}

/**
 * `startInstantProvider` in a child process (bench/instant-provider.ts) listening on `port` (0: any), answering
 * the texts of `vectors` with their vectors and others with `textVector`; `close()` ends it.
 */
export async function startInstantProviderProcess(
  port: number,
  vectors: ReadonlyMap<string, readonly number[]>,
) {
  const file = path.join(os.tmpdir(), `instant-provider-${process.pid}.json`)
  fs.writeFileSync(file, JSON.stringify(Object.fromEntries(vectors)))
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', path.join(import.meta.dirname, 'instant-provider.ts'), String(port), file],
    {
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  )
  const listening = await new Promise<number>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`the instant provider exited (${code})`)))
    child.stdout.once('data', (line: Buffer) => resolve(Number(line.toString().trim().split(' ')[1])))
  })
  return {
    url: `http://127.0.0.1:${listening}/v1`,
    close: async () => {
      const exited = new Promise((resolve) => child.once('exit', resolve))
      child.kill()
      await exited
      fs.rmSync(file, { force: true })
    },
  }
}
