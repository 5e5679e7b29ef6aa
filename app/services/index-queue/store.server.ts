import type { EntityManager } from '@mikro-orm/postgresql'
import type { IndexSourceType } from '#db/entities/index-queue.entity.ts'
import type { IndexQueueAction } from '#domain/content.ts'
import { binaryCopyData, canCopyIn, copyIn, copyInt4, copyVector } from '#db/binary-copy.ts'
import { textArray, vectorLiteral } from '#db/sql.ts'

/**
 * The SQL of the worker's side of `rag_index_queue` (queue claiming, relaying, retries, stale rows) and of the
 * chunks a row's stages hand to each other (`rag_pending_chunks`). The write side (enqueue, leave search) is
 * in enqueue.server.ts and leave-search.server.ts.
 */

export interface QueueRow {
  id: string
  source_type: IndexSourceType
  source_id: string
  revision: number
  action: IndexQueueAction
  status: string
  attempts: number
}

const ROW = 'id, source_type, source_id, revision, action, status, attempts'

/**
 * Takes up to `limit` queued rows that are due (oldest first) with `FOR UPDATE SKIP LOCKED`, so several
 * claimers never take the same row, and marks them `processing`. `actions` limits what is taken (only
 * removals while search has no provider).
 */
export async function claimDue(
  tx: EntityManager,
  limit: number,
  actions: readonly IndexQueueAction[],
): Promise<QueueRow[]> {
  return tx.execute<QueueRow[]>(
    `update rag_index_queue q set status = 'processing', attempts = q.attempts + 1, locked_at = now(), updated_at = now()
      where q.id in (select id from rag_index_queue
                      where status = 'queued' and available_at <= now() and action = any(?::text[])
                      order by available_at, created_at limit ? for update skip locked)
      returning ${ROW}`,
    [`{${actions.join(',')}}`, limit],
  )
}

/** Takes one queued row by id when it is still the work the job was made for (its revision and attempt). */
export async function claimOne(
  tx: EntityManager,
  id: string,
  revision: number,
  attemptsBefore: number,
): Promise<QueueRow | undefined> {
  const rows = await tx.execute<QueueRow[]>(
    `update rag_index_queue set status = 'processing', attempts = attempts + 1, locked_at = now(), updated_at = now()
      where id = ? and status = 'queued' and revision = ? and attempts = ? and available_at <= now()
      returning ${ROW}`,
    [id, revision, attemptsBefore],
  )
  return rows[0]
}

/** The row while this claim still holds it (`processing` at this attempt); undefined when the work moved on. */
export async function heldRow(
  manager: EntityManager,
  id: string,
  attempt: number,
  lock = false,
): Promise<QueueRow | undefined> {
  const rows = await manager.execute<QueueRow[]>(
    `select ${ROW} from rag_index_queue where id = ? and status = 'processing' and attempts = ?${lock ? ' for update' : ''}`,
    [id, attempt],
  )
  return rows[0]
}

/** Refreshes the claim's time, so a long row is not taken for stale. */
export async function touch(manager: EntityManager, id: string): Promise<void> {
  await manager.execute(
    `update rag_index_queue set locked_at = now() where id = ? and status = 'processing'`,
    [id],
    'run',
  )
}

export async function markReady(manager: EntityManager, id: string, attempt: number): Promise<void> {
  await manager.execute(
    `update rag_index_queue set status = 'ready', error = null, locked_at = null, finished_at = now(), updated_at = now()
      where id = ? and status = 'processing' and attempts = ?`,
    [id, attempt],
    'run',
  )
  await manager.execute('delete from rag_pending_chunks where queue_id = ?', [id], 'run')
}

export async function markFailed(
  manager: EntityManager,
  id: string,
  attempt: number,
  message: string,
): Promise<void> {
  await manager.execute(
    `update rag_index_queue set status = 'failed', error = ?, locked_at = null, finished_at = now(), updated_at = now()
      where id = ? and status = 'processing' and attempts = ?`,
    [message, id, attempt],
    'run',
  )
  await manager.execute('delete from rag_pending_chunks where queue_id = ?', [id], 'run')
}

/**
 * Puts a row back to `queued`, due after `delayMs` (a retry with backoff, or search switched off meanwhile).
 * A newer queued row of the same source wins: then this one is finished instead (the unique index allows one
 * queued row per source), since the newer row indexes the source anyway.
 */
export async function requeue(
  manager: EntityManager,
  row: Pick<QueueRow, 'id' | 'source_type' | 'source_id'>,
  attempt: number,
  delayMs: number,
  message: string | null,
): Promise<void> {
  await manager.transactional(async (tx) => {
    const newer = await tx.execute<{ id: string }[]>(
      `select id from rag_index_queue where source_type = ? and source_id = ? and status = 'queued'`,
      [row.source_type, row.source_id],
    )
    if (newer.length) {
      await markReady(tx, row.id, attempt)
      return
    }
    await tx.execute(
      `update rag_index_queue set status = 'queued', error = ?, locked_at = null,
              available_at = now() + (? * interval '1 millisecond'), updated_at = now()
        where id = ? and status = 'processing' and attempts = ?`,
      [message, delayMs, row.id, attempt],
      'run',
    )
  })
}

/** Whether the source has a queued row (newer work that supersedes a row being processed). */
export async function hasQueuedRow(
  manager: EntityManager,
  sourceType: IndexSourceType,
  sourceId: string,
): Promise<boolean> {
  const rows = await manager.execute<{ id: string }[]>(
    `select id from rag_index_queue where source_type = ? and source_id = ? and status = 'queued' limit 1`,
    [sourceType, sourceId],
  )
  return rows.length > 0
}

/**
 * `processing` rows whose claim is older than `olderThanMs` go back to `queued` (their process died, or their
 * job was lost with Redis). A source that has a queued row meanwhile keeps that one and the stale row ends
 * `ready` (superseded). Answers how many rows were returned.
 */
export async function returnStale(manager: EntityManager, olderThanMs: number): Promise<number> {
  return manager.transactional(async (tx) => {
    const stale = await tx.execute<QueueRow[]>(
      `select ${ROW} from rag_index_queue
        where status = 'processing' and locked_at < now() - (? * interval '1 millisecond') for update skip locked`,
      [olderThanMs],
    )
    let returned = 0
    for (const row of stale) {
      if (await hasQueuedRow(tx, row.source_type, row.source_id)) {
        await markReady(tx, row.id, row.attempts)
        continue
      }
      await tx.execute(
        `update rag_index_queue set status = 'queued', locked_at = null, available_at = now(), updated_at = now()
          where id = ?`,
        [row.id],
        'run',
      )
      await tx.execute('delete from rag_pending_chunks where queue_id = ?', [row.id], 'run')
      returned++
    }
    return returned
  })
}

/** Queued rows that are due, oldest first, for the relay to BullMQ. */
export async function dueRows(
  manager: EntityManager,
  limit: number,
  actions: readonly IndexQueueAction[],
): Promise<QueueRow[]> {
  return manager.execute<QueueRow[]>(
    `select ${ROW} from rag_index_queue where status = 'queued' and available_at <= now() and action = any(?::text[])
      order by available_at, created_at limit ?`,
    [`{${actions.join(',')}}`, limit],
  )
}

/** A failed row as the index status page lists it, with what names its source now. */
export interface FailedRow {
  id: string
  source_type: IndexSourceType
  source_id: string
  revision: number
  action: IndexQueueAction
  attempts: number
  error: string | null
  finished_at: Date | string | null
  /** The term's name, the page's or the meeting's title; null when the source is gone. */
  title: string | null
  /** The term's or the page's slug (meetings are addressed by id). */
  slug: string | null
  /** Whether the source has newer work queued or under way (the failure is already superseded). */
  pending: boolean
}

/**
 * The newest failed row of each source, newest first (older failed rows of a source are superseded by it and
 * go when it is retried), at most `limit`; and how many sources have one.
 */
export async function selectFailedRows(
  manager: EntityManager,
  limit: number,
): Promise<{ rows: FailedRow[]; total: number }> {
  const newest = `select distinct on (source_type, source_id) *
                    from rag_index_queue where status = 'failed'
                   order by source_type, source_id, created_at desc, id desc`
  const rows = await manager.execute<FailedRow[]>(
    `select f.id, f.source_type, f.source_id, f.revision, f.action, f.attempts, f.error, f.finished_at,
            coalesce(t.name, w.title, m.title) as title, coalesce(t.slug, w.slug) as slug,
            exists (select 1 from rag_index_queue o where o.source_type = f.source_type and o.source_id = f.source_id
                      and o.status in ('queued', 'processing')) as pending
       from (${newest}) f
       left join terms t on f.source_type = 'term' and t.id = f.source_id
       left join wiki_pages w on f.source_type = 'wiki' and w.id = f.source_id
       left join meetings m on f.source_type = 'meeting' and m.id = f.source_id
      order by f.finished_at desc nulls last, f.id
      limit ?`,
    [limit],
  )
  const [count] = await manager.execute<{ n: string }[]>(`select count(*) as n from (${newest}) f`)
  return { rows, total: Number(count?.n ?? 0) }
}

// ── Pending chunks ──────────────────────────────────────────────────────────────────────────────────────

export interface PendingChunk {
  chunkIndex: number
  sourceField: string | null
  startOffset: number | null
  endOffset: number | null
  content: string
  embedText: string
  contentHash: string
}

/** Replaces the row's pending chunks. */
export async function writePending(
  tx: EntityManager,
  queueId: string,
  chunks: readonly PendingChunk[],
): Promise<void> {
  await tx.execute('delete from rag_pending_chunks where queue_id = ?', [queueId], 'run')
  if (chunks.length === 0) return
  await tx.execute(
    `insert into rag_pending_chunks (queue_id, chunk_index, source_field, start_offset, end_offset, content, embed_text, content_hash)
     select ?, x.chunk_index, x.source_field, x.start_offset, x.end_offset, x.content, x.embed_text, x.content_hash
       from jsonb_to_recordset(?::jsonb) as x(chunk_index integer, source_field text, start_offset integer,
                                              end_offset integer, content text, embed_text text, content_hash text)`,
    [
      queueId,
      JSON.stringify(
        chunks.map((c) => ({
          chunk_index: c.chunkIndex,
          source_field: c.sourceField,
          start_offset: c.startOffset,
          end_offset: c.endOffset,
          content: c.content,
          embed_text: c.embedText,
          content_hash: c.contentHash,
        })),
      ),
    ],
    'run',
  )
}

interface PendingRow {
  chunk_index: number
  source_field: string | null
  start_offset: number | null
  end_offset: number | null
  content: string
  embed_text: string
  content_hash: string
}

/** The row's pending chunks (only those still without an embedding with `unembedded`). */
export async function readPending(
  manager: EntityManager,
  queueId: string,
  options: { unembedded?: boolean } = {},
): Promise<PendingChunk[]> {
  const rows = await manager.execute<PendingRow[]>(
    `select chunk_index, source_field, start_offset, end_offset, content, embed_text, content_hash
       from rag_pending_chunks where queue_id = ?${options.unembedded ? ' and embedding is null' : ''}
      order by chunk_index`,
    [queueId],
  )
  return rows.map((r) => ({
    chunkIndex: r.chunk_index,
    sourceField: r.source_field,
    startOffset: r.start_offset,
    endOffset: r.end_offset,
    content: r.content,
    embedText: r.embed_text,
    contentHash: r.content_hash,
  }))
}

/** How many of the row's pending chunks still have no embedding. */
export async function countUnembedded(manager: EntityManager, queueId: string): Promise<number> {
  const rows = await manager.execute<{ n: string }[]>(
    'select count(*) as n from rag_pending_chunks where queue_id = ? and embedding is null',
    [queueId],
  )
  return Number(rows[0]?.n ?? 0)
}

/**
 * Stores the vectors of a row's pending chunks (chunk index → vector), in one short transaction. On the
 * embedded database they travel in pgvector's binary form through a binary COPY into a session-local staging
 * table, then one UPDATE moves them: pgvector's text parse costs ~3 ms per 1536-d vector in WASM, which bounded
 * the reindex rate (decision 016 "Speed"). `on commit delete rows` empties the staging table at every commit,
 * so a batch never sees another's rows and nothing piles up. PostgreSQL parses the text form fast, so it gets
 * two parallel arrays (an `integer[]` and a `text[]` of vector literals; one statement, parsed once).
 */
export async function writeEmbeddings(
  manager: EntityManager,
  queueId: string,
  embeddings: readonly { chunkIndex: number; vector: readonly number[] }[],
): Promise<void> {
  if (embeddings.length === 0) return
  if (!canCopyIn()) {
    await manager.execute(
      `update rag_pending_chunks p set embedding = x.embedding::vector
         from unnest(?::integer[], ?::text[]) as x(chunk_index, embedding)
        where p.queue_id = ? and p.chunk_index = x.chunk_index`,
      [
        `{${embeddings.map((e) => e.chunkIndex).join(',')}}`,
        textArray(embeddings.map((e) => vectorLiteral(e.vector))),
        queueId,
      ],
      'run',
    )
    return
  }
  await manager.transactional(async (tx) => {
    await tx.execute(
      `create temp table if not exists pending_embeddings_in (chunk_index integer not null, embedding vector not null)
         on commit delete rows`,
      [],
      'run',
    )
    await copyIn(
      tx,
      'pending_embeddings_in (chunk_index, embedding)',
      binaryCopyData(embeddings.map((e) => [copyInt4(e.chunkIndex), copyVector(e.vector)])),
    )
    await tx.execute(
      `update rag_pending_chunks p set embedding = x.embedding from pending_embeddings_in x
        where p.queue_id = ? and p.chunk_index = x.chunk_index`,
      [queueId],
      'run',
    )
  })
}
