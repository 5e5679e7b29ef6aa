import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ANN, catchUpChunkAnn, chunkAnn, type ChunkAnnView } from '#app/services/search/chunk-ann.server.ts'
import { endChunkGraphThread } from '#app/services/search/chunk-graph-thread.server.ts'
import { searchTermChunks } from '#app/services/search/store.server.ts'
import { binaryCopyData, copyIn, copyInt4, copyText, copyUuid, copyVector } from '#db/binary-copy.ts'
import { em } from '#db/orm.ts'
import { vectorLiteral } from '#db/sql.ts'
import { createTerm } from '#tests/factories.ts'
import { closeTestDb, openTestDb } from '#tests/setup/db.ts'
import { testEngine } from '#tests/setup/test-env.ts'

/**
 * The embedded engine's process index of the chunk tables (decision 035, chunk-ann.server.ts): it follows a
 * table by `seq`, lags only, forgets chunks the table no longer has, and its candidates ranked by the full
 * vectors find what an exact scan finds, and the graphs' thread dying loses nothing. PostgreSQL searches with HNSW instead (hnsw-tuning, knn-settings).
 */

const SPACE = 'alpha_compatible|http://127.0.0.1:1/v1|chunk-ann'
const DIM = 1536

function seeded(seed: number) {
  let s = seed >>> 0
  const rand = () => (s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32
  const gauss = () => Math.sqrt(-2 * Math.log(rand() + 1e-12)) * Math.cos(2 * Math.PI * rand())
  return { rand, gauss }
}

const unit = (v: number[]) => {
  const n = Math.hypot(...v)
  return v.map((x) => x / n)
}

/** 20 topic centres, the same for chunks and queries. */
const CENTRES = (() => {
  const { gauss } = seeded(12)
  return Array.from({ length: 20 }, () => unit(Array.from({ length: DIM }, gauss)))
})()

/** A seeded stream of unit vectors, each a topic centre plus noise: neighbours that differ in fine detail. */
function vectors(seed: number): () => number[] {
  const { rand, gauss } = seeded(seed)
  return () => unit(CENTRES[Math.floor(rand() * CENTRES.length)]!.map((x) => x + gauss() * 0.03))
}

let termId: string
let revision: number
let written = 0

/** Writes `n` chunks of the test term with vectors from `next` (binary COPY); answers their ids. */
async function writeChunks(n: number, next: () => number[]): Promise<string[]> {
  const ids = Array.from({ length: n }, () => crypto.randomUUID())
  const rows = ids.map((id) => [
    copyUuid(id),
    copyUuid(termId),
    copyInt4(revision),
    copyText('definition'),
    copyInt4(written++),
    copyText('chunk'),
    copyText(`hash-${id}`),
    copyText(SPACE),
    copyVector(next()),
  ])
  await em().transactional((tx) =>
    copyIn(
      tx,
      'term_chunks (id, term_id, revision, source_field, chunk_index, content, content_hash, model, embedding)',
      binaryCopyData(rows),
    ),
  )
  return ids
}

async function exactNearest(vector: string, limit: number): Promise<string[]> {
  const rows = await em().execute<{ id: string }[]>(
    `select id from term_chunks where model = ? order by embedding <=> ?::vector limit ?`,
    [SPACE, vector, limit],
  )
  return rows.map((r) => r.id)
}

const search = async (vector: string, limit: number) =>
  (await searchTermChunks(em(), { vector, space: SPACE, limit, domain: null })).map((h) => h.id)

describe.runIf(testEngine() === 'pglite')('the embedded engine’s chunk index', () => {
  beforeAll(async () => {
    await openTestDb()
    const term = await createTerm({ name: 'Chunk index term' })
    termId = term.id
    revision = term.revision
  })

  afterAll(async () => {
    await closeTestDb()
  })

  it('reads a few new rows before a search; a backlog is read in the background while searches scan exactly', async () => {
    const next = vectors(1)
    const [first] = await writeChunks(3, next)
    const view = await chunkAnn(em(), 'term_chunks')
    expect(view).not.toBeNull()
    const v = (
      await em().execute<{ v: string }[]>('select embedding::text as v from term_chunks where id = ?', [
        first,
      ])
    )[0]!.v
    expect((await search(v, 3))[0]).toBe(first)

    await writeChunks(ANN.inlineRows + 50, next)
    // More than a search reads: exact meanwhile (and still right), the graph catches up behind it.
    expect(await chunkAnn(em(), 'term_chunks')).toBeNull()
    expect(await search(v, 5)).toEqual(await exactNearest(v, 5))
    await catchUpChunkAnn(em(), ['term_chunks'])
    const caughtUp = (await chunkAnn(em(), 'term_chunks')) as ChunkAnnView
    expect(caughtUp).not.toBeNull()
    const all = await caughtUp.nearest(SPACE, v, 1000)
    expect(all.seqs).toHaveLength(3 + ANN.inlineRows + 50)
    expect(all.exhausted).toBe(true)
  })

  it('its candidates, ranked by the full vectors, find what an exact scan finds (recall@10 ≥ 0.95)', async () => {
    await writeChunks(2000, vectors(2))
    await catchUpChunkAnn(em(), ['term_chunks'])
    const queries = vectors(3)
    let found = 0
    const n = 20
    for (let i = 0; i < n; i++) {
      const q = vectorLiteral(queries())
      const exact = await exactNearest(q, 10)
      const got = await search(q, 10)
      expect(got).toHaveLength(10)
      found += got.filter((id) => exact.includes(id)).length
    }
    expect(found / (n * 10)).toBeGreaterThanOrEqual(0.95)
  }, 120_000)

  it('forgets chunks the table no longer has, and never answers them', async () => {
    const q = vectorLiteral(vectors(4)())
    const before = await search(q, 10)
    await em().execute('delete from term_chunks where id = any(?::uuid[])', [
      `{${before.slice(0, 5).join(',')}}`,
    ])
    const after = await search(q, 10)
    expect(after).toHaveLength(10)
    expect(after.filter((id) => before.slice(0, 5).includes(id))).toEqual([])
    expect(after).toEqual(await exactNearest(q, 10))
    const view = (await chunkAnn(em(), 'term_chunks'))!
    const seqs = (await view.nearest(SPACE, q, 10_000)).seqs
    const gone = await em().execute<{ n: string }[]>(
      'select count(*) as n from unnest(?::int8[]) s where not exists (select 1 from term_chunks c where c.seq = s)',
      [`{${seqs.join(',')}}`],
    )
    expect(Number(gone[0]!.n)).toBe(0)
  })

  it("the graphs' thread dying loses nothing: searches are exact until the table is read again", async () => {
    const q = vectorLiteral(vectors(5)())
    const exact = await exactNearest(q, 10)
    expect(await chunkAnn(em(), 'term_chunks')).not.toBeNull()
    await endChunkGraphThread()
    // Every graph went with the thread: the table is a backlog again.
    expect(await chunkAnn(em(), 'term_chunks')).toBeNull()
    expect(await search(q, 10)).toEqual(exact)
    await catchUpChunkAnn(em(), ['term_chunks'])
    const view = (await chunkAnn(em(), 'term_chunks'))!
    expect(view).not.toBeNull()
    const [{ n }] = await em().execute<{ n: string }[]>('select count(*) as n from term_chunks')
    expect((await view.nearest(SPACE, q, 10_000)).seqs).toHaveLength(Number(n))
    expect(await search(q, 10)).toEqual(exact)
  })
})
