import crypto from 'node:crypto'
import { beforeEach, describe, expect, it } from 'vitest'
import { listFailedIndexRows, retryFailedIndexRows } from '#app/services/index-queue/failed.server.ts'
import { em } from '#db/orm.ts'
import { createTerm } from '#tests/factories.ts'
import { useTestDb } from '#tests/setup/db.ts'

useTestDb()

/**
 * The failed rows of the index queue as the index status page reads them, and their retry
 * (app/services/index-queue/failed.server.ts): one row per source, the newest; the source's current name;
 * a retry of chosen rows or of all, one queued row per source at most.
 */

let minute = 0
/** A queue row as the worker would leave it, each one a minute newer than the last. */
async function row(
  source: { type: 'term' | 'wiki' | 'meeting'; id: string },
  status: 'queued' | 'processing' | 'failed' | 'ready',
  revision = 1,
  error: string | null = status === 'failed' ? `failed at revision ${revision}` : null,
): Promise<string> {
  const id = crypto.randomUUID()
  minute++
  await em().execute(
    `insert into rag_index_queue (id, source_type, source_id, revision, action, status, attempts, error,
                                  finished_at, created_at, updated_at)
     values (?, ?, ?, ?, 'index', ?, 1, ?, ?, ?, ?)`,
    [
      id,
      source.type,
      source.id,
      revision,
      status,
      error,
      status === 'failed' || status === 'ready' ? new Date(Date.UTC(2026, 0, 1, 0, minute)) : null,
      new Date(Date.UTC(2026, 0, 1, 0, minute)),
      new Date(Date.UTC(2026, 0, 1, 0, minute)),
    ],
  )
  return id
}

const statusOf = async (id: string) =>
  (await em().execute<{ status: string }[]>('select status from rag_index_queue where id = ?', [id]))[0]
    ?.status ?? 'deleted'

beforeEach(async () => {
  await em().execute('delete from rag_index_queue')
})

describe('listFailedIndexRows', () => {
  it('answers the newest failed row of each source, newest first, with the source’s name and slug', async () => {
    const term = await createTerm({ name: 'Failing Term' })
    await em().execute('delete from rag_index_queue')
    const t = { type: 'term' as const, id: term.id }
    await row(t, 'failed', 1)
    const newest = await row(t, 'failed', 2)
    const gone = { type: 'meeting' as const, id: crypto.randomUUID() }
    const goneRow = await row(gone, 'failed', 3)
    await row({ type: 'term', id: crypto.randomUUID() }, 'ready')

    const { items, total } = await listFailedIndexRows()
    expect(total).toBe(2)
    expect(items.map((i) => i.id)).toEqual([goneRow, newest])
    expect(items[1]).toMatchObject({
      sourceType: 'term',
      sourceId: term.id,
      title: 'Failing Term',
      slug: term.slug,
      revision: 2,
      action: 'index',
      message: 'failed at revision 2',
      failedAt: '2026-01-01T00:02:00.000Z',
      pending: false,
    })
    expect(items[0]).toMatchObject({ title: null, slug: null, sourceType: 'meeting' })
  })

  it('says when newer work of the source is queued or under way', async () => {
    const source = { type: 'wiki' as const, id: crypto.randomUUID() }
    await row(source, 'failed')
    await row(source, 'processing', 2)
    expect((await listFailedIndexRows()).items[0]!.pending).toBe(true)
  })
})

describe('retryFailedIndexRows', () => {
  it('puts a chosen row back to queued with its attempts reset; older failed rows of its source go', async () => {
    const a = { type: 'term' as const, id: crypto.randomUUID() }
    const b = { type: 'term' as const, id: crypto.randomUUID() }
    const older = await row(a, 'failed', 1)
    const chosen = await row(a, 'failed', 2)
    const other = await row(b, 'failed', 1)
    expect(await retryFailedIndexRows({ ids: [chosen] })).toEqual({ requeued: 1 })
    const [revived] = await em().execute<{ status: string; attempts: number; error: string | null }[]>(
      'select status, attempts, error from rag_index_queue where id = ?',
      [chosen],
    )
    expect(revived).toEqual({ status: 'queued', attempts: 0, error: null })
    expect(await statusOf(older)).toBe('deleted')
    expect(await statusOf(other)).toBe('failed')
  })

  it('a row whose source already has a queued row is removed instead (the queued row indexes it)', async () => {
    const source = { type: 'meeting' as const, id: crypto.randomUUID() }
    const failed = await row(source, 'failed', 1)
    const queued = await row(source, 'queued', 2)
    expect(await retryFailedIndexRows({ ids: [failed] })).toEqual({ requeued: 0 })
    expect(await statusOf(failed)).toBe('deleted')
    expect(await statusOf(queued)).toBe('queued')
  })

  it('without ids retries every failed row; an empty list or an unknown id retries none', async () => {
    const one = await row({ type: 'term', id: crypto.randomUUID() }, 'failed')
    const two = await row({ type: 'wiki', id: crypto.randomUUID() }, 'failed')
    expect(await retryFailedIndexRows({ ids: [] })).toEqual({ requeued: 0 })
    expect(await retryFailedIndexRows({ ids: [crypto.randomUUID()] })).toEqual({ requeued: 0 })
    expect([await statusOf(one), await statusOf(two)]).toEqual(['failed', 'failed'])
    expect(await retryFailedIndexRows()).toEqual({ requeued: 2 })
    expect([await statusOf(one), await statusOf(two)]).toEqual(['queued', 'queued'])
  })
})
