import type {
  MeetingSearchItem,
  MeetingSearchRequest,
  SearchRequest,
  SearchResult,
  TermSearchItem,
  WikiSearchItem,
} from '#app/schemas/rag.ts'
import { throwProviderFailure } from '#app/services/ai/provider.server.ts'
import { newTraceId } from '#app/services/ai/recorder.server.ts'
import { normalizeKey } from '#app/services/matching/normalize.ts'
import type { TermContent } from '#app/services/terms/content.server.ts'
import { em } from '#db/orm.ts'
import { iso, parseJson, vectorLiteral } from '#db/sql.ts'
import { embedderFor, readySearchSettings, rerankerFor, type SearchSettings } from './config.server.ts'
import {
  searchMeetingChunks,
  searchTermChunks,
  searchWikiChunks,
  termChunksOf,
  termsNamed,
  type TermChunkHit,
} from './store.server.ts'

/**
 * The three searches by meaning (spec: "Vector search"). Each embeds the query with the configured provider,
 * asks the source's chunk table for its nearest chunks of live sources only (current revision of non-merged,
 * non-deleted terms; published pages; active meetings), and reranks when asked. Term search is hybrid
 * (decision 016): terms one of whose names or notations equals the query under the glossary's normalization
 * come first, then the nearest chunks.
 */

/** Cosine distance (0…2) as a score in (0, 1]: 1 is the same direction. */
export function scoreOf(distance: number): number {
  return Math.max(1e-9, Math.min(1, 1 - Number(distance) / 2))
}

async function embedQuery(settings: SearchSettings, query: string, traceId: string): Promise<string> {
  try {
    const { vectors } = await embedderFor(settings, { purpose: 'search', traceId }).embed([query])
    return vectorLiteral(vectors[0]!)
  } catch (error) {
    throwProviderFailure(error, 'The search provider failed')
  }
}

/**
 * Reranks items by their content when asked (the request's `rerank`, else the reranker setting) and the
 * reranker is on; items it scored get `rerankScore`. `pinned` items (exact name matches) stay first.
 */
async function rerankItems<T extends { content: string; rerankScore?: number }>(
  settings: SearchSettings,
  query: string,
  items: T[],
  options: { rerank: boolean | undefined; traceId: string; pinned?: (item: T) => boolean },
): Promise<{ items: T[]; reranked: boolean }> {
  const wanted = options.rerank ?? settings.rerankerEnabled
  const reranker = wanted ? rerankerFor(settings, { purpose: 'search', traceId: options.traceId }) : undefined
  if (!reranker || items.length === 0) return { items, reranked: false }
  let scores: number[]
  try {
    ;({ scores } = await reranker.rerank(
      query,
      items.map((i) => i.content),
    ))
  } catch (error) {
    throwProviderFailure(error, 'The search provider failed')
  }
  const scored = items.map((item, i) =>
    Number.isFinite(scores[i]) ? { ...item, rerankScore: scores[i]! } : item,
  )
  const pinned = options.pinned ?? (() => false)
  const rank = (item: T) => (Number.isFinite(item.rerankScore) ? item.rerankScore! : Number.NEGATIVE_INFINITY)
  const order = scored.map((item, i) => ({ item, i }))
  order.sort(
    (a, b) => Number(pinned(b.item)) - Number(pinned(a.item)) || rank(b.item) - rank(a.item) || a.i - b.i,
  )
  return { items: order.map((o) => o.item), reranked: true }
}

function termItem(hit: TermChunkHit): TermSearchItem {
  const c = parseJson<TermContent>(hit.content_json)
  return {
    id: hit.id,
    termId: hit.term_id,
    slug: c.slug,
    title: c.name,
    nameEn: c.nameEn ?? '',
    nameKo: c.nameKo ?? '',
    domain: c.domains,
    categories: c.categories,
    tags: c.tags,
    topic: c.categories[0] ?? c.domains[0] ?? '',
    status: hit.status,
    revision: hit.revision,
    sourceField: hit.source_field,
    content: hit.content,
    metadata: { termId: hit.term_id, revision: hit.revision, sourceField: hit.source_field },
    score: scoreOf(hit.distance),
    updatedAt: iso(hit.updated_at),
  }
}

/**
 * `POST /rag/search`. Fusion (decision 016): the best chunk of each term matched exactly by name or notation
 * comes first (nearest first among them), then the nearest chunks in vector order, without repeats, cut to topK.
 */
export async function searchTerms(request: SearchRequest): Promise<SearchResult<TermSearchItem>> {
  const settings = await readySearchSettings()
  const topK = request.topK ?? settings.topK
  const traceId = newTraceId()
  const vector = await embedQuery(settings, request.query, traceId)
  const manager = em()
  const domain = request.domain ?? null
  const normalized = normalizeKey(request.query)
  const named = normalized ? await termsNamed(manager, normalized) : []
  const exact = await termChunksOf(manager, { vector, space: settings.space, termIds: named, domain })
  const bestOfTerm = new Map<string, TermChunkHit>()
  for (const hit of exact) if (!bestOfTerm.has(hit.term_id)) bestOfTerm.set(hit.term_id, hit)
  const nearest = await searchTermChunks(manager, { vector, space: settings.space, limit: topK, domain })
  const seen = new Set<string>()
  const hits: TermChunkHit[] = []
  for (const hit of [...bestOfTerm.values(), ...nearest]) {
    if (seen.has(hit.id) || hits.length >= topK) continue
    seen.add(hit.id)
    hits.push(hit)
  }
  const exactIds = new Set([...bestOfTerm.values()].map((h) => h.id))
  const { items, reranked } = await rerankItems(settings, request.query, hits.map(termItem), {
    rerank: request.rerank,
    traceId,
    pinned: (item) => exactIds.has(item.id),
  })
  return { query: request.query, total: items.length, reranked, items }
}

/** `POST /rag/wiki/search`: published pages only. */
export async function searchWiki(request: SearchRequest): Promise<SearchResult<WikiSearchItem>> {
  const settings = await readySearchSettings()
  const traceId = newTraceId()
  const vector = await embedQuery(settings, request.query, traceId)
  const hits = await searchWikiChunks(em(), {
    vector,
    space: settings.space,
    limit: request.topK ?? settings.topK,
    domain: request.domain ?? null,
  })
  const { items, reranked } = await rerankItems(
    settings,
    request.query,
    hits.map((h): WikiSearchItem => ({
      id: h.id,
      wikiPageId: h.page_id,
      slug: h.slug,
      title: h.title,
      domain: h.domain ?? [],
      revision: h.revision,
      startOffset: h.start_offset,
      endOffset: h.end_offset,
      content: h.content,
      metadata: { wikiPageId: h.page_id, revision: h.revision },
      score: scoreOf(h.distance),
      updatedAt: iso(h.updated_at),
    })),
    { rerank: request.rerank, traceId },
  )
  return { query: request.query, total: items.length, reranked, items }
}

/** `POST /rag/meetings/search`: the current revision of active meetings, filtered by team and date. */
export async function searchMeetings(
  request: MeetingSearchRequest,
): Promise<SearchResult<MeetingSearchItem>> {
  const settings = await readySearchSettings()
  const traceId = newTraceId()
  const vector = await embedQuery(settings, request.query, traceId)
  const hits = await searchMeetingChunks(em(), {
    vector,
    space: settings.space,
    limit: request.topK ?? settings.topK,
    domain: request.domain ?? null,
    team: request.team ?? null,
    from: request.from ?? null,
    to: request.to ?? null,
  })
  const { items, reranked } = await rerankItems(
    settings,
    request.query,
    hits.map((h): MeetingSearchItem => ({
      id: h.id,
      meetingId: h.meeting_id,
      title: h.title,
      meetingDate: iso(h.meeting_date),
      team: h.team,
      domain: h.domain ?? [],
      revision: h.revision,
      startOffset: h.start_offset,
      endOffset: h.end_offset,
      content: h.content,
      metadata: { meetingId: h.meeting_id, revision: h.revision },
      score: scoreOf(h.distance),
    })),
    { rerank: request.rerank, traceId },
  )
  return { query: request.query, total: items.length, reranked, items }
}
