import type { EntityManager } from '@mikro-orm/postgresql'
import { copyOut, vectorValues, type VectorParam } from '#db/binary-copy.ts'
import { em, getDb, type Db } from '#db/orm.ts'
import { log } from '#app/lib/logger.server.ts'
import { createChunkGraph, onGraphsLost, type ChunkGraph } from './chunk-graph-thread.server.ts'

/**
 * The embedded engine's nearest-neighbour index of the chunk tables (decision 035), held in the service's
 * process. PGlite is one PostgreSQL backend running in this process's thread: pgvector's HNSW graph made every
 * chunk written cost ~13 ms of it and a full reindex's build of 100,000 chunks minutes during which nothing
 * else ran. Here the tables keep the vectors (the system of record) and `seq`, a number each row written gets;
 * this module keeps, per table and embedding space, a graph of the vectors' signs (one bit a dimension;
 * usearch, the library DuckDB's and ClickHouse's vector indexes use) and each vector as one byte a dimension
 * (int8 codes), and follows each table by reading the rows past the highest `seq` it holds. A search takes many
 * candidates from the graph, ranks them by their codes, and SQL ranks the best by the full vectors
 * (`embedding <=> query`) with the same filters as on PostgreSQL.
 *
 * - **It only ever lags.** Rows are read in `seq` order, and the embedded engine's one connection commits
 *   transactions one after another, so a row it has not read has a higher `seq` than every row it has. A
 *   search first reads what is new (`ANN.inlineRows` at most); past that, the table is caught up in the
 *   background in slices and its searches are exact meanwhile (`null`: a scan in SQL).
 * - **Deleted chunks** stay in the graph until a search meets them among its candidates (`forget`); SQL never
 *   returns them, so they cost a candidate, never a wrong answer.
 * - **Tables are known by their OID**, so a full reindex's shadow table, indexed while it loads, is the live
 *   table's index as soon as the swap renames it.
 * - Built again from the tables when the process starts (or when the graphs' thread died): nothing of it is on
 *   disk. ~1.7 kB a chunk in memory.
 * - The graphs are in a thread of their own (chunk-graph-thread.server.ts, decision 036); this thread reads the
 *   rows, keeps the codes and ranks by them. A table's reads wait for the graph's adds of the slice before
 *   (one slice ahead), and a table is caught up only once its graph holds every row read.
 */

export const ANN = {
  dimensions: 1536,
  /**
   * The graph's links per node and breadth when adding (usearch's `connectivity`, `expansion_add`). At 20,000
   * chunks an `expansion_add` of 64 built 1.45× faster than 128 with the same recall; 32, 4× faster, lost 0.01.
   */
  connectivity: 16,
  expansionAdd: 64,
  /** Rows a search reads before it answers; more are read in the background. */
  inlineRows: 64,
  /** Rows read (and added) per slice in the background: ~50–100 ms of this thread. */
  sliceRows: 256,
  /** Candidates a result wanted that SQL ranks by the full vectors and filters (live source, domain …). */
  candidatesPerResult: 4,
  /**
   * Candidates the graph of signs gives per candidate SQL gets: signs order neighbours roughly (at 100,000 of the
   * benchmark's chunks the exact 200 nearest by signs held 0.87 of the true 10 nearest, the 800 nearest 0.98),
   * so the graph gives many and their int8 codes rank them.
   */
  graphDepth: 20,
}

interface SpaceGraph {
  index: ChunkGraph
  /** Each chunk's slot (by `seq`) in `codes` (int8, `ANN.dimensions` a chunk) and `scales`. */
  slots: Map<number, number>
  codes: Int8Array
  scales: Float32Array
  used: number
}

interface TableGraph {
  /** The highest `seq` read. */
  seq: number
  spaces: Map<string, SpaceGraph>
  /** Statements on this table's graph run one at a time (reads that would add the same rows twice). */
  turn: Promise<unknown>
  /** A background catch-up under way. */
  catchingUp: Promise<void> | undefined
}

interface DbGraphs {
  byOid: Map<number, TableGraph>
  /** The OID each table name had when last seen: a name that moved (a swap) frees its old graph. */
  oidOfName: Map<string, number>
}

let graphs = new WeakMap<Db, DbGraphs>()
// The thread's death took every graph: start again from nothing (each table is read again, exact meanwhile).
onGraphsLost(() => {
  graphs = new WeakMap()
})
/** A space's graph in the thread goes with its object here (a closed database's, in tests). */
const dropOnCollect = new FinalizationRegistry<ChunkGraph>((graph) => graph.drop())

function graphsOf(db: Db): DbGraphs {
  let g = graphs.get(db)
  if (!g) graphs.set(db, (g = { byOid: new Map(), oidOfName: new Map() }))
  return g
}

/** Whether this database finds nearest chunks with this module (the embedded engine) rather than HNSW. */
export const usesChunkAnn = () => getDb().pglite !== undefined

/** One table's graph as a search uses it. */
export interface ChunkAnnView {
  /** The `count` nearest candidates' `seq` in `space`; `exhausted` when the graph has no more. */
  nearest(space: string, vector: VectorParam, count: number): Promise<{ seqs: string[]; exhausted: boolean }>
  /** Drops candidates the table no longer has. */
  forget(space: string, seqs: readonly string[]): void
}

/**
 * The graph of `table`, brought up to date; `null` while the table has more new rows than a search should
 * read (a catch-up runs in the background; search exactly meanwhile).
 */
export async function chunkAnn(manager: EntityManager, table: string): Promise<ChunkAnnView | null> {
  const graph = await graphOf(manager, table)
  if (graph.catchingUp) return null
  const read = await inTurn(graph, () => readNew(manager, table, graph, ANN.inlineRows))
  if (read.more) {
    catchUpInBackground(table, graph)
    return null
  }
  try {
    await read.added
  } catch (error) {
    log().warn({ err: error, table }, 'chunk index: the graph could not add rows; searching exactly')
    return null
  }
  return viewOf(graph)
}

/** Reads every row of these tables the graphs lack (a full reindex before its swap, tests). */
export async function catchUpChunkAnn(manager: EntityManager, tables: readonly string[]): Promise<void> {
  for (const table of tables) {
    const graph = await graphOf(manager, table)
    await graph.catchingUp
    await readAll(manager, table, graph)
  }
}

/** Starts reading these tables' new rows in the background (after a batch of writes). */
export function followChunkAnn(tables: readonly string[]): void {
  for (const table of tables) {
    void graphOf(em(), table)
      .then((graph) => catchUpInBackground(table, graph))
      .catch((error: unknown) => log().warn({ err: error, table }, 'chunk index: could not follow the table'))
  }
}

async function graphOf(manager: EntityManager, table: string): Promise<TableGraph> {
  const g = graphsOf(getDb())
  const rows = await manager.execute<{ oid: number }[]>(`select ?::regclass::oid as oid`, [table])
  const oid = Number(rows[0]!.oid)
  const before = g.oidOfName.get(table)
  if (before !== undefined && before !== oid) {
    // The name now means another table (a swap renamed a shadow table to it): the old table's graph goes
    // unless another name still has it.
    if (![...g.oidOfName.entries()].some(([name, o]) => name !== table && o === before)) {
      for (const s of g.byOid.get(before)?.spaces.values() ?? []) s.index.drop()
      g.byOid.delete(before)
    }
  }
  g.oidOfName.set(table, oid)
  let graph = g.byOid.get(oid)
  if (!graph) {
    graph = { seq: 0, spaces: new Map(), turn: Promise.resolve(), catchingUp: undefined }
    g.byOid.set(oid, graph)
  }
  return graph
}

function inTurn<T>(graph: TableGraph, work: () => Promise<T>): Promise<T> {
  const next = graph.turn.then(work, work)
  graph.turn = next.catch(() => undefined)
  return next
}

/**
 * Reads every new row, a slice at a time, letting other work run between slices; the graph adds a slice while
 * the next is read, and this ends once it holds them all.
 */
async function readAll(manager: EntityManager, table: string, graph: TableGraph): Promise<void> {
  let adding: Promise<void> = Promise.resolve()
  for (;;) {
    const read = await inTurn(graph, () => readNew(manager, table, graph, ANN.sliceRows))
    await adding
    adding = read.added
    if (!read.more) break
    await new Promise<void>((resolve) => setImmediate(resolve))
  }
  await adding
}

/** Reads the table's new rows in slices, outside any request's transaction (the process's own manager). */
function catchUpInBackground(table: string, graph: TableGraph): void {
  if (graph.catchingUp) return
  const manager = em()
  const started = performance.now()
  const from = graph.seq
  graph.catchingUp = (async () => {
    try {
      await readAll(manager, table, graph)
      if (graph.seq - from > ANN.sliceRows)
        log().info(
          { table, rows: graph.seq - from, ms: Math.round(performance.now() - started) },
          'chunk index caught up',
        )
    } catch (error) {
      log().warn({ err: error, table }, 'chunk index: catching up failed; the next search tries again')
    } finally {
      graph.catchingUp = undefined
    }
  })()
}

/**
 * Reads up to `limit` rows past the graph's `seq` and sends them to the graph: whether there may be more, and
 * when the graph holds them.
 */
async function readNew(
  manager: EntityManager,
  table: string,
  graph: TableGraph,
  limit: number,
): Promise<{ more: boolean; added: Promise<void> }> {
  const nothing = { more: false, added: Promise.resolve() }
  // Most searches find nothing new: one indexed lookup, no transaction.
  const [next] = await manager.execute<{ any: boolean }[]>(
    `select exists (select 1 from ${table} where seq > ?) as any`,
    [graph.seq],
  )
  if (!next?.any) return nothing
  // The rows in binary COPY (db/binary-copy.ts `copyOut`): the vectors as pgvector's binary form, read as is.
  // `graph.seq` is a number this module read, so it goes into the statement as one.
  const rows = (
    await manager.transactional((tx) =>
      copyOut(
        tx,
        `select seq, model, embedding from ${table} where seq > ${Math.trunc(graph.seq)} order by seq limit ${limit}`,
      ),
    )
  ).map(([seq, model, embedding]) => ({
    seq: seq!.readBigInt64BE(0).toString(),
    model: model!.toString('utf8'),
    embedding: embedding!,
  }))
  if (rows.length === 0) return nothing
  const bySpace = new Map<string, typeof rows>()
  for (const row of rows) {
    const list = bySpace.get(row.model)
    if (list) list.push(row)
    else bySpace.set(row.model, [row])
  }
  const values = new Float32Array(ANN.dimensions)
  const adds: Promise<void>[] = []
  for (const [space, list] of bySpace) {
    const s = spaceGraph(graph, space)
    const signs = new Float32Array(list.length * ANN.dimensions)
    list.forEach((row, i) => {
      vectorValues(row.embedding, values)
      signsOf(values, signs, i * ANN.dimensions)
      keepCode(s, row.seq, values)
    })
    adds.push(
      s.index.add(
        BigUint64Array.from(list, (row) => BigInt(row.seq)),
        signs,
      ),
    )
  }
  graph.seq = Number(rows[rows.length - 1]!.seq)
  const added = Promise.all(adds).then(() => undefined)
  // Awaited by the caller; never an unhandled rejection meanwhile.
  added.catch(() => undefined)
  return { more: rows.length === limit, added }
}

function spaceGraph(graph: TableGraph, space: string): SpaceGraph {
  let s = graph.spaces.get(space)
  if (!s) {
    s = {
      index: createChunkGraph({
        dimensions: ANN.dimensions,
        connectivity: ANN.connectivity,
        expansionAdd: ANN.expansionAdd,
        expansionSearch: 64,
      }),
      slots: new Map(),
      codes: new Int8Array(1024 * ANN.dimensions),
      scales: new Float32Array(1024),
      used: 0,
    }
    graph.spaces.set(space, s)
    dropOnCollect.register(s, s.index)
  }
  return s
}

/** Keeps a chunk's vector as one byte a dimension and a scale (int8: ~1% of its cosine), for the ranking. */
function keepCode(s: SpaceGraph, seq: string, values: Float32Array): void {
  if (s.used === s.scales.length) {
    const codes = new Int8Array(s.codes.length * 2)
    codes.set(s.codes)
    const scales = new Float32Array(s.scales.length * 2)
    scales.set(s.scales)
    s.codes = codes
    s.scales = scales
  }
  const slot = s.used++
  const { codes } = s
  const at = slot * values.length
  let max = 0
  for (let d = 0; d < values.length; d++) max = Math.max(max, Math.abs(values[d]!))
  const scale = max / 127 || 1
  for (let d = 0; d < values.length; d++) codes[at + d] = Math.round(values[d]! / scale)
  s.scales[slot] = scale
  s.slots.set(Number(seq), slot)
}

function viewOf(graph: TableGraph): ChunkAnnView {
  return {
    async nearest(space, vector, count) {
      const s = graph.spaces.get(space)
      if (!s) return { seqs: [], exhausted: true }
      const query = queryValues(vector)
      const signs = new Float32Array(ANN.dimensions)
      signsOf(query, signs, 0)
      // The graph of signs gives many candidates; their int8 codes rank them (dot products: the vectors are
      // unit length, so the order of cosine similarity), and the `count` best go to SQL.
      const asked = count * ANN.graphDepth
      const found = await s.index.search(signs, asked)
      const ranked: { seq: number; score: number }[] = []
      const { codes, scales, slots } = s
      for (const key of found.keys) {
        const seq = Number(key)
        const slot = slots.get(seq)
        if (slot === undefined) continue
        ranked.push({ seq, score: dotCode(codes, slot * ANN.dimensions, query) * scales[slot]! })
      }
      ranked.sort((x, y) => y.score - x.score)
      return {
        seqs: ranked.slice(0, count).map((r) => String(r.seq)),
        exhausted: asked >= found.size && ranked.length <= count,
      }
    },
    forget(space, seqs) {
      const s = graph.spaces.get(space)
      if (!s || seqs.length === 0) return
      s.index.remove(BigUint64Array.from(seqs, (x) => BigInt(x)))
      for (const seq of seqs) s.slots.delete(Number(seq))
    },
  }
}

/** The dot product of the int8 code at `at` and the query: a loop over locals only, which V8 keeps tight. */
function dotCode(codes: Int8Array, at: number, query: Float32Array): number {
  let dot = 0
  for (let d = 0; d < query.length; d++) dot += codes[at + d]! * query[d]!
  return dot
}

/** A vector as `binary_quantize` splits it (`1` where a component is positive), as ±1, the form the graph takes. */
function signsOf(values: Float32Array, out: Float32Array, at: number): void {
  for (let i = 0; i < values.length; i++) out[at + i] = values[i]! > 0 ? 1 : -1
}

/** A query vector's values (text on the embedded engine, pgvector's binary form on a server). */
function queryValues(vector: VectorParam): Float32Array {
  const out = new Float32Array(ANN.dimensions)
  if (typeof vector === 'string') {
    const parts = vector.slice(1, -1).split(',')
    for (let i = 0; i < ANN.dimensions; i++) out[i] = Number(parts[i])
  } else vectorValues(vector, out)
  return out
}
