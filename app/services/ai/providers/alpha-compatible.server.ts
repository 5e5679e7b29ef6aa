import { VECTOR_DIMENSIONS } from '#domain/rag.ts'
import {
  badAnswer,
  callProvider,
  checkVectors,
  withKey,
  type Embedder,
  type ProviderTarget,
  type Reranker,
  type Usage,
} from '../provider.server.ts'

/**
 * A generic compatible-API server (`alpha_compatible`): `POST {baseUrl}/embeddings` with `dimensions: 1536`,
 * `POST {baseUrl}/rerank`, `GET {baseUrl}/models`; the key as `Authorization: Bearer`.
 */

const bearer = (target: ProviderTarget) => withKey(target, { authorization: `Bearer ${target.apiKey}` })

export function alphaEmbedder(target: ProviderTarget): Embedder {
  return {
    provider: 'alpha_compatible',
    target,
    async embed(texts) {
      const json = (await callProvider('embedding', `${target.baseUrl}/embeddings`, {
        method: 'POST',
        headers: bearer(target),
        body: { model: target.model, input: texts, dimensions: VECTOR_DIMENSIONS, encoding_format: 'float' },
      })) as { data?: { embedding?: unknown; index?: number }[]; usage?: Record<string, unknown> }
      if (!Array.isArray(json?.data)) throw badAnswer('embedding', 'no data')
      const ordered = [...json.data].sort((a, b) => (a.index ?? 0) - (b.index ?? 0)).map((d) => d.embedding)
      return {
        vectors: checkVectors('embedding', ordered, texts.length, VECTOR_DIMENSIONS),
        usage: usageOf(json.usage),
      }
    },
  }
}

export function alphaReranker(target: ProviderTarget): Reranker {
  return {
    provider: 'alpha_compatible',
    target,
    rerank: (q, docs) => rerankCall(target, bearer(target), q, docs),
  }
}

/** `POST {baseUrl}/rerank` → `{ results: [{ index, relevance_score }] }` (also accepted under `data`). */
export async function rerankCall(
  target: ProviderTarget,
  headers: Record<string, string>,
  query: string,
  documents: readonly string[],
): Promise<{ scores: number[]; usage: Usage }> {
  const json = (await callProvider('reranker', `${target.baseUrl}/rerank`, {
    method: 'POST',
    headers,
    body: { model: target.model, query, documents, top_n: documents.length },
  })) as { results?: unknown; data?: unknown; usage?: Record<string, unknown>; meta?: unknown }
  const results = (Array.isArray(json?.results) ? json.results : json?.data) as
    { index?: unknown; relevance_score?: unknown; score?: unknown }[] | undefined
  if (!Array.isArray(results)) throw badAnswer('reranker', 'no results')
  const scores = documents.map(() => Number.NaN)
  for (const r of results) {
    const score = typeof r.relevance_score === 'number' ? r.relevance_score : r.score
    if (typeof r.index === 'number' && r.index >= 0 && r.index < scores.length && typeof score === 'number') {
      scores[r.index] = score
    }
  }
  return { scores, usage: usageOf(json.usage) }
}

export function usageOf(raw: Record<string, unknown> | undefined): Usage {
  const n = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? Math.round(v) : undefined)
  if (!raw) return {}
  return {
    inputTokens: n(raw.prompt_tokens) ?? n(raw.input_tokens),
    outputTokens: n(raw.completion_tokens) ?? n(raw.output_tokens),
    totalTokens: n(raw.total_tokens),
  }
}
