import { AppError, validationError } from '#app/lib/errors.server.ts'
import { UndecryptableSecretError } from '#app/lib/secrets.server.ts'
import type { ListModelsInput } from '#app/schemas/rag.ts'
import { listModels } from '#app/services/ai/model-list.server.ts'
import { storedAuthFor } from '#app/services/ai/provider-secrets.server.ts'
import { filterModels, throwProviderFailure, type ModelInfo } from '#app/services/ai/provider.server.ts'
import { em } from '#db/orm.ts'
import { embedderFor, loadSearchSettings, rerankerFor, type SearchSettings } from './settings.server.ts'
import { selectConfig } from './store.server.ts'

/**
 * The search settings page's provider tools (spec: "Search and index administration"): the model list of an
 * endpoint and the connection test. Both call through the provider layer and are recorded as AI runs.
 */

/**
 * `POST /admin/rag-config/models`: `GET {baseUrl}/models`, filtered to ids containing `embed` (embedding) or
 * `reranker` (reranker). The stored key and headers go along only to the stored base URL of that endpoint;
 * nothing is saved.
 */
export async function listProviderModels(input: ListModelsInput): Promise<{ models: ModelInfo[] }> {
  const row = await selectConfig(em())
  const stored =
    input.endpoint === 'embedding'
      ? {
          kind: row.embeddingProvider,
          baseUrl: row.embeddingBaseUrl,
          apiKey: row.embeddingApiKey,
          headers: row.embeddingHeaders,
        }
      : {
          kind: row.rerankerProvider,
          baseUrl: row.rerankerBaseUrl,
          apiKey: row.rerankerApiKey,
          headers: row.rerankerHeaders,
        }
  try {
    const models = await listModels({
      kind: stored.kind,
      baseUrl: input.baseUrl,
      ...storedAuthFor(stored, input.baseUrl),
    })
    return { models: filterModels(models, input.endpoint) }
  } catch (error) {
    throwProviderFailure(error, 'The provider call failed')
  }
}

/**
 * `POST /admin/rag-config/test`: a short embedding request with the stored settings, and a rerank request
 * when the reranker is on. Any failure is 502 `rag_provider_error` naming the failure class.
 */
export async function testConnection(): Promise<{ ok: boolean; embedding: boolean; reranker: boolean }> {
  let settings: SearchSettings
  try {
    settings = await loadSearchSettings()
  } catch (error) {
    if (error instanceof UndecryptableSecretError) throw new AppError('rag_not_ready', error.message)
    throw error
  }
  if (!settings.embedding.baseUrl || !settings.embedding.model) {
    throw validationError([
      { path: 'embeddingBaseUrl', message: 'Set the embedding base URL and model first.' },
    ])
  }
  try {
    await embedderFor(settings, { purpose: 'test' }).embed(['connection test'])
    const reranker = settings.rerankerEnabled ? rerankerFor(settings, { purpose: 'test' }) : undefined
    if (settings.rerankerEnabled && !reranker) {
      throw validationError([
        { path: 'rerankerBaseUrl', message: 'Set the reranker base URL and model first.' },
      ])
    }
    if (reranker) await reranker.rerank('connection test', ['connection test'])
    return { ok: true, embedding: true, reranker: Boolean(reranker) }
  } catch (error) {
    throwProviderFailure(error, 'The provider call failed')
  }
}
