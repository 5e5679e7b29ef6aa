import { VECTOR_DIMENSIONS } from '#domain/rag.ts'
import {
  badAnswer,
  callProvider,
  checkVectors,
  withKey,
  type Embedder,
  type ProviderTarget,
} from '../provider.server.ts'

/**
 * The native batch-embedding provider (`beta`): `POST {baseUrl}/models/{model}:batchEmbedContents` with
 * `outputDimensionality: 1536` on every request, the key in the provider's API-key header `x-goog-api-key`.
 */
export const BETA_KEY_HEADER = 'x-goog-api-key'

export function betaEmbedder(target: ProviderTarget): Embedder {
  return {
    provider: 'beta',
    target,
    async embed(texts) {
      const model = target.model.replace(/^models\//, '')
      const json = (await callProvider(
        'embedding',
        `${target.baseUrl}/models/${encodeURIComponent(model)}:batchEmbedContents`,
        {
          method: 'POST',
          headers: withKey(target, { [BETA_KEY_HEADER]: target.apiKey ?? '' }),
          body: {
            requests: texts.map((text) => ({
              model: `models/${model}`,
              content: { parts: [{ text }] },
              outputDimensionality: VECTOR_DIMENSIONS,
            })),
          },
        },
      )) as { embeddings?: { values?: unknown }[] }
      if (!Array.isArray(json?.embeddings)) throw badAnswer('embedding', 'no embeddings')
      const vectors = json.embeddings.map((e) => e?.values)
      return { vectors: checkVectors('embedding', vectors, texts.length, VECTOR_DIMENSIONS), usage: {} }
    },
  }
}
