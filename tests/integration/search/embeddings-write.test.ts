import crypto from 'node:crypto'
import { beforeEach, describe, expect, it } from 'vitest'
import { writeEmbeddings, writePending } from '#app/services/index-queue/store.server.ts'
import { canCopyIn } from '#db/binary-copy.ts'
import { em } from '#db/orm.ts'
import { prng } from '#tests/prng.ts'
import { testEngine, useTestDb } from '#tests/setup/db.ts'

useTestDb()

/**
 * The embed stage's write of vectors (decision 016 "Speed"): on the embedded database they travel in
 * pgvector's binary form through a binary COPY, never through the text parse; on PostgreSQL in the same form
 * as bound parameters. On both, what is written must read back exactly, every one of the 1536 values, as the
 * float4 the column holds.
 */

const DIM = 1536
let queueId: string

/** A vector of awkward values: signs, tiny and large magnitudes, values float4 cannot hold exactly. */
function awkwardVector(seed: number): number[] {
  const rand = prng(seed)
  return Array.from({ length: DIM }, (_, i) => {
    if (i === 0) return 0
    if (i === 1) return -0.1
    if (i === 2) return 1e-38
    if (i === 3) return -3.4e38
    if (i === 4) return 1 / 3
    return (rand() * 2 - 1) * 10 ** Math.floor(rand() * 8 - 4)
  })
}

/** The stored vector of a pending chunk, bit for bit (pgvector's binary send form, not its text output). */
async function storedVector(chunkIndex: number): Promise<number[] | null> {
  const [row] = await em().execute<{ v: Uint8Array | null }[]>(
    'select vector_send(embedding) as v from rag_pending_chunks where queue_id = ? and chunk_index = ?',
    [queueId, chunkIndex],
  )
  if (!row?.v) return null
  const bytes = Buffer.from(row.v)
  expect(bytes.readInt16BE(0)).toBe(DIM)
  return Array.from({ length: DIM }, (_, i) => bytes.readFloatBE(4 + 4 * i))
}

beforeEach(async () => {
  queueId = crypto.randomUUID()
  await em().execute(
    `insert into rag_index_queue (id, source_type, source_id, revision, action, status, attempts)
     values (?, 'term', ?, 1, 'index', 'processing', 1)`,
    [queueId, crypto.randomUUID()],
  )
  await writePending(
    em(),
    queueId,
    [0, 1, 2].map((chunkIndex) => ({
      chunkIndex,
      sourceField: 'definition',
      startOffset: null,
      endOffset: null,
      content: `chunk ${chunkIndex}`,
      embedText: `chunk ${chunkIndex}`,
      contentHash: `hash-${chunkIndex}`,
    })),
  )
})

describe('writeEmbeddings', () => {
  it('runs the binary path on the embedded database only', () => {
    expect(canCopyIn()).toBe(testEngine() === 'pglite')
  })

  it('stores every one of the 1536 values exactly as float4', async () => {
    const vectors = [awkwardVector(1), awkwardVector(2)]
    await writeEmbeddings(em(), queueId, [
      { chunkIndex: 0, vector: vectors[0]! },
      { chunkIndex: 2, vector: vectors[1]! },
    ])
    const first = await storedVector(0)
    const third = await storedVector(2)
    expect(first).toEqual(vectors[0]!.map(Math.fround))
    expect(third).toEqual(vectors[1]!.map(Math.fround))
    // Every value compared one by one too, so a failure names the index.
    for (let i = 0; i < DIM; i++) expect(Object.is(first![i], Math.fround(vectors[0]![i]!))).toBe(true)
    expect(await storedVector(1)).toBeNull() // a chunk not in the batch is untouched
  })

  it('is idempotent: a retry of the same batch overwrites, later batches keep earlier ones', async () => {
    const a = awkwardVector(3)
    const b = awkwardVector(4)
    await writeEmbeddings(em(), queueId, [{ chunkIndex: 0, vector: a }])
    await writeEmbeddings(em(), queueId, [{ chunkIndex: 0, vector: a }])
    await writeEmbeddings(em(), queueId, [{ chunkIndex: 1, vector: b }])
    expect(await storedVector(0)).toEqual(a.map(Math.fround))
    expect(await storedVector(1)).toEqual(b.map(Math.fround))
  })

  it('writes nothing of a batch that fails, and the next batch starts clean', async () => {
    const good = awkwardVector(5)
    await expect(
      writeEmbeddings(em(), queueId, [
        { chunkIndex: 0, vector: good },
        { chunkIndex: 1, vector: [1, 2, 3] }, // the column holds 1536 dimensions
      ]),
    ).rejects.toThrow()
    expect(await storedVector(0)).toBeNull()
    await writeEmbeddings(em(), queueId, [{ chunkIndex: 1, vector: good }])
    expect(await storedVector(0)).toBeNull() // the failed batch's staged row did not come back
    expect(await storedVector(1)).toEqual(good.map(Math.fround))
  })

  it('works inside a caller’s transaction and leaves no staged rows after the commit', async () => {
    const v = awkwardVector(6)
    await em().transactional(async (tx) => {
      await writeEmbeddings(tx, queueId, [{ chunkIndex: 2, vector: v }])
    })
    expect(await storedVector(2)).toEqual(v.map(Math.fround))
    if (!canCopyIn()) return // the PostgreSQL path stages nothing
    const [{ n }] = await em().execute<{ n: string }[]>('select count(*) as n from pending_embeddings_in')
    expect(Number(n)).toBe(0)
  })
})
