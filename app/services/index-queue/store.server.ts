import crypto from 'node:crypto'
import type { EntityManager } from '@mikro-orm/postgresql'
import type { IndexSourceType } from '#db/entities/index-queue.entity.ts'
import type { IndexQueueAction } from '#domain/content.ts'
import { binaryCopyData, canCopyIn, copyIn, copyInt4, copyVector, vectorBinary } from '#db/binary-copy.ts'

/**
 * The SQL of `rag_index_queue`, all of it: the write side (enqueue, leave search, retry failed rows; their
 * rules in enqueue.server.ts and leave-search.server.ts), the worker's side (claims, retries, orphans,
 * relaying), the chunks a row's stages hand to each other (`rag_pending_chunks`), the workers' heartbeats,
 * the providers' pauses and what operators see (decision 027).
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

// ── The write side ──────────────────────────────────────────────────────────────────────────────────────

/**
 * Writes the one `queued` row of each source (one item per source) with `action`: a source that has one takes
 * the new action and keeps the higher revision (never backwards). `runId` gives the rows to a full reindex
 * run (decision 028); every other write takes them back from one (a save after the run read the source is
 * ordinary work again).
 */
export async function upsertQueuedRows(
  tx: EntityManager,
  items: readonly { sourceType: IndexSourceType; sourceId: string; revision: number }[],
  action: IndexQueueAction,
  runId: string | null = null,
): Promise<void> {
  const rows = items.map((item) => ({
    id: crypto.randomUUID(),
    source_type: item.sourceType,
    source_id: item.sourceId,
    revision: item.revision,
  }))
  await tx.execute(
    `insert into rag_index_queue (id, source_type, source_id, revision, action, status, attempts, run_id, created_at, updated_at)
     select x.id, x.source_type, x.source_id, x.revision, ?, 'queued', 0, ?::uuid, now(), now()
       from jsonb_to_recordset(?::jsonb) as x(id uuid, source_type text, source_id uuid, revision integer)
     on conflict (source_type, source_id) where status = 'queued'
     do update set revision = greatest(rag_index_queue.revision, excluded.revision), action = excluded.action,
                   run_id = excluded.run_id, updated_at = now()`,
    [action, runId, JSON.stringify(rows)],
    'run',
  )
}

/**
 * Puts `failed` rows back to `queued`, one per source (the newest failed row of a source without a queued row
 * is revived, its other failed rows deleted); `ids` limits it to the sources of those rows and revives only
 * them. Answers how many rows were revived.
 */
export async function reviveFailedRows(tx: EntityManager, ids?: readonly string[]): Promise<number> {
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
       update rag_index_queue set status = 'queued', attempts = 0, error = null, locked_at = null, locked_by = null,
              finished_at = null, available_at = now(), updated_at = now()
        where status = 'failed' and (?::uuid[] is null or id = any(?::uuid[])) returning 1)
     select count(*) as n from revived`,
    [only, only],
  )
  return Number(rows[0]?.n ?? 0)
}

/** A source leaving search drops its failed rows: a retry of one must never put the source back. */
export async function deleteFailedRowsOf(
  tx: EntityManager,
  sourceType: IndexSourceType,
  sourceId: string,
): Promise<void> {
  await tx.execute(
    `delete from rag_index_queue where source_type = ? and source_id = ? and status = 'failed'`,
    [sourceType, sourceId],
    'run',
  )
}

// ── The worker's side ───────────────────────────────────────────────────────────────────────────────────

/**
 * Takes one queued row by id for `holder` (a worker's heartbeat id) when it is still the work the job was made
 * for (its revision and its attempt), and marks it `processing`; undefined when the row moved on.
 */
export async function claimOne(
  tx: EntityManager,
  id: string,
  revision: number,
  attemptsBefore: number,
  holder: string,
): Promise<QueueRow | undefined> {
  const rows = await tx.execute<QueueRow[]>(
    `update rag_index_queue set status = 'processing', attempts = attempts + 1, locked_at = now(), locked_by = ?,
            updated_at = now()
      where id = ? and status = 'queued' and revision = ? and attempts = ? and available_at <= now()
        and run_id is null
      returning ${ROW}`,
    [holder, id, revision, attemptsBefore],
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

/** Refreshes the claim: its time, and the worker now running it (a stage may run on another worker). */
export async function touch(
  manager: EntityManager,
  id: string,
  attempt: number,
  holder: string,
): Promise<void> {
  await manager.execute(
    `update rag_index_queue set locked_at = now(), locked_by = ? where id = ? and status = 'processing' and attempts = ?`,
    [holder, id, attempt],
    'run',
  )
}

export async function markReady(manager: EntityManager, id: string, attempt: number): Promise<void> {
  await manager.execute(
    `update rag_index_queue set status = 'ready', error = null, locked_at = null, locked_by = null, finished_at = now(),
            updated_at = now()
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
    `update rag_index_queue set status = 'failed', error = ?, locked_at = null, locked_by = null, finished_at = now(),
            updated_at = now()
      where id = ? and status = 'processing' and attempts = ?`,
    [message, id, attempt],
    'run',
  )
  await manager.execute('delete from rag_pending_chunks where queue_id = ?', [id], 'run')
}

/**
 * Puts a row back to `queued`, due after `delayMs` (a retry with backoff, search switched off meanwhile, or a
 * paused provider). With `spendAttempt: false` the claim is given back (attempts − 1): waiting out a provider's
 * outage is not the row's failure. A newer queued row of the same source wins: then this one is finished
 * instead (the unique index allows one queued row per source), since the newer row indexes the source anyway.
 */
export async function requeue(
  manager: EntityManager,
  row: Pick<QueueRow, 'id' | 'source_type' | 'source_id'>,
  attempt: number,
  delayMs: number,
  message: string | null,
  options: { spendAttempt?: boolean } = {},
): Promise<void> {
  await manager.transactional(async (tx) => {
    if (await hasQueuedRow(tx, row.source_type, row.source_id)) {
      await markReady(tx, row.id, attempt)
      return
    }
    await tx.execute(
      `update rag_index_queue set status = 'queued', error = ?, locked_at = null, locked_by = null,
              attempts = attempts - ?, available_at = now() + (? * interval '1 millisecond'), updated_at = now()
        where id = ? and status = 'processing' and attempts = ?`,
      [message, options.spendAttempt === false ? 1 : 0, delayMs, row.id, attempt],
      'run',
    )
    await tx.execute('delete from rag_pending_chunks where queue_id = ?', [row.id], 'run')
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

/** A claim's `locked_at` to the microsecond, as text (a JavaScript date keeps only milliseconds). */
const CLAIM_STAMP = `(extract(epoch from q.locked_at) * 1000000)::bigint::text`

/** A `processing` row as the relay judges it (decision 027). */
export interface ClaimedRow extends QueueRow {
  locked_by: string | null
  /** Its claim is older than the last-resort limit. */
  expired: boolean
  /** No live worker holds it: the worker that last took it stopped beating (killed, or its machine gone). */
  holder_gone: boolean
  /** Its `locked_at` in epoch microseconds: which claim was judged (see `returnToQueue`). */
  claim_stamp: string
}

/**
 * `processing` rows whose claim was last refreshed more than `graceMs` ago, oldest first, with what the relay
 * needs to tell a live claim from an orphan: whether the claim is older than `expiredMs` and whether the
 * worker that holds it stopped beating `deadMs` ago (or never registered).
 */
export async function claimedRows(
  manager: EntityManager,
  limits: { graceMs: number; expiredMs: number; deadMs: number },
): Promise<ClaimedRow[]> {
  return manager.execute<ClaimedRow[]>(
    `select q.id, q.source_type, q.source_id, q.revision, q.action, q.status, q.attempts, q.locked_by,
            q.locked_at < now() - (? * interval '1 millisecond') as expired,
            (h.id is null or h.last_seen_at < now() - (? * interval '1 millisecond')) as holder_gone,
            ${CLAIM_STAMP} as claim_stamp
       from rag_index_queue q left join worker_heartbeat h on h.id = q.locked_by
      where q.status = 'processing' and q.locked_at < now() - (? * interval '1 millisecond')
      order by q.locked_at limit 1000`,
    [limits.expiredMs, limits.deadMs, limits.graceMs],
  )
}

/**
 * Returns an orphaned `processing` row to `queued` (its attempt stays spent, so a row that kills its worker
 * every time still fails in the end). A source that has a queued row meanwhile keeps that one and this row
 * ends `ready` (superseded). Answers what happened; `moved` when the claim moved on since it was judged: the
 * row must still hold the very claim judged, its attempt AND its `locked_at`, since a requeue that spends no
 * attempt (a provider pause) lets a new claim reuse the attempt's number.
 */
export async function returnToQueue(
  manager: EntityManager,
  row: Pick<ClaimedRow, 'id' | 'source_type' | 'source_id' | 'attempts' | 'claim_stamp'>,
): Promise<'queued' | 'superseded' | 'moved'> {
  return manager.transactional(async (tx) => {
    const [held] = await tx.execute<{ id: string }[]>(
      `select q.id from rag_index_queue q
        where q.id = ? and q.status = 'processing' and q.attempts = ? and ${CLAIM_STAMP} = ?
          for update skip locked`,
      [row.id, row.attempts, row.claim_stamp],
    )
    if (!held) return 'moved'
    if (await hasQueuedRow(tx, row.source_type, row.source_id)) {
      await markReady(tx, row.id, row.attempts)
      return 'superseded'
    }
    await tx.execute(
      `update rag_index_queue set status = 'queued', locked_at = null, locked_by = null, available_at = now(),
              updated_at = now()
        where id = ?`,
      [row.id],
      'run',
    )
    await tx.execute('delete from rag_pending_chunks where queue_id = ?', [row.id], 'run')
    return 'queued'
  })
}

/**
 * Queued rows that are due, oldest first, for the relay (not the rows a full reindex run covers); `due_since` (the row's `available_at` in epoch
 * milliseconds) changes whenever the row is queued again, so the relay can tell a requeued row from one it
 * already submitted.
 */
export async function dueRows(
  manager: EntityManager,
  limit: number,
  actions: readonly IndexQueueAction[],
): Promise<(QueueRow & { due_since: string })[]> {
  return manager.execute<(QueueRow & { due_since: string })[]>(
    `select ${ROW}, (extract(epoch from available_at) * 1000)::bigint::text as due_since
       from rag_index_queue
      where status = 'queued' and available_at <= now() and run_id is null and action = any(?::text[])
      order by available_at, created_at limit ?`,
    [`{${actions.join(',')}}`, limit],
  )
}

/** What operators see of the queue: counts by status and how long the oldest due row has waited. */
export interface QueueHealth {
  queued: number
  /**
   * Queued rows that are due now for the relay: not waiting out a retry's delay or a provider's pause, and
   * not covered by a full reindex run (the run's progress is its own, `reindexProgress`).
   */
  due: number
  /** Queued rows a full reindex run covers (decision 028). */
  inRun: number
  processing: number
  failed: number
  /** Seconds the oldest due row has been due; null when none is. */
  oldestDueSeconds: number | null
}

export async function queueHealth(manager: EntityManager): Promise<QueueHealth> {
  const [row] = await manager.execute<
    {
      queued: string
      due: string
      in_run: string
      processing: string
      failed: string
      oldest: string | null
    }[]
  >(
    `select count(*) filter (where status = 'queued') as queued,
            count(*) filter (where status = 'queued' and available_at <= now() and run_id is null) as due,
            count(*) filter (where status = 'queued' and run_id is not null) as in_run,
            count(*) filter (where status = 'processing') as processing,
            count(*) filter (where status = 'failed') as failed,
            extract(epoch from now() - min(available_at)
              filter (where status = 'queued' and available_at <= now() and run_id is null)) as oldest
       from rag_index_queue where status in ('queued', 'processing', 'failed')`,
  )
  return {
    queued: Number(row?.queued ?? 0),
    due: Number(row?.due ?? 0),
    inRun: Number(row?.in_run ?? 0),
    processing: Number(row?.processing ?? 0),
    failed: Number(row?.failed ?? 0),
    oldestDueSeconds: row?.oldest == null ? null : Math.floor(Number(row.oldest)),
  }
}

/**
 * Rows finished `ready` (the one state `queueHealth` leaves out: they are history, one per finished run, and
 * never deleted). For `/metrics`; an index-only count over `rag_index_queue_status_idx`.
 */
export async function countReadyRows(manager: EntityManager): Promise<number> {
  const [row] = await manager.execute<{ n: string }[]>(
    `select count(*) as n from rag_index_queue where status = 'ready'`,
  )
  return Number(row?.n ?? 0)
}

// ── Workers ─────────────────────────────────────────────────────────────────────────────────────────────

/** Registers or refreshes a worker's heartbeat. */
export async function beat(manager: EntityManager, id: string, transport: string): Promise<void> {
  await manager.execute(
    `insert into worker_heartbeat (id, transport, started_at, last_seen_at) values (?, ?, now(), now())
     on conflict (id) do update set last_seen_at = now()`,
    [id, transport],
    'run',
  )
}

/** A worker that stops cleanly leaves no heartbeat behind. */
export async function forgetWorker(manager: EntityManager, id: string): Promise<void> {
  await manager.execute('delete from worker_heartbeat where id = ?', [id], 'run')
}

/** The workers whose last heartbeat is at most `withinMs` old. */
export async function liveWorkers(
  manager: EntityManager,
  withinMs: number,
): Promise<{ id: string; transport: string; lastSeenAt: string }[]> {
  const rows = await manager.execute<{ id: string; transport: string; last_seen_at: Date | string }[]>(
    `select id, transport, last_seen_at from worker_heartbeat
      where last_seen_at > now() - (? * interval '1 millisecond') order by id`,
    [withinMs],
  )
  return rows.map((r) => ({
    id: r.id,
    transport: r.transport,
    lastSeenAt: new Date(r.last_seen_at).toISOString(),
  }))
}

/** Forgets workers not seen for `olderThanMs` (killed ones never delete their row); answers how many. */
export async function pruneWorkers(manager: EntityManager, olderThanMs: number): Promise<number> {
  const rows = await manager.execute<{ id: string }[]>(
    `delete from worker_heartbeat where last_seen_at < now() - (? * interval '1 millisecond') returning id`,
    [olderThanMs],
  )
  return rows.length
}

// ── Provider pauses ─────────────────────────────────────────────────────────────────────────────────────

export type PausedProvider = 'embedding' | 'reranker'

export interface ProviderPause {
  provider: PausedProvider
  pausedUntil: Date
  /** Milliseconds until the pause ends (0 when it has ended). */
  remainingMs: number
  /** Milliseconds since the outage began. */
  outageMs: number
  failures: number
  reason: string
}

interface PauseRow {
  provider: PausedProvider
  paused_until: Date | string
  remaining_ms: string | number
  outage_ms: string | number
  failures: number
  reason: string
}

const PAUSE_ROW = `provider, paused_until, failures, reason,
  greatest(0, extract(epoch from paused_until - now()) * 1000) as remaining_ms,
  extract(epoch from now() - since) * 1000 as outage_ms`

function toPause(row: PauseRow): ProviderPause {
  return {
    provider: row.provider,
    pausedUntil: new Date(row.paused_until),
    remainingMs: Math.ceil(Number(row.remaining_ms)),
    outageMs: Math.floor(Number(row.outage_ms)),
    failures: row.failures,
    reason: row.reason,
  }
}

/** Every provider's pause, running (`remainingMs > 0`) or ended but not yet cleared by a success. */
export async function providerPauses(manager: EntityManager): Promise<ProviderPause[]> {
  const rows = await manager.execute<PauseRow[]>(
    `select ${PAUSE_ROW} from index_provider_pauses order by provider`,
  )
  return rows.map(toPause)
}

/**
 * Pauses a provider after a retryable failure: until `retryAfterMs` from now when the provider said so, else
 * for `backoff.baseMs` doubled per failure of this outage (at most `backoff.maxMs`). Failures reported while a
 * pause is running are the same failure (jobs that were already calling it), so they neither count nor
 * shorten the pause. The outage's start (`since`) stays until a success clears the pause; a pause that ended
 * more than `backoff.forgetAfterMs` ago (nothing called the provider since) starts a new outage.
 */
export async function pauseProvider(
  manager: EntityManager,
  provider: PausedProvider,
  retryAfterMs: number | null,
  backoff: { baseMs: number; maxMs: number; forgetAfterMs: number },
  reason: string,
): Promise<ProviderPause> {
  const [row] = await manager.execute<PauseRow[]>(
    `insert into index_provider_pauses as p (provider, paused_until, since, failures, reason, updated_at)
     values (?, now() + (coalesce(?::double precision, ?) * interval '1 millisecond'), now(), 1, ?, now())
     on conflict (provider) do update set
       since = case when p.paused_until < now() - (? * interval '1 millisecond') then now() else p.since end,
       failures = case when p.paused_until < now() - (? * interval '1 millisecond') then 1
                       when p.paused_until <= now() then p.failures + 1 else p.failures end,
       paused_until = case when p.paused_until > now() then p.paused_until
                           else now() + (coalesce(?::double precision, least(? * power(2, p.failures), ?)) * interval '1 millisecond') end,
       reason = excluded.reason, probe_until = null, updated_at = now()
     returning ${PAUSE_ROW}`,
    [
      provider,
      retryAfterMs,
      backoff.baseMs,
      reason,
      backoff.forgetAfterMs,
      backoff.forgetAfterMs,
      retryAfterMs,
      backoff.baseMs,
      backoff.maxMs,
    ],
  )
  return toPause(row!)
}

/**
 * After a pause ended and before any call succeeded, one stage may probe the provider: answers whether this
 * caller took the probe (for `windowMs`, the longest a call may take); the others keep waiting meanwhile.
 */
export async function takeProbe(
  manager: EntityManager,
  provider: PausedProvider,
  windowMs: number,
): Promise<boolean> {
  const rows = await manager.execute<{ provider: string }[]>(
    `update index_provider_pauses set probe_until = now() + (? * interval '1 millisecond'), updated_at = now()
      where provider = ? and paused_until <= now() and (probe_until is null or probe_until <= now())
      returning provider`,
    [windowMs, provider],
  )
  return rows.length > 0
}

/** The provider answered: its outage is over. */
export async function clearPause(manager: EntityManager, provider: PausedProvider): Promise<void> {
  await manager.execute('delete from index_provider_pauses where provider = ?', [provider], 'run')
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
 * so a batch never sees another's rows and nothing piles up. On PostgreSQL each vector is a bound parameter in
 * the same binary form (`vectorBinary`): the text form was most of a worker's CPU per chunk and three times the
 * bytes on the wire (issue 28).
 */
export async function writeEmbeddings(
  manager: EntityManager,
  queueId: string,
  embeddings: readonly { chunkIndex: number; vector: readonly number[] }[],
): Promise<void> {
  if (embeddings.length === 0) return
  if (!canCopyIn()) {
    await manager.execute(
      `update rag_pending_chunks p set embedding = x.embedding
         from (values ${embeddings.map(() => '(?::integer, ?::vector)').join(', ')}) as x(chunk_index, embedding)
        where p.queue_id = ? and p.chunk_index = x.chunk_index`,
      [...embeddings.flatMap((e) => [e.chunkIndex, vectorBinary(e.vector)]), queueId],
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
