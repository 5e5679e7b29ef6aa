import crypto from 'node:crypto'
import type { EntityManager } from '@mikro-orm/postgresql'
import type { IndexSourceType } from '#db/entities/index-queue.entity.ts'
import type { IndexQueueAction } from '#domain/content.ts'

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
 * and keeps the higher revision (never backwards).
 */
export async function upsertQueued(
  tx: EntityManager,
  items: readonly IndexQueueItem[],
  action: IndexQueueAction,
): Promise<void> {
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
    `insert into rag_index_queue (id, source_type, source_id, revision, action, status, attempts, created_at, updated_at)
     select x.id, x.source_type, x.source_id, x.revision, ?, 'queued', 0, now(), now()
       from jsonb_to_recordset(?::jsonb) as x(id uuid, source_type text, source_id uuid, revision integer)
     on conflict (source_type, source_id) where status = 'queued'
     do update set revision = greatest(rag_index_queue.revision, excluded.revision), action = excluded.action,
                   updated_at = now()`,
    [action, JSON.stringify(rows)],
    'run',
  )
}

/**
 * Puts `failed` rows back to `queued` (spec: "failed → full reindex after the connection is fixed → queued"),
 * one per source: the newest failed row of a source without a queued row is revived, the source's other
 * failed rows are deleted (a source has at most one queued row). `ids` limits it to the sources of those
 * failed rows (the index status page's per-row retry) and revives only those rows; without it every failed
 * row is retried. Answers how many rows were revived.
 */
export async function requeueFailed(tx: EntityManager, ids?: readonly string[]): Promise<number> {
  // `null` means every failed row; an empty list means none.
  const only = ids === undefined ? null : `{${ids.join(',')}}`
  await tx.execute(
    `delete from rag_index_queue f
      where f.status = 'failed'
        and (?::uuid[] is null or exists (select 1 from rag_index_queue s where s.id = any(?::uuid[])
                                            and s.source_type = f.source_type and s.source_id = f.source_id))
        and (exists (select 1 from rag_index_queue q where q.status = 'queued'
                       and q.source_type = f.source_type and q.source_id = f.source_id)
             or exists (select 1 from rag_index_queue g where g.status = 'failed' and g.source_type = f.source_type
                          and g.source_id = f.source_id and (g.created_at, g.id) > (f.created_at, f.id)))`,
    [only, only],
    'run',
  )
  const rows = await tx.execute<{ n: string }[]>(
    `with revived as (
       update rag_index_queue set status = 'queued', attempts = 0, error = null, locked_at = null,
              finished_at = null, available_at = now(), updated_at = now()
        where status = 'failed' and (?::uuid[] is null or id = any(?::uuid[])) returning 1)
     select count(*) as n from revived`,
    [only, only],
  )
  return Number(rows[0]?.n ?? 0)
}
