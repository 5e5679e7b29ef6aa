import { withKey, type ProviderTarget, type Reranker } from '../provider.server.ts'
import { rerankCall } from './alpha-compatible.server.ts'

/**
 * A rerank server of the `gamma_compatible` kind: `POST {baseUrl}/rerank` with `{ model, query, documents,
 * top_n }`, answering `{ results: [{ index, relevance_score }] }`; the key as `Authorization: Bearer`.
 */
export function gammaReranker(target: ProviderTarget): Reranker {
  return {
    provider: 'gamma_compatible',
    target,
    rerank: (query, documents) =>
      rerankCall(target, withKey(target, { authorization: `Bearer ${target.apiKey}` }), query, documents),
  }
}
