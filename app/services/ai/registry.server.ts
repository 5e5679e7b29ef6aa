import type { EmbeddingProvider, RerankerProvider } from '#domain/rag.ts'
import type { ChatCompleter, Embedder, ProviderTarget, Reranker } from './provider.server.ts'
import { alphaChat, alphaEmbedder, alphaReranker } from './providers/alpha-compatible.server.ts'
import { betaEmbedder, BETA_KEY_HEADER } from './providers/beta.server.ts'
import { gammaReranker } from './providers/gamma-compatible.server.ts'

/** The provider module of each kind (one per kind, behind the `Embedder` / `Reranker` interface). */
export function embedderOf(kind: EmbeddingProvider, target: ProviderTarget): Embedder {
  return kind === 'beta' ? betaEmbedder(target) : alphaEmbedder(target)
}

export function rerankerOf(kind: RerankerProvider, target: ProviderTarget): Reranker {
  return kind === 'gamma_compatible' ? gammaReranker(target) : alphaReranker(target)
}

/** The chat-completion module of a provider kind (issue 29: `alpha_compatible` only). */
export function chatOf(kind: 'alpha_compatible', target: ProviderTarget): ChatCompleter {
  switch (kind) {
    case 'alpha_compatible':
      return alphaChat(target)
  }
}

/** The key's header for `GET {baseUrl}/models` of a provider kind. */
export function keyHeaders(
  kind: EmbeddingProvider | RerankerProvider,
  apiKey: string | null,
): Record<string, string> {
  if (!apiKey) return {}
  return kind === 'beta' ? { [BETA_KEY_HEADER]: apiKey } : { authorization: `Bearer ${apiKey}` }
}
