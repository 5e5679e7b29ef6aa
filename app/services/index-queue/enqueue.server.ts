import type { EntityManager } from '@mikro-orm/postgresql'
import type { IndexSourceType } from '#db/entities/index-queue.entity.ts'
import type { IndexQueueAction } from '#domain/content.ts'
import { upsertQueuedRows } from './store.server.ts'

/**
 * The outbox side of the index pipeline (design §4): every change that affects search puts the source on
 * `rag_index_queue` in the SAME transaction as the change, with the revision at enqueue time. A source has at
 * most one `queued` row (partial unique index `rag_index_queue_one_queued`); saving again only moves that
 * row's revision forward, so a burst of edits costs the worker one job.
 */
export interface IndexQueueItem {
  sourceType: IndexSourceType
  sourceId: string
  revision: number
}

/**
 * Queues one source for indexing inside the caller's transaction `tx`. Terms, wiki pages and meetings all
 * use it; the way out of search is `leaveSearch` (leave-search.server.ts), which writes the same row.
 */
export async function enqueueIndex(tx: EntityManager, item: IndexQueueItem): Promise<void> {
  await enqueueIndexMany(tx, [item])
}

/** Queues many sources with one statement (bulk imports, classification changes). */
export async function enqueueIndexMany(tx: EntityManager, items: readonly IndexQueueItem[]): Promise<void> {
  await upsertQueued(tx, items, 'index')
}

/**
 * Writes the one `queued` row of each source with `action`. A source that already has one takes the new
 * action (the latest intent wins: a page published again after it was archived is indexed, not removed)
 * and keeps the higher revision (never backwards). `runId` gives the rows to a full reindex run (decision 028).
 */
export async function upsertQueued(
  tx: EntityManager,
  items: readonly IndexQueueItem[],
  action: IndexQueueAction,
  runId: string | null = null,
): Promise<void> {
  if (items.length === 0) return
  // One row per source: ON CONFLICT may not touch the same row twice in one statement.
  const latest = new Map<string, IndexQueueItem>()
  for (const item of items) {
    const key = `${item.sourceType}:${item.sourceId}`
    const prev = latest.get(key)
    if (!prev || prev.revision < item.revision) latest.set(key, item)
  }
  await upsertQueuedRows(tx, [...latest.values()], action, runId)
}
