import type {
  MeetingSearchItem,
  MeetingSearchRequest,
  SearchRequest,
  SearchResult,
  TermSearchItem,
  WikiSearchItem,
} from '#app/schemas/rag.ts'
import { throwProviderFailure } from '#app/services/ai/provider.server.ts'
import type { TermContent } from '#app/services/terms/content.server.ts'
import { iso, parseJson } from '#db/sql.ts'
import {
  rerankItems,
  retrieveMeetingChunks,
  retrieveTermChunks,
  retrieveWikiChunks,
  type Readiness,
} from './retrieval.server.ts'
import type { TermChunkHit } from './store.server.ts'

/**
 * The three searches by meaning (spec: "Vector search") as the API answers them. The retrieval service
 * (retrieval.server.ts) decides whether search can run, embeds the query and finds the nearest chunks of live
 * sources only (current revision of non-merged, non-deleted terms; published pages; active meetings); here they
 * become the documented items, reranked when asked. Term search is hybrid (decision 016): terms one of whose
 * names or notations equals the query under the glossary's normalization come first, then the nearest chunks.
 */

/** Cosine distance (0…2) as a score in (0, 1]: 1 is the same direction. */
export function scoreOf(distance: number): number {
  return Math.max(1e-9, Math.min(1, 1 - Number(distance) / 2))
}

/** Reranks a search's items (retrieval.server.ts); a provider failure is 502 `rag_provider_error`. */
async function reranked<T extends { content: string; rerankScore?: number }>(
  ...args: Parameters<typeof rerankItems<T>>
): Promise<{ items: T[]; reranked: boolean }> {
  try {
    return await rerankItems(...args)
  } catch (error) {
    throwProviderFailure(error, 'The search provider failed')
  }
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
 * `POST /rag/search` (and the `/search` page's terms tab, which passes the readiness it already asked). Fusion
 * (decision 016, retrieval.server.ts): exact name and notation matches first, then the nearest chunks.
 */
export async function searchTerms(
  request: SearchRequest,
  readiness?: Readiness,
): Promise<SearchResult<TermSearchItem>> {
  const { settings, traceId, hits, exactIds } = await retrieveTermChunks(request, readiness)
  const { items, reranked: wasReranked } = await reranked(settings, request.query, hits.map(termItem), {
    rerank: request.rerank,
    traceId,
    pinned: (item) => exactIds.has(item.id),
  })
  return { query: request.query, total: items.length, reranked: wasReranked, items }
}

/** `POST /rag/wiki/search`: published pages only. */
export async function searchWiki(
  request: SearchRequest,
  readiness?: Readiness,
): Promise<SearchResult<WikiSearchItem>> {
  const { settings, traceId, hits } = await retrieveWikiChunks(request, readiness)
  const { items, reranked: wasReranked } = await reranked(
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
  return { query: request.query, total: items.length, reranked: wasReranked, items }
}

/** `POST /rag/meetings/search`: the current revision of active meetings, filtered by team and date. */
export async function searchMeetings(
  request: MeetingSearchRequest,
  readiness?: Readiness,
): Promise<SearchResult<MeetingSearchItem>> {
  const { settings, traceId, hits } = await retrieveMeetingChunks(request, readiness)
  const { items, reranked: wasReranked } = await reranked(
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
  return { query: request.query, total: items.length, reranked: wasReranked, items }
}
