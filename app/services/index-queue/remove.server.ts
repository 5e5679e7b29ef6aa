import type { EntityManager } from '@mikro-orm/postgresql'
import type { IndexSourceType } from '#db/entities/index-queue.entity.ts'

/**
 * The removal hook of the index pipeline: a wiki page moved to draft or archived, or an archived meeting,
 * must leave search (spec: "existing wiki chunks are removed from search"; "archived meetings … are
 * excluded"). Call it inside the same transaction as the status change.
 *
 * What it does today: deletes the source's `queued` and `failed` rows from `rag_index_queue`, so the worker
 * never indexes a revision that is no longer public. `processing` rows are left alone (the worker owns them;
 * its upsert stage must re-check that the source is still searchable before writing chunks) and `ready`
 * rows stay as history.
 *
 * TODO(indexing pipeline issue): when the per-source chunk tables exist (`wiki_chunks`, `meeting_chunks`),
 * delete this source's chunks here as well, in the same transaction.
 */
export async function removeFromSearch(
  tx: EntityManager,
  source: { sourceType: IndexSourceType; sourceId: string },
): Promise<void> {
  await tx.execute(
    `delete from rag_index_queue where source_type = ? and source_id = ? and status in ('queued', 'failed')`,
    [source.sourceType, source.sourceId],
    'run',
  )
}
