import crypto from 'node:crypto'
import type { EntityManager } from '@mikro-orm/postgresql'
import type { IndexSourceType } from '#db/entities/index-queue.entity.ts'

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

/** Queues one source inside the caller's transaction `tx`. Terms, wiki pages and meetings all use it. */
export async function enqueueIndex(tx: EntityManager, item: IndexQueueItem): Promise<void> {
  await enqueueIndexMany(tx, [item])
}

/** Queues many sources with one statement (bulk imports, classification changes). */
export async function enqueueIndexMany(tx: EntityManager, items: readonly IndexQueueItem[]): Promise<void> {
  if (items.length === 0) return
  // One row per source: ON CONFLICT may not touch the same row twice in one statement.
  const latest = new Map<string, IndexQueueItem>()
  for (const item of items) {
    const key = `${item.sourceType}:${item.sourceId}`
    const prev = latest.get(key)
    if (!prev || prev.revision < item.revision) latest.set(key, item)
  }
  const rows = [...latest.values()].map((item) => ({
    id: crypto.randomUUID(),
    source_type: item.sourceType,
    source_id: item.sourceId,
    revision: item.revision,
  }))
  await tx.execute(
    `insert into rag_index_queue (id, source_type, source_id, revision, status, attempts, created_at, updated_at)
     select x.id, x.source_type, x.source_id, x.revision, 'queued', 0, now(), now()
       from jsonb_to_recordset(?::jsonb) as x(id uuid, source_type text, source_id uuid, revision integer)
     on conflict (source_type, source_id) where status = 'queued'
     do update set revision = greatest(rag_index_queue.revision, excluded.revision), updated_at = now()`,
    [JSON.stringify(rows)],
    'run',
  )
}
