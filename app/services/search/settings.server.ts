import type { EntityManager } from '@mikro-orm/postgresql'
import { AppError } from '#app/lib/errors.server.ts'
import { UndecryptableSecretError } from '#app/lib/secrets.server.ts'
import type { Embedder, ProviderTarget, Reranker } from '#app/services/ai/provider.server.ts'
import { decryptHeaders, decryptKey } from '#app/services/ai/provider-secrets.server.ts'
import { recordedEmbedder, recordedReranker } from '#app/services/ai/recorder.server.ts'
import { embedderOf, rerankerOf } from '#app/services/ai/registry.server.ts'
import { em } from '#db/orm.ts'
import type { EmbeddingProvider, RAG_NOT_READY_REASONS, RerankerProvider } from '#domain/rag.ts'
import { servingEmbedding } from './reindex-store.server.ts'
import { selectConfig, type RagConfigRow } from './store.server.ts'

/**
 * The search settings as search and the index pipeline run with them (spec: "Search/index configuration"): the
 * stored row with its secrets decrypted, THE rule of whether search by meaning can run, and the recorded
 * embedder and reranker of the settings. The settings' API answer and PATCH rules are `rag-config.server.ts`.
 */

/** The embedding space of chunks: vectors of different providers, servers or models are never compared. */
export function spaceOf(
  row: Pick<RagConfigRow, 'embeddingProvider' | 'embeddingBaseUrl' | 'embeddingModel'>,
): string {
  return `${row.embeddingProvider}|${row.embeddingBaseUrl}|${row.embeddingModel}`
}

/** What the pipeline and search run with: the settings with their secrets decrypted. */
export interface SearchSettings {
  enabled: boolean
  chatEnabled: boolean
  space: string
  embeddingProvider: EmbeddingProvider
  embedding: ProviderTarget
  rerankerEnabled: boolean
  rerankerProvider: RerankerProvider
  reranker: ProviderTarget
  chunkSize: number
  chunkOverlap: number
  topK: number
}

/** The settings with secrets decrypted; throws `UndecryptableSecretError` when a stored secret cannot be read. */
export async function loadSearchSettings(manager: EntityManager = em()): Promise<SearchSettings> {
  const row = await selectConfig(manager)
  return {
    enabled: row.enabled,
    chatEnabled: row.chatEnabled,
    space: spaceOf(row),
    embeddingProvider: row.embeddingProvider,
    embedding: {
      baseUrl: row.embeddingBaseUrl,
      model: row.embeddingModel,
      apiKey: decryptKey(row.embeddingApiKey),
      headers: decryptHeaders(row.embeddingHeaders),
    },
    rerankerEnabled: row.rerankerEnabled,
    rerankerProvider: row.rerankerProvider,
    reranker: {
      baseUrl: row.rerankerBaseUrl,
      model: row.rerankerModel,
      apiKey: decryptKey(row.rerankerApiKey),
      headers: decryptHeaders(row.rerankerHeaders),
    },
    chunkSize: row.chunkSize,
    chunkOverlap: row.chunkOverlap,
    topK: row.topK,
  }
}

/** Why search by meaning cannot run (`details.reason` of `rag_not_ready`). */
export type SearchNotReadyReason = (typeof RAG_NOT_READY_REASONS)[number]

const NOT_READY_MESSAGES: Record<SearchNotReadyReason, string> = {
  off: 'Search by meaning is switched off.',
  no_provider: 'Search by meaning has no embedding provider configured.',
  secret_unreadable:
    'Search is not ready: a stored provider secret cannot be decrypted with the current encryption key. An administrator must enter it again.',
}

/**
 * THE rule of whether search by meaning can run now — for a query and for indexing alike: switched on, with an
 * embedding provider, and every stored secret readable (a changed or lost key is a state, never a crash).
 * Everything else asks this: `readySearchSettings` (the API's 503), `searchReadiness` (pages), and the index
 * pipeline (its relay and its stages).
 */
export async function searchState(
  manager: EntityManager = em(),
): Promise<{ ready: true; settings: SearchSettings } | { ready: false; reason: SearchNotReadyReason }> {
  let settings: SearchSettings
  try {
    settings = await loadSearchSettings(manager)
  } catch (error) {
    if (error instanceof UndecryptableSecretError) return { ready: false, reason: 'secret_unreadable' }
    throw error
  }
  if (!settings.enabled) return { ready: false, reason: 'off' }
  if (!settings.embedding.baseUrl || !settings.embedding.model) return { ready: false, reason: 'no_provider' }
  return { ready: true, settings }
}

/** The message of a reason search cannot run (the API's `rag_not_ready`, an index row's wait). */
export function notReadyMessage(reason: SearchNotReadyReason): string {
  return NOT_READY_MESSAGES[reason]
}

/**
 * The settings search runs with, or 503 `rag_not_ready` whose `details.reason` names why (`off`,
 * `no_provider`, `secret_unreadable`), so the search page can say it in the reader's language.
 */
export async function readySearchSettings(): Promise<SearchSettings> {
  // Both reads at once (on PostgreSQL each on a connection of its own): this is on every search's path.
  const manager = em()
  const [state, serving] = await Promise.all([searchState(manager), servingEmbedding(manager)])
  if (!state.ready)
    throw new AppError('rag_not_ready', notReadyMessage(state.reason), { details: { reason: state.reason } })
  // While a full reindex builds after a change of model, the live tables hold the old model's vectors: queries
  // are embedded with it until the swap (decision 028). A stored secret of it that cannot be read any more
  // leaves search on the current settings, which find what was saved since.
  if (!serving) return state.settings
  try {
    return {
      ...state.settings,
      space: spaceOf({
        embeddingProvider: serving.provider,
        embeddingBaseUrl: serving.baseUrl,
        embeddingModel: serving.model,
      }),
      embeddingProvider: serving.provider,
      embedding: {
        baseUrl: serving.baseUrl,
        model: serving.model,
        apiKey: decryptKey(serving.apiKey),
        headers: decryptHeaders(serving.headers),
      },
    }
  } catch (error) {
    if (error instanceof UndecryptableSecretError) return state.settings
    throw error
  }
}

/**
 * Whether search by meaning can run now, as data: pages that offer something else when it cannot (the home
 * page, `/search`'s name search) ask this instead of failing.
 */
export async function searchReadiness(): Promise<
  { ready: true } | { ready: false; reason: SearchNotReadyReason }
> {
  const state = await searchState()
  return state.ready ? { ready: true } : { ready: false, reason: state.reason }
}

/** The embedder of the settings, every call recorded. */
export function embedderFor(
  settings: SearchSettings,
  context: Parameters<typeof recordedEmbedder>[1],
): Embedder {
  return recordedEmbedder(embedderOf(settings.embeddingProvider, settings.embedding), context)
}

/** The reranker of the settings, every call recorded; undefined when it is off or not configured. */
export function rerankerFor(
  settings: SearchSettings,
  context: Parameters<typeof recordedReranker>[1],
): Reranker | undefined {
  if (!settings.rerankerEnabled || !settings.reranker.baseUrl || !settings.reranker.model) return undefined
  return recordedReranker(rerankerOf(settings.rerankerProvider, settings.reranker), context)
}
