import crypto from 'node:crypto'
import type { EntityManager } from '@mikro-orm/postgresql'
import {
  binaryCopyData,
  canCopyIn,
  copyIn,
  copyInt4,
  copyNull,
  copyText,
  copyUuid,
  copyVector,
  vectorBinary,
} from '#db/binary-copy.ts'
import { parseJson } from '#db/sql.ts'
import type { EmbeddingProvider } from '#domain/rag.ts'
import type { StoredHeader } from '#app/services/ai/provider-secrets.server.ts'
import { usesChunkAnn } from './chunk-ann.server.ts'
import {
  CHUNK_TABLES,
  SEARCHABLE,
  chunkColumns,
  HNSW_TUNING,
  shadowOf,
  type SourceKind,
} from './store.server.ts'

/**
 * The SQL of a full reindex run (decision 028): the run's row (`rag_reindex_runs`), the shadow chunk tables it
 * builds (`<table>_next`), the sources it reads in id order, and the swap that puts the shadow tables in place
 * of the live ones in one transaction. The rules (batches, retries, the provider's pauses) are the runner's,
 * `pipeline/reindex-runner.ts`.
 */

export type RunCursor = SourceKind | 'index' | 'swap'

/** The embedding settings the live tables were embedded with, as stored (key and header values encrypted). */
export interface ServingEmbedding {
  provider: EmbeddingProvider
  baseUrl: string
  model: string
  apiKey: string | null
  headers: StoredHeader[]
}

/** The source kinds in the order a run loads them, then its last two steps. */
export const RUN_STEPS: readonly RunCursor[] = ['term', 'wiki', 'meeting', 'index', 'swap']

export interface ReindexRun {
  id: string
  status: 'building' | 'done' | 'failed' | 'cancelled'
  space: string
  chunkSize: number
  chunkOverlap: number
  cursorKind: RunCursor
  cursorId: string | null
  sourcesTotal: number
  sourcesDone: number
  chunksWritten: number
  chunksEmbedded: number
  holder: string | null
  error: string | null
  createdAt: string
  finishedAt: string | null
}

interface RunRow {
  id: string
  status: ReindexRun['status']
  space: string
  chunk_size: number
  chunk_overlap: number
  cursor_kind: RunCursor
  cursor_id: string | null
  sources_total: number
  sources_done: number
  chunks_written: number
  chunks_embedded: number
  holder: string | null
  error: string | null
  created_at: Date | string
  finished_at: Date | string | null
}

const toRun = (r: RunRow): ReindexRun => ({
  id: r.id,
  status: r.status,
  space: r.space,
  chunkSize: r.chunk_size,
  chunkOverlap: r.chunk_overlap,
  cursorKind: r.cursor_kind,
  cursorId: r.cursor_id,
  sourcesTotal: r.sources_total,
  sourcesDone: r.sources_done,
  chunksWritten: r.chunks_written,
  chunksEmbedded: r.chunks_embedded,
  holder: r.holder,
  error: r.error,
  createdAt: new Date(r.created_at).toISOString(),
  finishedAt: r.finished_at === null ? null : new Date(r.finished_at).toISOString(),
})

// ── The run's row ───────────────────────────────────────────────────────────────────────────────────────

/** Starts a run (the caller cancelled any run still building, in the same transaction). */
export async function insertRun(
  tx: EntityManager,
  run: {
    space: string
    chunkSize: number
    chunkOverlap: number
    sourcesTotal: number
    serving: ServingEmbedding | null
    requestedById?: string
  },
): Promise<string> {
  const id = crypto.randomUUID()
  await tx.execute(
    `insert into rag_reindex_runs (id, status, space, chunk_size, chunk_overlap, sources_total, serving, requested_by_id)
     values (?, 'building', ?, ?, ?, ?, ?::jsonb, ?)`,
    [
      id,
      run.space,
      run.chunkSize,
      run.chunkOverlap,
      run.sourcesTotal,
      run.serving ? JSON.stringify(run.serving) : null,
      run.requestedById ?? null,
    ],
    'run',
  )
  return id
}

/**
 * Ends the run still building, if any, as `status` with `message`, and gives its queued rows back to the
 * ordinary pipeline (they index their sources one by one, or fail visibly). Answers the run's id and what it
 * served search with (a run that replaces it serves search the same way: the live tables did not change).
 */
export async function endBuildingRun(
  tx: EntityManager,
  status: 'failed' | 'cancelled',
  message: string,
  onlyId?: string,
): Promise<{ id: string; serving: ServingEmbedding | null } | undefined> {
  const [ended] = await tx.execute<{ id: string; serving: unknown }[]>(
    `update rag_reindex_runs set status = ?, error = ?, holder = null, finished_at = now(), updated_at = now()
      where status = 'building' and (?::uuid is null or id = ?::uuid) returning id, serving`,
    [status, message, onlyId ?? null, onlyId ?? null],
  )
  if (!ended) return undefined
  await tx.execute(
    `update rag_index_queue set run_id = null, available_at = now(), updated_at = now()
      where run_id = ? and status = 'queued'`,
    [ended.id],
    'run',
  )
  return { id: ended.id, serving: parseJson<ServingEmbedding | null>(ended.serving) ?? null }
}

/** The embedding settings search uses while a run builds after a change of model; undefined otherwise. */
export async function servingEmbedding(manager: EntityManager): Promise<ServingEmbedding | undefined> {
  const [row] = await manager.execute<{ serving: unknown }[]>(
    `select serving from rag_reindex_runs where status = 'building' and serving is not null`,
  )
  return row ? (parseJson<ServingEmbedding | null>(row.serving) ?? undefined) : undefined
}

/** The run building now, if any. */
export async function buildingRun(manager: EntityManager): Promise<ReindexRun | undefined> {
  const [row] = await manager.execute<RunRow[]>(`select * from rag_reindex_runs where status = 'building'`)
  return row && toRun(row)
}

/** The newest run, whatever its status (the index page shows how the last one ended). */
export async function latestRun(manager: EntityManager): Promise<ReindexRun | undefined> {
  const [row] = await manager.execute<RunRow[]>(
    'select * from rag_reindex_runs order by created_at desc, id desc limit 1',
  )
  return row && toRun(row)
}

/**
 * Takes the building run for worker `holder`: when it holds it already, nobody does, or its holder stopped
 * beating `deadMs` ago (killed; another worker resumes at the run's cursor). Undefined when there is no run
 * or a live worker holds it.
 */
export async function takeRun(
  manager: EntityManager,
  holder: string,
  deadMs: number,
): Promise<ReindexRun | undefined> {
  const [row] = await manager.execute<RunRow[]>(
    `update rag_reindex_runs r set holder = ?, updated_at = now()
      where r.status = 'building'
        and (r.holder is null or r.holder = ?
             or not exists (select 1 from worker_heartbeat h
                             where h.id = r.holder and h.last_seen_at > now() - (? * interval '1 millisecond')))
      returning r.*`,
    [holder, holder, deadMs],
  )
  return row && toRun(row)
}

/** Thrown inside a run's transaction when the run is no longer this worker's to write (rolls it back). */
export class RunLostError extends Error {
  constructor(runId: string) {
    super(`The reindex run ${runId} is no longer held by this worker.`)
  }
}

/**
 * Moves the run's cursor and counters, inside the transaction that wrote the work they describe; throws
 * `RunLostError` (rolling the work back) when the run ended or another worker took it.
 */
export async function advanceRun(
  tx: EntityManager,
  run: { id: string; holder: string },
  to: {
    cursorKind: RunCursor
    cursorId: string | null
    sources?: number
    chunks?: number
    embedded?: number
  },
): Promise<void> {
  const rows = await tx.execute<{ id: string }[]>(
    `update rag_reindex_runs set cursor_kind = ?, cursor_id = ?, sources_done = sources_done + ?,
            chunks_written = chunks_written + ?, chunks_embedded = chunks_embedded + ?, updated_at = now()
      where id = ? and status = 'building' and holder = ? returning id`,
    [to.cursorKind, to.cursorId, to.sources ?? 0, to.chunks ?? 0, to.embedded ?? 0, run.id, run.holder],
  )
  if (rows.length === 0) throw new RunLostError(run.id)
}

// ── Sources ─────────────────────────────────────────────────────────────────────────────────────────────

/** A searchable source as a run reads it: a term's content (JSON), or a document's title and text. */
export type RunSource =
  | { kind: 'term'; id: string; revision: number; content: unknown }
  | { kind: 'wiki' | 'meeting'; id: string; revision: number; title: string; text: string }

/** The next `limit` searchable sources of `kind` after `afterId`, in id order, at their current revision. */
export async function sourcesAfter(
  manager: EntityManager,
  kind: SourceKind,
  afterId: string | null,
  limit: number,
): Promise<RunSource[]> {
  const { table } = SEARCHABLE[kind]
  const where = SEARCHABLE[kind].where('s')
  if (kind === 'term') {
    const rows = await manager.execute<{ id: string; revision: number; content: unknown }[]>(
      `select s.id, s.revision, r.content from terms s
         join term_revisions r on r.term_id = s.id and r.revision = s.revision
        where ${where} and (?::uuid is null or s.id > ?::uuid) order by s.id limit ?`,
      [afterId, afterId, limit],
    )
    return rows.map((r) => ({ kind, ...r }))
  }
  const rows = await manager.execute<{ id: string; revision: number; title: string; content: string }[]>(
    `select s.id, s.revision, s.title, s.content from ${table} s
      where ${where} and (?::uuid is null or s.id > ?::uuid) order by s.id limit ?`,
    [afterId, afterId, limit],
  )
  return rows.map((r) => ({ kind, id: r.id, revision: r.revision, title: r.title, text: r.content }))
}

// ── Shadow tables ───────────────────────────────────────────────────────────────────────────────────────

/** The HNSW index of a chunk table, with its engine's `ef_construction` (`HNSW_TUNING`, store.server.ts). */
export const hnswIndexSql = (name: string, table: string, ifMissing = false) =>
  `create index ${ifMissing ? 'if not exists ' : ''}${name} on ${table} using hnsw (embedding vector_cosine_ops) with (m = 16, ef_construction = ${HNSW_TUNING.efConstruction})`

/**
 * (Re)creates the empty shadow tables: the live table's columns, defaults, checks and identity (`seq` on the
 * embedded engine), its primary key, owner and reuse indexes, and the owner's foreign key (a source deleted
 * for good takes its shadow chunks with it). On PostgreSQL the HNSW index is built after the load
 * (`buildShadowVectorIndex`); the embedded engine has none, and indexes `seq` for its process index
 * (chunk-ann.server.ts).
 */
export async function createShadowTables(tx: EntityManager): Promise<void> {
  for (const kind of Object.keys(CHUNK_TABLES) as SourceKind[]) {
    const { table, owner } = CHUNK_TABLES[kind]
    const next = shadowOf(kind)
    await tx.execute(`drop table if exists ${next}`, [], 'run')
    await tx.execute(`drop table if exists ${replacedOf(kind)}`, [], 'run')
    await tx.execute(
      `create table ${next} (like ${table} including defaults including constraints including identity,
         constraint ${next}_pkey primary key (id),
         constraint ${next}_${owner}_fkey foreign key (${owner}) references ${SEARCHABLE[kind].table} (id) on delete cascade)`,
      [],
      'run',
    )
    await tx.execute(`create index ${next}_owner_idx on ${next} (${owner})`, [], 'run')
    await tx.execute(`create index ${next}_reuse_idx on ${next} (model, content_hash)`, [], 'run')
    if (usesChunkAnn()) await tx.execute(`create unique index ${next}_seq_idx on ${next} (seq)`, [], 'run')
  }
}

/** Drops the shadow tables (a run that failed or was replaced). */
export async function dropShadowTables(manager: EntityManager): Promise<void> {
  for (const kind of Object.keys(CHUNK_TABLES) as SourceKind[])
    await manager.execute(`drop table if exists ${shadowOf(kind)}`, [], 'run')
}

/**
 * Builds the HNSW index of one shadow table after its load, in one statement, unless it has one (made with the
 * table; an interrupted build leaves none). `memory` is the session's `maintenance_work_mem` for it: pgvector
 * builds fastest when the whole graph fits (about 8 kB per 1536-d chunk).
 */
export async function buildShadowVectorIndex(
  manager: EntityManager,
  kind: SourceKind,
  memory: string,
): Promise<void> {
  const next = shadowOf(kind)
  await manager.transactional(async (tx) => {
    // One process for the build (PostgreSQL would add parallel workers): the service's requests keep the
    // other cores. Measured on 2 cores at 20,000 chunks (decision 028).
    await tx.execute(
      `select set_config('maintenance_work_mem', ?, true), set_config('max_parallel_maintenance_workers', '0', true)`,
      [memory],
    )
    await tx.execute(hnswIndexSql(`${next}_embedding_idx`, next, true), [], 'run')
  })
}

/** Which of `hashes` already have a vector in `space`, in a live or a shadow chunk table. */
export async function knownHashes(
  manager: EntityManager,
  space: string,
  hashes: readonly string[],
): Promise<Set<string>> {
  if (hashes.length === 0) return new Set()
  const union = allChunkTables()
    .map((t) => `select content_hash from ${t} where model = ? and content_hash = any(?::text[])`)
    .join(' union ')
  const list = `{${hashes.join(',')}}`
  const rows = await manager.execute<{ content_hash: string }[]>(
    union,
    allChunkTables().flatMap(() => [space, list]),
  )
  return new Set(rows.map((r) => r.content_hash))
}

const allChunkTables = () =>
  (Object.keys(CHUNK_TABLES) as SourceKind[]).flatMap((kind) => [CHUNK_TABLES[kind].table, shadowOf(kind)])

/** A chunk as a run writes it into a shadow table; `vector` is null when a chunk of the same text has one. */
export interface ShadowChunk {
  sourceId: string
  revision: number
  chunkIndex: number
  sourceField: string | null
  startOffset: number | null
  endOffset: number | null
  content: string
  contentHash: string
  vector: readonly number[] | null
}

/** Rows per statement when inserting vectors on PostgreSQL (each row binds ten values). */
const INSERT_ROWS = 200

/**
 * Writes chunks of `kind` into its shadow table in the caller's transaction. New vectors travel in binary
 * (COPY on the embedded engine, bound parameters on PostgreSQL); a reused one is copied inside the database
 * from any chunk of the same text in `space`.
 */
export async function writeShadowChunks(
  tx: EntityManager,
  kind: SourceKind,
  space: string,
  chunks: readonly ShadowChunk[],
): Promise<void> {
  const { owner } = CHUNK_TABLES[kind]
  const next = shadowOf(kind)
  const columns = chunkColumns(kind).filter((column) => column !== 'created_at')
  const fresh = chunks.filter((c) => c.vector !== null)
  const reused = chunks.filter((c) => c.vector === null)
  if (fresh.length && canCopyIn()) {
    const rows = fresh.map((c) => [
      copyUuid(crypto.randomUUID()),
      copyUuid(c.sourceId),
      copyInt4(c.revision),
      copyInt4(c.chunkIndex),
      ...(kind === 'term'
        ? [c.sourceField === null ? copyNull : copyText(c.sourceField)]
        : [copyInt4(c.startOffset ?? 0), copyInt4(c.endOffset ?? 0)]),
      copyText(c.content),
      copyText(c.contentHash),
      copyText(space),
      copyVector(c.vector!),
    ])
    await copyIn(tx, `${next} (${columns.join(', ')})`, binaryCopyData(rows))
  } else {
    for (let i = 0; i < fresh.length; i += INSERT_ROWS) {
      const part = fresh.slice(i, i + INSERT_ROWS)
      const row = `(${columns.map((col) => (col === 'embedding' ? '?::vector' : col === 'id' || col === owner ? '?::uuid' : '?')).join(', ')})`
      await tx.execute(
        `insert into ${next} (${columns.join(', ')}) values ${part.map(() => row).join(', ')}`,
        part.flatMap((c) => [
          crypto.randomUUID(),
          c.sourceId,
          c.revision,
          c.chunkIndex,
          ...(kind === 'term' ? [c.sourceField] : [c.startOffset ?? 0, c.endOffset ?? 0]),
          c.content,
          c.contentHash,
          space,
          vectorBinary(c.vector!),
        ]),
        'run',
      )
    }
  }
  if (reused.length === 0) return
  const union = allChunkTables()
    .map((t) => `select embedding from ${t} where model = ? and content_hash = x.content_hash`)
    .join(' union all ')
  await tx.execute(
    `insert into ${next} (${columns.join(', ')})
     select gen_random_uuid(), x.source_id, x.revision, x.chunk_index,
            ${kind === 'term' ? 'x.source_field' : 'x.start_offset, x.end_offset'}, x.content, x.content_hash, ?,
            (select u.embedding from (${union}) u limit 1)
       from jsonb_to_recordset(?::jsonb) as x(source_id uuid, revision integer, chunk_index integer,
              source_field text, start_offset integer, end_offset integer, content text, content_hash text)`,
    [
      space,
      ...allChunkTables().flatMap(() => [space]),
      JSON.stringify(
        reused.map((c) => ({
          source_id: c.sourceId,
          revision: c.revision,
          chunk_index: c.chunkIndex,
          source_field: c.sourceField,
          start_offset: c.startOffset,
          end_offset: c.endOffset,
          content: c.content,
          content_hash: c.contentHash,
        })),
      ),
    ],
    'run',
  )
}

/**
 * The swap, in the caller's transaction (which also marks the run's rows `ready` and the run `done`): with the
 * live chunk tables locked, each shadow table takes what the ordinary pipeline indexed meanwhile (a source
 * saved after the run read it has newer chunks in the live table), drops the chunks of sources no longer
 * searchable, and replaces the live table under its name, indexes and constraints. Searches wait for the lock
 * for the length of this transaction only; `lockTimeoutMs` bounds the wait for searches already running.
 */
export async function swapShadowTables(
  tx: EntityManager,
  space: string,
  lockTimeoutMs: number,
): Promise<void> {
  await tx.execute(`select set_config('lock_timeout', ?, true)`, [`${lockTimeoutMs}ms`])
  const kinds = Object.keys(CHUNK_TABLES) as SourceKind[]
  await tx.execute(
    `lock table ${kinds.map((k) => CHUNK_TABLES[k].table).join(', ')} in access exclusive mode`,
    [],
    'run',
  )
  for (const kind of kinds) {
    const { table, owner } = CHUNK_TABLES[kind]
    const next = shadowOf(kind)
    const { table: sources } = SEARCHABLE[kind]
    await tx.execute(
      `delete from ${next} n using (select ${owner} as owner, max(revision) as revision from ${table}
                                      where model = ? group by ${owner}) l
        where n.${owner} = l.owner and l.revision > n.revision`,
      [space],
      'run',
    )
    await tx.execute(
      `insert into ${next} (${chunkColumns(kind).join(', ')}) select ${chunkColumns(kind)
        .map((c) => `l.${c}`)
        .join(', ')} from ${table} l
        where l.model = ? and not exists (select 1 from ${next} n where n.${owner} = l.${owner})`,
      [space],
      'run',
    )
    await tx.execute(
      `delete from ${next} n where not exists (select 1 from ${sources} s where s.id = n.${owner} and ${SEARCHABLE[kind].where('s')})`,
      [],
      'run',
    )
    // The live table is renamed, not dropped: dropping it removes its foreign key's triggers from the source
    // table, which takes that table's strongest lock, while a pipeline stage holds it (`for share`) and waits
    // for the chunk table this transaction holds: a deadlock. `dropReplacedTables` drops it afterwards.
    const old = replacedOf(kind)
    for (const [from, to] of [
      [table, old],
      [next, table],
    ] as const) {
      await tx.execute(`alter table ${from} rename to ${to}`, [], 'run')
      for (const index of ['pkey', 'owner_idx', 'reuse_idx', usesChunkAnn() ? 'seq_idx' : 'embedding_idx'])
        await tx.execute(`alter index ${from}_${index} rename to ${to}_${index}`, [], 'run')
      await tx.execute(
        `alter table ${to} rename constraint ${from}_${owner}_fkey to ${to}_${owner}_fkey`,
        [],
        'run',
      )
    }
  }
}

/** The name a swap gives the live table it replaced, until `dropReplacedTables`. */
const replacedOf = (kind: SourceKind) => `${CHUNK_TABLES[kind].table}_replaced`

/**
 * Drops the tables a swap replaced, each in a transaction of its own that waits at most `lockTimeoutMs` for
 * the source table it refers to; one that cannot be dropped now stays for the next call.
 */
export async function dropReplacedTables(manager: EntityManager, lockTimeoutMs: number): Promise<void> {
  const kinds = Object.keys(CHUNK_TABLES) as SourceKind[]
  const present = await manager.execute<{ name: string }[]>(
    `select relname as name from pg_class where relkind = 'r' and relname = any(?::text[]) and pg_table_is_visible(oid)`,
    [`{${kinds.map(replacedOf).join(',')}}`],
  )
  for (const { name } of present) {
    try {
      await manager.transactional(async (tx) => {
        await tx.execute(`select set_config('lock_timeout', ?, true)`, [`${lockTimeoutMs}ms`])
        await tx.execute(`drop table if exists ${name}`, [], 'run')
      })
    } catch {
      // Busy: the next call drops it.
    }
  }
}

/** Marks the queued rows the run covers `ready` and the run `done` (inside the swap's transaction). */
export async function finishRun(tx: EntityManager, run: { id: string; holder: string }): Promise<number> {
  await advanceRun(tx, run, { cursorKind: 'swap', cursorId: null })
  const rows = await tx.execute<{ n: string }[]>(
    `with done as (
       update rag_index_queue set status = 'ready', error = null, finished_at = now(), updated_at = now()
        where run_id = ? and status = 'queued' returning 1)
     select count(*) as n from done`,
    [run.id],
  )
  await tx.execute(
    `update rag_reindex_runs set status = 'done', holder = null, finished_at = now(), updated_at = now() where id = ?`,
    [run.id],
    'run',
  )
  return Number(rows[0]?.n ?? 0)
}
