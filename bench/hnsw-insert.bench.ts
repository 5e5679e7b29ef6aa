/**
 * HNSW on the embedded engine: inserting rows into an indexed table versus loading them bare and building the
 * index after (decision 028). PGlite on disk, `N` (default 4,000) realistic 1536-d vectors (bench/rag-data.ts),
 * binary COPY in batches of 100. Modes: `build` (load, then one CREATE INDEX with 1 GB maintenance_work_mem),
 * `logged` and `unlogged` (the index exists first; every row is inserted into it). Prints one JSON line a mode:
 * the load's time per row, the slowest batch (how long one statement holds PGlite's one backend), and the
 * build's time per row.
 *
 *   npx tsx bench/hnsw-insert.bench.ts [--rows 4000] [--modes build,logged,unlogged]
 */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { parseArgs } from 'node:util'
import { PGlite } from '@electric-sql/pglite'
import { vector } from '@electric-sql/pglite/vector'
import { binaryCopyData, copyInt4, copyVector } from '../db/binary-copy.ts'
import { vectorStream } from './rag-data.ts'

const { values } = parseArgs({
  options: {
    rows: { type: 'string', default: '4000' },
    modes: { type: 'string', default: 'build,logged,unlogged' },
  },
})
const rows = Number(values.rows)
const BATCH = 100

for (const mode of values.modes!.split(',')) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `hnsw-${mode}-`))
  const db = await PGlite.create({ dataDir: dir, extensions: { vector } })
  try {
    await db.exec('create extension vector')
    await db.exec(
      `create ${mode === 'unlogged' ? 'unlogged' : ''} table t (id int, embedding vector(1536) not null)`,
    )
    const index =
      'create index on t using hnsw (embedding vector_cosine_ops) with (m = 16, ef_construction = 64)'
    if (mode !== 'build') await db.exec(index)
    const next = vectorStream(7)
    let slowest = 0
    const start = performance.now()
    for (let id = 0; id < rows; id += BATCH) {
      const data = binaryCopyData(
        Array.from({ length: Math.min(BATCH, rows - id) }, (_, k) => [copyInt4(id + k), copyVector(next())]),
      )
      const t = performance.now()
      await db.query(`copy t from '/dev/blob' with (format binary)`, [], {
        blob: new Blob([data as Uint8Array<ArrayBuffer>]),
      })
      slowest = Math.max(slowest, performance.now() - t)
    }
    const loadMs = performance.now() - start
    let buildMs = 0
    if (mode === 'build') {
      const t = performance.now()
      await db.exec(`set maintenance_work_mem = '1GB'; ${index}`)
      buildMs = performance.now() - t
    }
    console.log(
      JSON.stringify({
        mode,
        rows,
        loadMsPerRow: +(loadMs / rows).toFixed(2),
        slowestBatchMs: Math.round(slowest),
        buildMsPerRow: +(buildMs / rows).toFixed(2),
        loadAverage: os.loadavg()[0]!.toFixed(2),
      }),
    )
  } finally {
    await db.close()
    fs.rmSync(dir, { recursive: true, force: true })
  }
}
