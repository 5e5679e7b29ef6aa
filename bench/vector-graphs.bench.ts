/**
 * The nearest-neighbour graphs decision 035 chose between, on the benchmark's realistic 1536-d vectors
 * (bench/rag-data.ts): build time a vector and recall@10 against an exact scan (100 queries from the same
 * topics), each printed as one JSON line.
 *
 * - `pgvector`: PGlite on disk, binary COPY of N vectors, then an HNSW index built on the full vectors and one
 *   on `binary_quantize(embedding)` (200 candidates ranked by the full vectors), and rows inserted into a table
 *   that has the latter index.
 * - `usearch`: the library of app/services/search/chunk-ann.server.ts, as f32, f16, i8 and b1 (signs; 200
 *   candidates ranked by the full vectors), one thread.
 *
 *   npx tsx bench/vector-graphs.bench.ts [--rows 20000] [--modes pgvector,usearch]
 */
import fs from 'node:fs'
import { createRequire } from 'node:module'
import os from 'node:os'
import path from 'node:path'
import { parseArgs } from 'node:util'
import { PGlite } from '@electric-sql/pglite'
import { vector } from '@electric-sql/pglite/vector'
import type usearchModule from 'usearch'
import { binaryCopyData, copyInt4, copyVector } from '../db/binary-copy.ts'
import { DIM, vectorLiteral, vectorStream } from './rag-data.ts'

const usearch = createRequire(import.meta.url)('usearch') as typeof usearchModule

const { values } = parseArgs({
  options: {
    rows: { type: 'string', default: '20000' },
    modes: { type: 'string', default: 'pgvector,usearch' },
  },
})
const rows = Number(values.rows)
const QUERIES = 100
const CANDIDATES = 200

const data = new Float32Array(rows * DIM)
{
  const next = vectorStream(7)
  for (let i = 0; i < rows; i++) data.set(next(), i * DIM)
}
const queries = (() => {
  const next = vectorStream(99)
  return Array.from({ length: QUERIES }, () => new Float32Array(next()))
})()
const exact = queries.map((q) =>
  Array.from(usearch.exactSearch(data, q, DIM, 10, 'cos' as never).keys, (k) => Number(k)),
)
const recall = (found: number[][]) =>
  +(
    found.reduce((n, ids, i) => n + ids.filter((id) => exact[i]!.includes(id)).length, 0) /
    (QUERIES * 10)
  ).toFixed(3)

const print = (line: Record<string, unknown>) =>
  console.log(JSON.stringify({ ...line, rows, loadAverage: os.loadavg()[0]!.toFixed(2) }))

async function pgvectorGraphs() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vector-graphs-'))
  const db = await PGlite.create({ dataDir: dir, extensions: { vector } })
  try {
    await db.exec('create extension vector')
    await db.exec('create table t (id int, embedding vector(1536) not null)')
    const copy = async (from: number, to: number) => {
      const batch = Array.from({ length: to - from }, (_, k) => [
        copyInt4(from + k),
        copyVector(Array.from(data.subarray((from + k) * DIM, (from + k + 1) * DIM))),
      ])
      await db.query(`copy t from '/dev/blob' with (format binary)`, [], {
        blob: new Blob([binaryCopyData(batch) as Uint8Array<ArrayBuffer>]),
      })
    }
    const insertRows = Math.min(1000, Math.floor(rows / 10))
    const loaded = rows - insertRows
    for (let i = 0; i < loaded; i += 100) await copy(i, Math.min(loaded, i + 100))
    await db.exec(`set maintenance_work_mem = '1GB'`)
    const found = async (sql: string) => {
      await db.exec('set enable_seqscan = off; set hnsw.ef_search = 200')
      const out: number[][] = []
      for (const q of queries)
        out.push((await db.query<{ id: number }>(sql, [vectorLiteral(Array.from(q))])).rows.map((r) => r.id))
      return out
    }
    let started = performance.now()
    await db.exec(
      'create index full_graph on t using hnsw (embedding vector_cosine_ops) with (m = 16, ef_construction = 64)',
    )
    const fullBuild = (performance.now() - started) / loaded
    print({
      graph: 'pgvector full vectors',
      buildMsPerRow: +fullBuild.toFixed(2),
      recall: recall(await found('select id from t order by embedding <=> $1::vector limit 10')),
    })
    await db.exec('drop index full_graph')
    started = performance.now()
    await db.exec(
      'create index sign_graph on t using hnsw ((binary_quantize(embedding)::bit(1536)) bit_hamming_ops) with (m = 16, ef_construction = 64)',
    )
    const signBuild = (performance.now() - started) / loaded
    started = performance.now()
    for (let i = loaded; i < rows; i += 100) await copy(i, Math.min(rows, i + 100))
    const signInsert = (performance.now() - started) / insertRows
    print({
      graph: `pgvector binary_quantize, ${CANDIDATES} candidates ranked`,
      buildMsPerRow: +signBuild.toFixed(2),
      insertMsPerRow: +signInsert.toFixed(2),
      recall: recall(
        await found(
          `select id from (select id, embedding from t order by binary_quantize(embedding)::bit(1536) <~> binary_quantize($1::vector) limit ${CANDIDATES}) c order by embedding <=> $1::vector limit 10`,
        ),
      ),
    })
  } finally {
    await db.close()
    fs.rmSync(dir, { recursive: true, force: true })
  }
}

function usearchGraphs() {
  for (const kind of ['f32', 'f16', 'i8', 'b1']) {
    const signs = kind === 'b1'
    const index = new usearch.Index({
      dimensions: DIM,
      metric: (signs ? 'hamming' : 'cos') as never,
      quantization: kind as never,
      connectivity: 16,
      expansion_add: 128,
      expansion_search: 64,
      multi: false,
    })
    const started = performance.now()
    for (let i = 0; i < rows; i += 1000) {
      const n = Math.min(1000, rows - i)
      index.add(
        BigUint64Array.from({ length: n }, (_, k) => BigInt(i + k)),
        data.subarray(i * DIM, (i + n) * DIM),
        1,
      )
    }
    const build = (performance.now() - started) / rows
    const found = queries.map((q) => {
      const keys = Array.from(index.search(q, signs ? CANDIDATES : 10, 1).keys, (k) => Number(k))
      if (!signs) return keys
      const dot = (id: number) => {
        let s = 0
        for (let j = 0; j < DIM; j++) s += data[id * DIM + j]! * q[j]!
        return s
      }
      return keys
        .map((id) => [id, dot(id)] as const)
        .sort((a, b) => b[1] - a[1])
        .slice(0, 10)
        .map(([id]) => id)
    })
    print({
      graph: `usearch ${kind}${signs ? `, ${CANDIDATES} candidates ranked` : ''}`,
      buildMsPerRow: +build.toFixed(2),
      recall: recall(found),
    })
  }
}

for (const mode of values.modes!.split(',')) {
  if (mode === 'pgvector') await pgvectorGraphs()
  else if (mode === 'usearch') usearchGraphs()
}
