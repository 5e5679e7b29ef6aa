import type { EntityManager } from '@mikro-orm/postgresql'
import type { IndexSourceType } from '#db/entities/index-queue.entity.ts'
import type { IndexQueueAction } from '#domain/content.ts'
import { textArray } from '#db/sql.ts'

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

// ── Pending chunks ──────────────────────────────────────────────────────────────────────────────────────

export interface PendingChunk {
  chunkIndex: number
  sourceField: string | null
  startOffset: number | null
  endOffset: number | null
  content: string
  embedText: string
  contentHash: string
  /** pgvector text form, once embedded. */
  embedding: string | null
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
  embedding: string | null
}

/** The row's pending chunks (only those still without an embedding with `unembedded`). */
export async function readPending(
  manager: EntityManager,
  queueId: string,
  options: { unembedded?: boolean } = {},
): Promise<PendingChunk[]> {
  const rows = await manager.execute<PendingRow[]>(
    `select chunk_index, source_field, start_offset, end_offset, content, embed_text, content_hash,
            embedding::text as embedding
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
    embedding: r.embedding,
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
 * Stores embeddings of pending chunks (chunk index → pgvector text). Two parallel arrays rather than one JSON
 * document: pgvector parses the text once, and PGlite parses arrays about twice as fast as jsonb records.
 */
export async function writeEmbeddings(
  tx: EntityManager,
  queueId: string,
  embeddings: readonly { chunkIndex: number; embedding: string }[],
): Promise<void> {
  if (embeddings.length === 0) return
  await tx.execute(
    `update rag_pending_chunks p set embedding = x.embedding::vector
       from unnest(?::integer[], ?::text[]) as x(chunk_index, embedding)
      where p.queue_id = ? and p.chunk_index = x.chunk_index`,
    [
      `{${embeddings.map((e) => e.chunkIndex).join(',')}}`,
      textArray(embeddings.map((e) => e.embedding)),
      queueId,
    ],
    'run',
  )
}
