import { AppError } from '#app/lib/errors.server.ts'
import { ProviderError, throwProviderFailure } from '#app/services/ai/provider.server.ts'
import { newTraceId } from '#app/services/ai/recorder.server.ts'
import { normalizeKey } from '#app/services/matching/normalize.ts'
import { matcherCache } from '#app/services/validation/matcher-cache.server.ts'
import { em } from '#db/orm.ts'
import { vectorParam, type VectorParam } from '#db/binary-copy.ts'
import { iso } from '#db/sql.ts'
import type { AiPurpose } from '#domain/rag.ts'
import type { TermStatus } from '#domain/terms.ts'
import {
  embedderFor,
  readySearchSettings,
  rerankerFor,
  type SearchNotReadyReason,
  type SearchSettings,
} from './settings.server.ts'
import {
  EVIDENCE_TERM_STATUSES,
  selectEvidenceTerms,
  termsByKeywords,
  unindexedTerms,
} from './retrieval-store.server.ts'
import {
  meetingChunkSearch,
  searchChunks,
  searchMeetingChunks,
  searchTermChunks,
  searchWikiChunks,
  termChunkSearch,
  termChunksOf,
  wikiChunkSearch,
  termsNamed,
  type MeetingChunkHit,
  type TermChunkHit,
  type WikiChunkHit,
} from './store.server.ts'

/**
 * The one retrieval service (issue 29): whether search by meaning can run (`retrievalReadiness`, the one place
 * that decides it for a query), the query embedded once, the nearest chunks of terms, wiki pages and meetings
 * (live sources at their current revision only: store.server.ts), fused with the glossary's exact name and
 * notation matches and its keyword search, and the filter of what may be evidence for an answer. The three
 * `/rag/*` searches and the `/search` page (search.server.ts) and the chatbot (chat/chat.server.ts) call it.
 */

// ── Whether search by meaning can run ──────────────────────────────────────────────────────────────────────

export type Readiness =
  { ready: true; settings: SearchSettings } | { ready: false; reason: SearchNotReadyReason; message: string }

/**
 * THE decision whether search by meaning can run for a query now, as data: switched on, an embedding provider,
 * every stored secret readable (`readySearchSettings`), with the settings it runs with (the serving model while
 * a full reindex builds). The API answers 503 from it (`requireReady`), `/search` offers the name search, the
 * chatbot falls back to name and keyword search.
 */
export async function retrievalReadiness(): Promise<Readiness> {
  try {
    return { ready: true, settings: await readySearchSettings() }
  } catch (error) {
    if (error instanceof AppError && error.code === 'rag_not_ready') {
      const reason = (error.details?.reason ?? 'off') as SearchNotReadyReason
      return { ready: false, reason, message: error.message }
    }
    throw error
  }
}

/** The settings of a ready search, or 503 `rag_not_ready` whose `details.reason` names why. */
export function requireReady(readiness: Readiness): SearchSettings {
  if (readiness.ready) return readiness.settings
  throw new AppError('rag_not_ready', readiness.message, { details: { reason: readiness.reason } })
}

// ── The query's vector and the reranker ────────────────────────────────────────────────────────────────────

/** The query embedded by the configured provider (one recorded call); a failure is the provider's error. */
async function embed(
  settings: SearchSettings,
  query: string,
  context: { purpose: AiPurpose; traceId: string },
): Promise<VectorParam> {
  const { vectors } = await embedderFor(settings, context).embed([query])
  return vectorParam(vectors[0]!)
}

/**
 * Reranks items by their content when asked (the request's `rerank`, else the reranker setting) and the
 * reranker is on; items it scored get `rerankScore`. `pinned` items (exact name matches) stay first. A
 * provider failure is the caller's (`ProviderError`).
 */
export async function rerankItems<T extends { content: string; rerankScore?: number }>(
  settings: SearchSettings,
  query: string,
  items: T[],
  options: {
    rerank: boolean | undefined
    traceId: string
    purpose?: AiPurpose
    pinned?: (item: T) => boolean
  },
): Promise<{ items: T[]; reranked: boolean }> {
  const wanted = options.rerank ?? settings.rerankerEnabled
  const reranker = wanted
    ? rerankerFor(settings, { purpose: options.purpose ?? 'search', traceId: options.traceId })
    : undefined
  if (!reranker || items.length === 0) return { items, reranked: false }
  const { scores } = await reranker.rerank(
    query,
    items.map((i) => i.content),
  )
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

// ── The searches of the API and the search page ────────────────────────────────────────────────────────────

export interface SourceSearch {
  query: string
  topK?: number
  domain?: string | null
}

/** A search's start: ready settings (else 503), a trace id, and the query's vector (502 when the provider fails). */
async function begin(
  query: string,
  readiness: Readiness | undefined,
): Promise<{ settings: SearchSettings; traceId: string; vector: VectorParam }> {
  const settings = requireReady(readiness ?? (await retrievalReadiness()))
  const traceId = newTraceId()
  try {
    return { settings, traceId, vector: await embed(settings, query, { purpose: 'search', traceId }) }
  } catch (error) {
    throwProviderFailure(error, 'The search provider failed')
  }
}

/**
 * Term search (hybrid, decision 016): the best chunk of each live term one of whose names or notations equals the
 * query under the glossary's normalization comes first (nearest first among them), then the nearest chunks in
 * vector order, without repeats, cut to topK. `exactIds` are the chunks of exact matches.
 */
export async function retrieveTermChunks(
  request: SourceSearch,
  readiness?: Readiness,
): Promise<{ settings: SearchSettings; traceId: string; hits: TermChunkHit[]; exactIds: Set<string> }> {
  const manager = em()
  const domain = request.domain ?? null
  const normalized = normalizeKey(request.query)
  // What needs no vector runs while the query is embedded, and the exact matches' chunks beside the nearest
  // ones: on PostgreSQL each on a pooled connection of its own, on the embedded engine one after another.
  const [{ settings, traceId, vector }, named] = await Promise.all([
    begin(request.query, readiness),
    normalized ? termsNamed(manager, normalized) : [],
  ])
  const topK = request.topK ?? settings.topK
  const [exact, nearest] = await Promise.all([
    termChunksOf(manager, { vector, space: settings.space, termIds: named, domain }),
    searchTermChunks(manager, { vector, space: settings.space, limit: topK, domain }),
  ])
  const bestOfTerm = new Map<string, TermChunkHit>()
  for (const hit of exact) if (!bestOfTerm.has(hit.term_id)) bestOfTerm.set(hit.term_id, hit)
  const seen = new Set<string>()
  const hits: TermChunkHit[] = []
  for (const hit of [...bestOfTerm.values(), ...nearest]) {
    if (seen.has(hit.id) || hits.length >= topK) continue
    seen.add(hit.id)
    hits.push(hit)
  }
  return { settings, traceId, hits, exactIds: new Set([...bestOfTerm.values()].map((h) => h.id)) }
}

/** The nearest chunks of published wiki pages. */
export async function retrieveWikiChunks(
  request: SourceSearch,
  readiness?: Readiness,
): Promise<{ settings: SearchSettings; traceId: string; hits: WikiChunkHit[] }> {
  const { settings, traceId, vector } = await begin(request.query, readiness)
  const hits = await searchWikiChunks(em(), {
    vector,
    space: settings.space,
    limit: request.topK ?? settings.topK,
    domain: request.domain ?? null,
  })
  return { settings, traceId, hits }
}

/** The nearest chunks of active meetings, filtered by team and meeting date. */
export async function retrieveMeetingChunks(
  request: SourceSearch & { team?: string | null; from?: Date | null; to?: Date | null },
  readiness?: Readiness,
): Promise<{ settings: SearchSettings; traceId: string; hits: MeetingChunkHit[] }> {
  const { settings, traceId, vector } = await begin(request.query, readiness)
  const hits = await searchMeetingChunks(em(), {
    vector,
    space: settings.space,
    limit: request.topK ?? settings.topK,
    domain: request.domain ?? null,
    team: request.team ?? null,
    from: request.from ?? null,
    to: request.to ?? null,
  })
  return { settings, traceId, hits }
}

// ── Evidence for an answer ─────────────────────────────────────────────────────────────────────────────────

/** How much evidence of each kind an answer gets at most (the prompt stays small and the answer focused). */
export const EVIDENCE_LIMITS = { terms: 5, wiki: 3, meetings: 3 } as const

/**
 * HNSW search breadth of the evidence searches (`hnsw.ef_search`; the API's searches use `HNSW_TUNING`). An
 * answer takes the 3–5 nearest passages of each source, not a ranked list of 50: at 40 the three searches of a
 * question cost a fraction of what 200 costs (bench/chat.bench.ts, decision 029). An object so the benchmark can
 * sweep it.
 */
export const EVIDENCE_SEARCH = { efSearch: 40 }

/** The longest text of one piece of evidence handed on (a chunk is at most `chunkSize`, up to 8000). */
export const EVIDENCE_TEXT_MAX = 1500

export interface TermEvidence {
  kind: 'term'
  id: string
  slug: string
  name: string
  status: TermStatus
  revision: number
  definition: string
  /** The passage that made it relevant: the matched chunk, or the definition. */
  snippet: string
  /** Active terms are official; needs-completion terms are sent marked incomplete. */
  official: boolean
}

export interface WikiEvidence {
  kind: 'wiki'
  id: string
  slug: string
  title: string
  revision: number
  startOffset: number
  endOffset: number
  content: string
  official: true
}

export interface MeetingEvidence {
  kind: 'meeting'
  id: string
  title: string
  meetingDate: string
  revision: number
  startOffset: number
  endOffset: number
  content: string
  /** A record of past discussion, never approval of current policy. */
  official: false
}

export type Evidence = TermEvidence | WikiEvidence | MeetingEvidence

/** Why an answer's evidence came from name and keyword search only. */
export type FallbackReason = 'not_ready' | 'provider_failed' | 'not_indexed'

export interface EvidenceSet {
  /** `hybrid`: vector search over the three sources with name and keyword search; `keyword`: the latter only. */
  mode: 'hybrid' | 'keyword'
  fallback: FallbackReason | null
  terms: TermEvidence[]
  wiki: WikiEvidence[]
  meetings: MeetingEvidence[]
}

/** Words a question is made of but that name nothing (English question words and particles). */
const STOP_WORDS = new Set(
  'a an and are as at be by can do does for from how in is it its of on or the to was were what when where which who whom why with about explain define definition mean means meaning tell me please'.split(
    ' ',
  ),
)

/** The folded words of a question worth searching names for: two or more letters, not a stop word, at most 8. */
export function keywordsOf(question: string): string[] {
  const words = question.match(/[\p{L}\p{N}][\p{L}\p{N}_.-]*/gu) ?? []
  const out: string[] = []
  for (const word of words) {
    const key = normalizeKey(word.replace(/[.-]+$/, ''))
    if ([...key].length < 2 || STOP_WORDS.has(key) || out.includes(key)) continue
    out.push(key)
    if (out.length === 8) break
  }
  return out
}

/**
 * Terms named in the question by one of their names or notations (the glossary's matcher, Korean particles and
 * letter case as validation reads them), in order of use. The matcher of the newest committed glossary, as a
 * validation has it: "What is X?" right after X was saved finds X.
 */
async function termsNamedIn(question: string): Promise<string[]> {
  const { snapshot } = await matcherCache.getFresh()
  const ids: string[] = []
  for (const match of snapshot.matcher.scan(question)) {
    for (const entry of match.entries) {
      const term = entry.payload?.term
      if (term && EVIDENCE_TERM_STATUSES.includes(term.status) && !ids.includes(term.id)) ids.push(term.id)
    }
  }
  return ids
}

const cut = (text: string) =>
  text.length > EVIDENCE_TEXT_MAX ? `${text.slice(0, EVIDENCE_TEXT_MAX)}…` : text

/**
 * The evidence for answering `question` (issue 29, spec part 6). Always: terms the question names (the glossary's
 * matcher) and terms found by its keywords among names and notations. With search by meaning ready: the query
 * embedded once, the nearest chunks of terms, published wiki pages and active meetings, reranked when the
 * reranker is on (`hybrid`). It falls back to name and keyword search (`keyword`) when search by meaning cannot
 * run, when the embedding provider fails temporarily (a failure that needs an administrator is 502
 * `rag_provider_error`), or when the current revision of a term the question names is not indexed yet. What may
 * be evidence: active and needs-completion terms (the latter `official: false`), published wiki pages, active
 * meetings (`official: false`); deprecated, merged and deleted terms, draft and archived pages and archived
 * meetings never.
 */
export async function retrieveEvidence(input: {
  question: string
  traceId: string
  readiness?: Readiness
}): Promise<EvidenceSet> {
  const manager = em()
  const named = await termsNamedIn(input.question)
  // What can run at once runs at once (on PostgreSQL each on a connection of its own; the embedded engine
  // takes them in turn): the keyword search while the question is embedded, then the three vector searches
  // and the check that the named terms are indexed (whose answer decides whether their hits are used).
  const keywordSearch = termsByKeywords(manager, keywordsOf(input.question), EVIDENCE_LIMITS.terms)
  keywordSearch.catch(() => undefined) // awaited below; a failure before then must not go unhandled
  let fallback: FallbackReason | null = null
  let vectorTerms: TermChunkHit[] = []
  let wikiHits: WikiChunkHit[] = []
  let meetingHits: MeetingChunkHit[] = []
  const readiness = input.readiness ?? (await retrievalReadiness())
  let keyword: string[]
  if (!readiness.ready) {
    fallback = 'not_ready'
    keyword = await keywordSearch
  } else {
    const { settings } = readiness
    const context = { purpose: 'chat' as const, traceId: input.traceId }
    let embedded: { vector: VectorParam } | { failure: ProviderError }
    ;[keyword, embedded] = await Promise.all([
      keywordSearch,
      embed(settings, input.question, context).then(
        (vector) => ({ vector }),
        (error: unknown) => {
          if (!(error instanceof ProviderError)) throw error
          return { failure: error }
        },
      ),
    ])
    if ('failure' in embedded) {
      if (!embedded.failure.retryable) throwProviderFailure(embedded.failure, 'The search provider failed')
      fallback = 'provider_failed'
    } else {
      const relevant = [...new Set([...named, ...keyword])]
      const query = {
        vector: embedded.vector,
        space: settings.space,
        domain: null,
        efSearch: EVIDENCE_SEARCH.efSearch,
      }
      // The three searches in one transaction (one round of planner settings, not three: issue 29).
      const [unindexed, [terms, wiki, meetings]] = await Promise.all([
        unindexedTerms(manager, relevant, settings.space),
        searchChunks(manager, [
          termChunkSearch({ ...query, limit: EVIDENCE_LIMITS.terms }),
          wikiChunkSearch({ ...query, limit: EVIDENCE_LIMITS.wiki }),
          meetingChunkSearch({ ...query, limit: EVIDENCE_LIMITS.meetings, team: null, from: null, to: null }),
        ]),
      ])
      if (unindexed.length > 0) {
        fallback = 'not_indexed'
      } else {
        ;({ vectorTerms, wikiHits, meetingHits } = await rerankEvidence(settings, input, {
          vectorTerms: terms,
          wikiHits: wiki,
          meetingHits: meetings,
        }))
      }
    }
  }
  const snippets = new Map<string, string>()
  for (const hit of vectorTerms) if (!snippets.has(hit.term_id)) snippets.set(hit.term_id, hit.content)
  // Names first (what the question asks about), then the nearest by meaning, then keyword matches.
  const order = [...new Set([...named, ...vectorTerms.map((h) => h.term_id), ...keyword])]
  const rows = new Map((await selectEvidenceTerms(manager, order)).map((r) => [r.id, r]))
  const terms = order
    .map((id) => rows.get(id))
    .filter((row) => row !== undefined)
    .slice(0, EVIDENCE_LIMITS.terms)
    .map((row): TermEvidence => ({
      kind: 'term',
      id: row.id,
      slug: row.slug,
      name: row.name,
      status: row.status,
      revision: row.revision,
      definition: cut(row.definition),
      snippet: cut(snippets.get(row.id) ?? row.definition),
      official: row.status === 'active',
    }))
  return {
    mode: fallback === null ? 'hybrid' : 'keyword',
    fallback,
    terms,
    wiki: wikiHits.map((h) => ({
      kind: 'wiki',
      id: h.page_id,
      slug: h.slug,
      title: h.title,
      revision: h.revision,
      startOffset: h.start_offset,
      endOffset: h.end_offset,
      content: cut(h.content),
      official: true,
    })),
    meetings: meetingHits.map((h) => ({
      kind: 'meeting',
      id: h.meeting_id,
      title: h.title,
      meetingDate: iso(h.meeting_date),
      revision: h.revision,
      startOffset: h.start_offset,
      endOffset: h.end_offset,
      content: cut(h.content),
      official: false,
    })),
  }
}

/**
 * The vector hits of the three sources reranked in one call when the reranker is on, each source's hits then in
 * the reranker's order. A failing reranker leaves the vector order (its call is recorded with its failure).
 */
async function rerankEvidence(
  settings: SearchSettings,
  input: { question: string; traceId: string },
  hits: { vectorTerms: TermChunkHit[]; wikiHits: WikiChunkHit[]; meetingHits: MeetingChunkHit[] },
): Promise<typeof hits> {
  const all = [
    ...hits.vectorTerms.map((hit) => ({ content: hit.content, hit, kind: 'term' as const })),
    ...hits.wikiHits.map((hit) => ({ content: hit.content, hit, kind: 'wiki' as const })),
    ...hits.meetingHits.map((hit) => ({ content: hit.content, hit, kind: 'meeting' as const })),
  ]
  let ranked: typeof all
  try {
    ranked = (
      await rerankItems(settings, input.question, all, {
        rerank: undefined,
        traceId: input.traceId,
        purpose: 'chat',
      })
    ).items
  } catch (error) {
    if (error instanceof ProviderError) return hits
    throw error
  }
  const of = <K extends (typeof all)[number]['kind']>(kind: K) =>
    ranked.filter((r) => r.kind === kind).map((r) => r.hit)
  return {
    vectorTerms: of('term') as TermChunkHit[],
    wikiHits: of('wiki') as WikiChunkHit[],
    meetingHits: of('meeting') as MeetingChunkHit[],
  }
}
