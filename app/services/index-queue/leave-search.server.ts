import type { EntityManager } from '@mikro-orm/postgresql'
import type { IndexSourceType } from '#db/entities/index-queue.entity.ts'
import { upsertQueued } from './enqueue.server.ts'
import { deleteFailedRowsOf } from './store.server.ts'

/**
 * The one way out of search (docs/decisions/006-term-model.md, "Leaving search"). A deleted term, a term
 * merged into another, an archived meeting and a wiki page moved to `draft` or `archived` all call this,
 * inside the transaction that makes the change, so "leaves search" means the same thing everywhere.
 *
 * The queue is the system of record (design §4), so leaving search is written there, as work for the
 * index pipeline like any other: the source's one `queued` row becomes a `remove` row at `revision` (or is
 * created as one). The worker deletes the source's chunks when it takes the row; an indexing job of the
 * same source already under way sees the newer queued row and skips its upsert (design §4: "skip if a newer
 * revision was queued meanwhile"), so no chunk of the source comes back. A `failed` row of the source is
 * deleted: a retry of it must never put the source back. `ready` rows stay as history. Search itself reads
 * only live sources (non-merged terms, published pages, active meetings), so results are right from the
 * commit on; the queued removal is what frees the chunks.
 */
export async function leaveSearch(
  tx: EntityManager,
  source: { kind: IndexSourceType; id: string; revision: number },
): Promise<void> {
  await deleteFailedRowsOf(tx, source.kind, source.id)
  await upsertQueued(
    tx,
    [{ sourceType: source.kind, sourceId: source.id, revision: source.revision }],
    'remove',
  )
}
