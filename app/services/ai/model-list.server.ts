import type { AiPurpose } from '#domain/rag.ts'
import { callProvider, parseModelList, type ModelInfo } from './provider.server.ts'
import { recordCall } from './recorder.server.ts'
import { keyHeaders } from './registry.server.ts'

/**
 * `GET {baseUrl}/models` of any provider kind, for the settings pages' model pickers (search settings and the AI
 * provider). The key goes in the header its provider kind expects (`keyHeaders` of the provider registry), the
 * call is bounded like every provider call (`callProvider`) and recorded as an AI run (task `models`), and a
 * failure is a `ProviderError` with its failure class. Nothing is saved.
 */

/** The provider kinds whose models can be listed (every embedding, reranker and chat kind). */
export type ModelListKind = Parameters<typeof keyHeaders>[0]

export async function listModels(options: {
  kind: ModelListKind
  baseUrl: string
  apiKey: string | null
  headers: Record<string, string>
  purpose?: AiPurpose
}): Promise<ModelInfo[]> {
  // Custom headers first: a custom header cannot replace the key's header (as in every provider call).
  const headers = { ...options.headers, ...keyHeaders(options.kind, options.apiKey) }
  const answer = await recordCall(
    { task: 'models', purpose: options.purpose ?? 'models', provider: options.kind, model: '', items: 0 },
    async () => ({
      json: await callProvider('models', `${options.baseUrl}/models`, { method: 'GET', headers }),
    }),
  )
  return parseModelList(answer.json)
}

/**
 * The models a chat can use: those whose id names no embedding or reranker model (`embed`, `rerank`), sorted.
 * A provider's list mixes all kinds; the picker still accepts any id typed by hand.
 */
export function chatModels(models: readonly ModelInfo[]): ModelInfo[] {
  return models.filter((m) => !/embed|rerank/i.test(m.id)).sort((a, b) => a.id.localeCompare(b.id))
}
