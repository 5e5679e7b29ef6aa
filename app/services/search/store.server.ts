import type { EntityManager } from '@mikro-orm/postgresql'
import type { VectorParam } from '#db/binary-copy.ts'
import { settingsPool } from '#db/orm.ts'
import { countChanged, iso, parseJson, sqlState, uuidArray } from '#db/sql.ts'
import type { EmbeddingProvider, RerankerProvider } from '#domain/rag.ts'
import type { RagStats } from '#app/schemas/rag.ts'
import type { StoredHeader } from '#app/services/ai/provider-secrets.server.ts'
import { ANN, chunkAnn, usesChunkAnn } from './chunk-ann.server.ts'

/**
 * The SQL of search by meaning: the settings row (`rag_config`, secrets as stored ciphertext), the chunk
 * tables of terms, wiki pages and meetings (replace, reuse, KNN) and the index statistics. Rules live in
 * settings.server.ts, rag-config.server.ts, retrieval.server.ts and the pipeline's stages.
 */

export interface RagConfigRow {
  enabled: boolean
  chatEnabled: boolean
  embeddingProvider: EmbeddingProvider
  embeddingBaseUrl: string
  embeddingModel: string
  embeddingApiKey: string | null
  embeddingHeaders: StoredHeader[]
  rerankerEnabled: boolean
  rerankerProvider: RerankerProvider
  rerankerBaseUrl: string
  rerankerModel: string
  rerankerApiKey: string | null
  rerankerHeaders: StoredHeader[]
  chunkSize: number
  chunkOverlap: number
  topK: number
  updatedAt: string
}

interface ConfigDbRow {
  enabled: boolean
  chat_enabled: boolean
  embedding_provider: EmbeddingProvider
  embedding_base_url: string
  embedding_model: string
  embedding_api_key: string | null
  embedding_headers: unknown
  reranker_enabled: boolean
  reranker_provider: RerankerProvider
  reranker_base_url: string
  reranker_model: string
  reranker_api_key: string | null
  reranker_headers: unknown
  chunk_size: number
  chunk_overlap: number
  top_k: number
  updated_at: Date | string
}

/** The settings row (the migration inserts it); `forUpdate` locks it for a read-modify-write. */
export async function selectConfig(manager: EntityManager, forUpdate = false): Promise<RagConfigRow> {
  const [row] = await manager.execute<ConfigDbRow[]>(
    `select * from rag_config where id = 1${forUpdate ? ' for update' : ''}`,
  )
  if (!row) throw new Error('rag_config has no row: the migration inserts it.')
  return {
    enabled: row.enabled,
    chatEnabled: row.chat_enabled,
    embeddingProvider: row.embedding_provider,
    embeddingBaseUrl: row.embedding_base_url,
    embeddingModel: row.embedding_model,
    embeddingApiKey: row.embedding_api_key,
    embeddingHeaders: parseJson<StoredHeader[]>(row.embedding_headers) ?? [],
    rerankerEnabled: row.reranker_enabled,
    rerankerProvider: row.reranker_provider,
    rerankerBaseUrl: row.reranker_base_url,
    rerankerModel: row.reranker_model,
    rerankerApiKey: row.reranker_api_key,
    rerankerHeaders: parseJson<StoredHeader[]>(row.reranker_headers) ?? [],
    chunkSize: row.chunk_size,
    chunkOverlap: row.chunk_overlap,
    topK: row.top_k,
    updatedAt: iso(row.updated_at),
  }
}

export async function updateConfig(
  tx: EntityManager,
  next: Omit<RagConfigRow, 'updatedAt'>,
  actorId: string,
): Promise<void> {
  await tx.execute(
    `update rag_config set enabled = ?, chat_enabled = ?, embedding_provider = ?, embedding_base_url = ?,
            embedding_model = ?, embedding_api_key = ?, embedding_headers = ?::jsonb, reranker_enabled = ?,
            reranker_provider = ?, reranker_base_url = ?, reranker_model = ?, reranker_api_key = ?,
            reranker_headers = ?::jsonb, chunk_size = ?, chunk_overlap = ?, top_k = ?, updated_by_id = ?,
            updated_at = now()
      where id = 1`,
    [
      next.enabled,
      next.chatEnabled,
      next.embeddingProvider,
      next.embeddingBaseUrl,
      next.embeddingModel,
      next.embeddingApiKey,
      JSON.stringify(next.embeddingHeaders),
      next.rerankerEnabled,
      next.rerankerProvider,
      next.rerankerBaseUrl,
      next.rerankerModel,
      next.rerankerApiKey,
      JSON.stringify(next.rerankerHeaders),
      next.chunkSize,
      next.chunkOverlap,
      next.topK,
      actorId,
    ],
    'run',
  )
}

/** Index statistics of the settings page. */
export async function selectStats(manager: EntityManager, space: string): Promise<RagStats> {
  const [terms] = await manager.execute<{ total: string; indexed: string }[]>(
    `select count(*) as total,
            count(*) filter (where exists (
              select 1 from term_chunks c where c.term_id = t.id and c.revision = t.revision and c.model = ?)) as indexed
       from terms t where ${SEARCHABLE.term.where('t')}`,
    [space],
  )
  const states = await manager.execute<{ status: string; n: string }[]>(
    'select status, count(*) as n from rag_index_queue group by status',
  )
  const count = (status: string) => Number(states.find((s) => s.status === status)?.n ?? 0)
  return {
    indexedTerms: Number(terms?.indexed ?? 0),
    totalTerms: Number(terms?.total ?? 0),
    queued: count('queued'),
    processing: count('processing'),
    ready: count('ready'),
    failed: count('failed'),
  }
}

// ── Sources that are searchable now ─────────────────────────────────────────────────────────────────────

export type SourceKind = 'term' | 'wiki' | 'meeting'

/**
 * When a source is searchable (spec part 5: archived meetings and unpublished wiki pages are left out, and so
 * are deleted and merged terms), as SQL over its table under `alias`: the one rule every search, index and
 * reindex statement uses.
 */
export const SEARCHABLE: Record<SourceKind, { table: string; where: (alias: string) => string }> = {
  term: { table: 'terms', where: (a) => `${a}.deleted_at is null and ${a}.status <> 'merged'` },
  wiki: { table: 'wiki_pages', where: (a) => `${a}.status = 'published' and ${a}.deleted_at is null` },
  meeting: { table: 'meetings', where: (a) => `${a}.status = 'active'` },
}

export interface SourceRef {
  id: string
  revision: number
}

/** Every term, published wiki page and active meeting at its latest revision (reindex, changed settings). */
export async function selectSearchableSources(
  manager: EntityManager,
): Promise<{ terms: SourceRef[]; wiki: SourceRef[]; meetings: SourceRef[] }> {
  const of = ({ table, where }: (typeof SEARCHABLE)[SourceKind]) =>
    manager.execute<SourceRef[]>(`select s.id, s.revision from ${table} s where ${where('s')} order by s.id`)
  return {
    terms: await of(SEARCHABLE.term),
    wiki: await of(SEARCHABLE.wiki),
    meetings: await of(SEARCHABLE.meeting),
  }
}

// ── Chunks ───────────────────────────────────────────────────────────────────────────────────────────────

export const CHUNK_TABLES: Record<SourceKind, { table: string; owner: string }> = {
  term: { table: 'term_chunks', owner: 'term_id' },
  wiki: { table: 'wiki_chunks', owner: 'page_id' },
  meeting: { table: 'meeting_chunks', owner: 'meeting_id' },
}

/**
 * A chunk table's columns, as a statement that copies or writes whole rows names them: every one but the
 * embedded engine's `seq`, which each table numbers itself. `created_at` last.
 */
export function chunkColumns(kind: SourceKind): string[] {
  const offsets = kind === 'term' ? ['source_field'] : ['start_offset', 'end_offset']
  return ['id', CHUNK_TABLES[kind].owner, 'revision', 'chunk_index', ...offsets].concat([
    'content',
    'content_hash',
    'model',
    'embedding',
    'created_at',
  ])
}

/** The shadow table a full reindex run builds for a kind's chunk table (decision 028). */
export const shadowOf = (kind: SourceKind) => `${CHUNK_TABLES[kind].table}_next`

/** The chunk tables holding vectors now: the live ones, and a building run's shadow tables. */
async function vectorTables(manager: EntityManager): Promise<string[]> {
  const kinds = Object.keys(CHUNK_TABLES) as SourceKind[]
  const shadows = await manager.execute<{ name: string }[]>(
    `select relname as name from pg_class where relkind = 'r' and relname = any(?::text[]) and pg_table_is_visible(oid)`,
    [`{${kinds.map(shadowOf).join(',')}}`],
  )
  return [...kinds.map((k) => CHUNK_TABLES[k].table), ...shadows.map((r) => r.name)]
}

/** Deletes a source's chunks; answers how many. */
export async function deleteChunks(tx: EntityManager, kind: SourceKind, sourceId: string): Promise<number> {
  const { table, owner } = CHUNK_TABLES[kind]
  return countChanged(tx, `delete from ${table} where ${owner} = ?`, [sourceId])
}

/** The highest revision of a source's chunks, or 0. */
export async function chunkRevision(tx: EntityManager, kind: SourceKind, sourceId: string): Promise<number> {
  const { table, owner } = CHUNK_TABLES[kind]
  const rows = await tx.execute<{ r: number | null }[]>(
    `select max(revision) as r from ${table} where ${owner} = ?`,
    [sourceId],
  )
  return Number(rows[0]?.r ?? 0)
}

/**
 * Moves a queue row's pending chunks, embedded, into the source's chunk table (the caller deleted the old ones
 * in the same transaction). One set-based statement; the vectors stay binary, never re-parsed from text.
 */
export async function insertChunksFromPending(
  tx: EntityManager,
  kind: SourceKind,
  source: { id: string; revision: number; space: string },
  queueId: string,
): Promise<number> {
  const { table } = CHUNK_TABLES[kind]
  const offsets = kind === 'term' ? 'source_field' : 'start_offset, end_offset'
  const rows = await tx.execute<{ n: string }[]>(
    `with moved as (
       insert into ${table} (${chunkColumns(kind).join(', ')})
       select gen_random_uuid(), ?, ?, p.chunk_index, ${offsets.replace(/(\w+)/g, 'p.$1')}, p.content, p.content_hash, ?,
              p.embedding, now()
         from rag_pending_chunks p where p.queue_id = ? and p.embedding is not null
       returning 1)
     select count(*) as n from moved`,
    [source.id, source.revision, source.space, queueId],
  )
  return Number(rows[0]?.n ?? 0)
}

/**
 * Gives a queue row's pending chunks the vectors already computed in `space` for the same text (any chunk
 * table, and a building run's shadow tables), inside the database so vectors are never re-parsed; answers how
 * many were reused.
 */
export async function reuseEmbeddings(
  manager: EntityManager,
  queueId: string,
  space: string,
): Promise<number> {
  try {
    return await reuseFrom(manager, queueId, space, await vectorTables(manager))
  } catch (error) {
    // A run's shadow table was swapped in or dropped between the two statements: once more, with the tables now.
    if (sqlState(error) !== '42P01') throw error
    return reuseFrom(manager, queueId, space, await vectorTables(manager))
  }
}

async function reuseFrom(
  manager: EntityManager,
  queueId: string,
  space: string,
  tables: readonly string[],
): Promise<number> {
  const wanted = `select content_hash from rag_pending_chunks where queue_id = ? and embedding is null`
  const union = tables
    .map(
      (table) =>
        `select content_hash, embedding from ${table} where model = ? and content_hash in (${wanted})`,
    )
    .join(' union all ')
  const rows = await manager.execute<{ n: string }[]>(
    `with reused as (
       update rag_pending_chunks p set embedding = r.embedding
         from (select distinct on (content_hash) content_hash, embedding from (${union}) u) r
        where p.queue_id = ? and p.embedding is null and p.content_hash = r.content_hash
       returning 1)
     select count(*) as n from reused`,
    [...tables.flatMap(() => [space, queueId]), queueId],
  )
  return Number(rows[0]?.n ?? 0)
}

// ── KNN ─────────────────────────────────────────────────────────────────────────────────────────────────

/**
 * PostgreSQL's HNSW graph (`ef_construction`; `m` is pgvector's default 16) and the search breadth that reaches
 * recall@10 ≥ 0.95 on it (`hnsw.ef_search`; at least the candidates asked for), decision 016 "Speed": at
 * 100,000 chunks the default graph (64) needed an `ef_search` above 300 (0.936 at 200); built with 128 it gave
 * 0.966 at 100, a faster search than 200 on the old graph (the build takes 1.7× as long, in the background of
 * a full reindex). The migrations build the live indexes so; `hnswIndexSql` (reindex-store.server.ts) builds
 * the shadow ones. The embedded engine has no HNSW index (decision 035, chunk-ann.server.ts). An object so
 * the benchmark (bench/rag-search.bench.ts) can sweep the breadth.
 */
export const HNSW_TUNING = { efConstruction: 128, efSearch: 100 }

/** Nearest chunks asked of the index per wanted result: the live-source filters after it drop some. */
export const OVERFETCH = 4

/** The most candidates a search asks of the index (pgvector's own cap of an iterative scan, `max_scan_tuples`). */
export const MAX_CANDIDATES = 20_000

/** pgvector refuses an `ef_search` above this. */
const MAX_EF_SEARCH = 1000

/** What a nearest-neighbour search asks: the query's vector, its space, how many, and the HNSW breadth. */
export interface KnnQuery {
  vector: VectorParam
  space: string
  limit: number
  /** Replaces `HNSW_TUNING.efSearch` for a caller that needs only a few nearest passages (the chatbot's evidence). */
  efSearch?: number
}

/**
 * A nearest-neighbour search of one source kind, ready to run (`searchChunks`). `columns` are the chunk columns
 * the outer query reads from `nn` (never the embedding); `outer.select` is its select list (with
 * `nn.distance`), `outer.from` what follows `from nn` (joins and `where`). `T` is the row it answers.
 */
export interface KnnSearch<T extends object> {
  kind: SourceKind
  query: KnnQuery
  columns: string
  outer: { select: string; from: string; params: unknown[] }
  /** Never set: carries the row type. */
  readonly row?: T
}

type RowsOf<S extends readonly KnnSearch<object>[]> = {
  -readonly [K in keyof S]: S[K] extends KnnSearch<infer T> ? T[] : never
}

/**
 * Nearest-neighbour searches, each in two steps, so that an index always serves it whatever the planner
 * thinks of the joins: `nn` holds the `candidates` chunks of the space nearest to the query, then `outer`
 * joins and filters them (live source at its current revision, domain …) and keeps the `limit` nearest. When
 * the filters left fewer than `limit` and the index had more to give, it asks again for eight times as many
 * candidates, up to MAX_CANDIDATES. The query vector is sent (and parsed) once per statement.
 *
 * Where the candidates come from differs by engine (decision 035):
 * - PostgreSQL: the HNSW index, asked by `order by` the distance (which only the index answers fast), in one
 *   KNN session (`inKnnSession`): each statement is one round trip on a connection whose session has the
 *   planner settings.
 * - The embedded engine: its process index of the chunks' signs (`chunkAnn`), `ANN.candidatesPerResult` a
 *   result wanted, ranked exactly here by their full vectors; candidates the table no longer has are dropped
 *   from that index. While that index catches up with many new rows, the table is scanned exactly.
 */
export async function searchChunks<const S extends readonly KnnSearch<object>[]>(
  manager: EntityManager,
  searches: S,
): Promise<RowsOf<S>> {
  if (usesChunkAnn()) {
    const results: object[][] = []
    for (const search of searches) results.push(await searchWithChunkAnn(manager, search))
    return results as RowsOf<S>
  }
  return inKnnSession(manager, async (session) => {
    const results: object[][] = []
    for (const { kind, query, columns, outer } of searches) {
      const { table } = CHUNK_TABLES[kind]
      results.push(
        await widening(query.limit * OVERFETCH, async (candidates) => {
          const efSearch = Math.min(
            MAX_EF_SEARCH,
            Math.max(query.efSearch ?? HNSW_TUNING.efSearch, candidates),
          )
          const rows = await session.query<KnnRow>(
            `with ${nearestByDistance(columns, table)}, ${knnOuter(outer)}`,
            [query.vector, query.space, candidates, ...outer.params, query.limit],
            efSearch,
          )
          return { rows, exhausted: Number(rows[0]?.candidates ?? 0) < candidates, limit: query.limit }
        }),
      )
    }
    return results as RowsOf<S>
  })
}

/** A KNN statement's row: a hit (`distance` null when the filters kept none) and how many candidates `nn` held. */
type KnnRow = object & { candidates: string; distance: number | null }

/**
 * `nn` ordered by the distance (parameters: the query vector, the space, how many): what PostgreSQL's HNSW index
 * answers, and the embedded engine's exact scan while its process index catches up.
 */
const nearestByDistance = (columns: string, table: string) =>
  `nn as materialized (
     select ${columns}, embedding <=> ?::vector as distance from ${table} where model = ? order by distance limit ?)`

/**
 * What follows `nn` in a KNN statement: the hits, and one row at least, even when the filters keep none: the
 * count of candidates says whether asking for more could find any (an empty source answers in one statement).
 */
const knnOuter = (outer: KnnSearch<object>['outer']) =>
  `hits as (select ${outer.select} from nn ${outer.from} order by nn.distance limit ?)
   select hits.*, given.candidates
     from (select count(*) as candidates from nn) given left join hits on true
    order by hits.distance`

/**
 * Runs a KNN statement for `first` candidates, then for eight times as many, until it has `limit` hits, the
 * index has no more, or MAX_CANDIDATES; answers the hits.
 */
async function widening(
  first: number,
  ask: (candidates: number) => Promise<{ rows: KnnRow[]; exhausted: boolean; limit: number }>,
): Promise<object[]> {
  for (let candidates = first; ; candidates = Math.min(MAX_CANDIDATES, candidates * 8)) {
    const { rows, exhausted, limit } = await ask(candidates)
    const hits = rows.filter((row) => row.distance !== null)
    if (hits.length >= limit || exhausted || candidates >= MAX_CANDIDATES)
      return hits.map(({ candidates: _, ...row }) => row)
  }
}

/** One search on the embedded engine (see `searchChunks`). */
async function searchWithChunkAnn(manager: EntityManager, search: KnnSearch<object>): Promise<object[]> {
  const { kind, query, columns, outer } = search
  const { table } = CHUNK_TABLES[kind]
  const ann = await chunkAnn(manager, table)
  const tail = [...outer.params, query.limit]
  if (!ann) {
    return widening(query.limit * OVERFETCH, async (candidates) => {
      const rows = await manager.execute<KnnRow[]>(
        `with ${nearestByDistance(columns, table)}, ${knnOuter(outer)}`,
        [query.vector, query.space, candidates, ...tail],
      )
      return { rows, exhausted: Number(rows[0]?.candidates ?? 0) < candidates, limit: query.limit }
    })
  }
  return widening(query.limit * ANN.candidatesPerResult, async (candidates) => {
    const { seqs, exhausted } = await ann.nearest(query.space, query.vector, candidates)
    const rows = await manager.execute<KnnRow[]>(
      `with nn as materialized (
         select ${columns}, embedding <=> ?::vector as distance from ${table} where seq = any(?::int8[]) and model = ?),
       ${knnOuter(outer)}`,
      [query.vector, `{${seqs.join(',')}}`, query.space, ...tail],
    )
    if (Number(rows[0]?.candidates ?? 0) < seqs.length) {
      // Chunks replaced or deleted since the index read them: it forgets them.
      const gone = await manager.execute<{ seq: string }[]>(
        `select s::text as seq from unnest(?::int8[]) s where not exists (select 1 from ${table} c where c.seq = s)`,
        [`{${seqs.join(',')}}`],
      )
      ann.forget(
        query.space,
        gone.map((g) => g.seq),
      )
    }
    return { rows, exhausted, limit: query.limit }
  })
}

/**
 * The planner settings of a KNN statement. The planner costs a scan of the chunk table cheaply (the vectors
 * live in TOAST, which its estimate ignores): at 100,000 chunks it preferred a sequential scan and sort (0.7 s)
 * to the HNSW index, and with sequential scans off, a bitmap scan of another index and a sort (0.8–1.7 s for
 * the larger candidate sets). Without those three the ordered HNSW scan is the plan (decision 016 "Speed").
 * The outer `order by` still needs a sort, which `enable_sort = off` prices at 1e10: far past
 * `jit_above_cost`, so PostgreSQL compiled every search with LLVM (0.3–0.5 s, for a 13 ms index scan; issue
 * 28). Hence JIT off too (PGlite has no JIT but accepts the setting). With pgvector 0.8+ the index is also
 * scanned iteratively (`hnsw.iterative_scan`, added by `knnPlan`).
 */
const KNN_PLAN: Readonly<Record<string, string>> = {
  enable_seqscan: 'off',
  enable_bitmapscan: 'off',
  enable_sort: 'off',
  jit: 'off',
}

/** Where a search's KNN statements run, each at the HNSW breadth it asks, with `KNN_PLAN`. */
interface KnnSession {
  query<T>(sql: string, params: unknown[], efSearch: number): Promise<T[]>
}

/**
 * Runs `work` with a KNN session on PostgreSQL (the embedded engine has no HNSW index: `searchChunks`). Outside
 * a transaction: the search pool, whose connections start with the plan's settings (db/settings-pool.ts), so a
 * search is one round trip with no transaction around it. Inside a caller's transaction: a transaction of
 * `manager` that sets them locally, once, and `hnsw.ef_search` again only when a statement needs another breadth.
 */
async function inKnnSession<T>(
  manager: EntityManager,
  work: (session: KnnSession) => Promise<T>,
): Promise<T> {
  const pool = manager.isInTransaction() ? undefined : settingsPool('search', await knnPlan(manager))
  if (pool) {
    return work({
      query: (sql, params, efSearch) => pool.query(sql, params, { 'hnsw.ef_search': String(efSearch) }),
    })
  }
  return manager.transactional(async (tx) => {
    let currentEf: number | undefined
    return work({
      query: async <R>(sql: string, params: unknown[], efSearch: number) => {
        if (currentEf !== efSearch) {
          // The plan's settings with the first statement's breadth, in one statement (on the embedded engine
          // each statement costs a round of its own: the chatbot's three searches took twelve, issue 29).
          const settings = {
            ...(currentEf === undefined ? await knnPlan(tx) : {}),
            'hnsw.ef_search': String(efSearch),
          }
          const entries = Object.entries(settings)
          await tx.execute(`select ${entries.map(() => 'set_config(?, ?, true)').join(', ')}`, entries.flat())
          currentEf = efSearch
        }
        return tx.execute<R[]>(sql, params)
      },
    })
  })
}

/** `KNN_PLAN` with the iterative index scan where this pgvector has it. */
async function knnPlan(manager: EntityManager): Promise<Record<string, string>> {
  return (await hasIterativeScan(manager))
    ? { ...KNN_PLAN, 'hnsw.iterative_scan': 'relaxed_order' }
    : KNN_PLAN
}

let iterativeScan: boolean | undefined

/**
 * Whether this pgvector has iterative index scans (0.8+; PGlite ships 0.8). Older servers (the README allows
 * pgvector ≥ 0.5) reserve the `hnsw.` prefix and would refuse the setting; they search without it.
 */
async function hasIterativeScan(manager: EntityManager): Promise<boolean> {
  if (iterativeScan === undefined) {
    // pgvector's settings are listed once its library is loaded: a vector literal loads it.
    await manager.execute(`select '[1]'::vector as v`)
    const rows = await manager.execute<{ n: string }[]>(
      `select count(*) as n from pg_settings where name = 'hnsw.iterative_scan'`,
    )
    iterativeScan = Number(rows[0]?.n ?? 0) > 0
  }
  return iterativeScan
}

export interface TermChunkHit {
  id: string
  term_id: string
  revision: number
  source_field: string
  content: string
  distance: number
  content_json: unknown
  status: string
  updated_at: Date | string
}

const TERM_HIT_SELECT = `
  select c.id, c.term_id, c.revision, c.source_field, c.content, c.embedding <=> ?::vector as distance,
         r.content as content_json, t.status, t.updated_at
    from term_chunks c
    join terms t on t.id = c.term_id and t.revision = c.revision
    join term_revisions r on r.term_id = t.id and r.revision = t.revision`

const TERM_LIVE = `${SEARCHABLE.term.where('t')} and c.model = ?`

/** The nearest chunks of the current revision of live terms. */
export async function searchTermChunks(
  manager: EntityManager,
  query: KnnQuery & { domain: string | null },
): Promise<TermChunkHit[]> {
  const [hits] = await searchChunks(manager, [termChunkSearch(query)])
  return hits
}

/** The search of `searchTermChunks`, for `searchChunks`. */
export function termChunkSearch(query: KnnQuery & { domain: string | null }): KnnSearch<TermChunkHit> {
  const params: unknown[] = []
  let domain = ''
  if (query.domain) {
    domain = ` and exists (select 1 from term_domains td join domains d on d.id = td.domain_id
                            where td.term_id = t.id and d.key = ?)`
    params.push(query.domain)
  }
  return {
    kind: 'term',
    query,
    columns: 'id, term_id, revision, source_field, content',
    outer: {
      select: `nn.id, nn.term_id, nn.revision, nn.source_field, nn.content, nn.distance,
               r.content as content_json, t.status, t.updated_at`,
      from: `join terms t on t.id = nn.term_id and t.revision = nn.revision
             join term_revisions r on r.term_id = t.id and r.revision = t.revision
            where ${SEARCHABLE.term.where('t')}${domain}`,
      params,
    },
  }
}

/** The chunks of the given terms (exact name matches), nearest first within each term. */
export async function termChunksOf(
  manager: EntityManager,
  query: { vector: VectorParam; space: string; termIds: readonly string[]; domain: string | null },
): Promise<TermChunkHit[]> {
  if (query.termIds.length === 0) return []
  const params: unknown[] = [query.vector, query.space, uuidArray(query.termIds)]
  let domain = ''
  if (query.domain) {
    domain = ` and exists (select 1 from term_domains td join domains d on d.id = td.domain_id
                            where td.term_id = t.id and d.key = ?)`
    params.push(query.domain)
  }
  return manager.execute<TermChunkHit[]>(
    `${TERM_HIT_SELECT} where ${TERM_LIVE} and c.term_id = any(?::uuid[])${domain} order by distance`,
    params,
  )
}

/** Live terms one of whose names or notations has exactly this normalized form. */
export async function termsNamed(manager: EntityManager, normalized: string): Promise<string[]> {
  const rows = await manager.execute<{ term_id: string }[]>(
    `select distinct n.term_id from term_notations n join terms t on t.id = n.term_id
      where n.normalized = ? and ${SEARCHABLE.term.where('t')}`,
    [normalized],
  )
  return rows.map((r) => r.term_id)
}

export interface WikiChunkHit {
  id: string
  page_id: string
  slug: string
  title: string
  domain: string[]
  revision: number
  start_offset: number
  end_offset: number
  content: string
  distance: number
  updated_at: Date | string
}

/** The nearest chunks of the current revision of published pages. */
export async function searchWikiChunks(
  manager: EntityManager,
  query: KnnQuery & { domain: string | null },
): Promise<WikiChunkHit[]> {
  const [hits] = await searchChunks(manager, [wikiChunkSearch(query)])
  return hits
}

/** The search of `searchWikiChunks`, for `searchChunks`. */
export function wikiChunkSearch(query: KnnQuery & { domain: string | null }): KnnSearch<WikiChunkHit> {
  const params: unknown[] = []
  let domain = ''
  if (query.domain) {
    domain = ' and ? = any(p.domain)'
    params.push(query.domain)
  }
  return {
    kind: 'wiki',
    query,
    columns: 'id, page_id, revision, start_offset, end_offset, content',
    outer: {
      select: `nn.id, nn.page_id, p.slug, p.title, p.domain, nn.revision, nn.start_offset, nn.end_offset,
               nn.content, nn.distance, p.updated_at`,
      from: `join wiki_pages p on p.id = nn.page_id and p.revision = nn.revision
            where ${SEARCHABLE.wiki.where('p')}${domain}`,
      params,
    },
  }
}

export interface MeetingChunkHit {
  id: string
  meeting_id: string
  title: string
  meeting_date: Date | string
  team: string | null
  domain: string[]
  revision: number
  start_offset: number
  end_offset: number
  content: string
  distance: number
}

/** Which meetings a meeting search keeps. */
export interface MeetingFilter {
  domain: string | null
  team: string | null
  from: Date | null
  to: Date | null
}

/** The nearest chunks of the current revision of active meetings. */
export async function searchMeetingChunks(
  manager: EntityManager,
  query: KnnQuery & MeetingFilter,
): Promise<MeetingChunkHit[]> {
  const [hits] = await searchChunks(manager, [meetingChunkSearch(query)])
  return hits
}

/** The search of `searchMeetingChunks`, for `searchChunks`. */
export function meetingChunkSearch(query: KnnQuery & MeetingFilter): KnnSearch<MeetingChunkHit> {
  const params: unknown[] = []
  const where: string[] = []
  if (query.domain) {
    where.push('? = any(m.domain)')
    params.push(query.domain)
  }
  if (query.team) {
    where.push('m.team = ?')
    params.push(query.team)
  }
  if (query.from) {
    where.push('m.meeting_date >= ?')
    params.push(query.from.toISOString())
  }
  if (query.to) {
    where.push('m.meeting_date <= ?')
    params.push(query.to.toISOString())
  }
  return {
    kind: 'meeting',
    query,
    columns: 'id, meeting_id, revision, start_offset, end_offset, content',
    outer: {
      select: `nn.id, nn.meeting_id, m.title, m.meeting_date, m.team, m.domain, nn.revision, nn.start_offset,
               nn.end_offset, nn.content, nn.distance`,
      from: `join meetings m on m.id = nn.meeting_id and m.revision = nn.revision
            where ${SEARCHABLE.meeting.where('m')}${where.map((w) => ` and ${w}`).join('')}`,
      params,
    },
  }
}

// ── What the chunk stage reads ──────────────────────────────────────────────────────────────────────────

/** A source as indexing sees it: whether it is searchable now, its revision, and its text. */
export type IndexSource =
  | { kind: 'term'; live: boolean; revision: number; content: unknown }
  | { kind: 'wiki' | 'meeting'; live: boolean; revision: number; title: string; text: string }

/** The source's current state, or undefined when it no longer exists. */
export async function loadIndexSource(
  manager: EntityManager,
  kind: SourceKind,
  id: string,
): Promise<IndexSource | undefined> {
  if (kind === 'term') {
    const [row] = await manager.execute<{ revision: number; live: boolean; content: unknown }[]>(
      `select t.revision, (${SEARCHABLE.term.where('t')}) as live, r.content
         from terms t join term_revisions r on r.term_id = t.id and r.revision = t.revision where t.id = ?`,
      [id],
    )
    return row && { kind, live: row.live, revision: row.revision, content: row.content }
  }
  const { table, where } = SEARCHABLE[kind]
  const sql = `select s.revision, (${where('s')}) as live, s.title, s.content from ${table} s where s.id = ?`
  const [row] = await manager.execute<{ revision: number; live: boolean; title: string; content: string }[]>(
    sql,
    [id],
  )
  return row && { kind, live: row.live, revision: row.revision, title: row.title, text: row.content }
}

/** The current revision of a source and whether it is searchable (the upsert's last check, under lock). */
export async function sourceState(
  tx: EntityManager,
  kind: SourceKind,
  id: string,
): Promise<{ revision: number; live: boolean } | undefined> {
  const { table, where } = SEARCHABLE[kind]
  const [row] = await tx.execute<{ revision: number; live: boolean }[]>(
    `select s.revision, (${where('s')}) as live from ${table} s where s.id = ? for share`,
    [id],
  )
  return row
}
