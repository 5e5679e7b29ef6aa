import type { EntityManager } from '@mikro-orm/postgresql'
import { AppError } from '#app/lib/errors.server.ts'
import { UndecryptableSecretError } from '#app/lib/secrets.server.ts'
import { em } from '#db/orm.ts'
import type { LlmProvider } from '#domain/rag.ts'
import type { ChatCompleter, ProviderTarget } from './provider.server.ts'
import { decryptHeaders, decryptKey } from './provider-secrets.server.ts'
import { recordedChat, type RunContext } from './recorder.server.ts'
import { chatOf } from './registry.server.ts'
import { selectAiProvider } from './settings-store.server.ts'

/**
 * The chat's AI (LLM) provider as the chat runs with it (issue 29): the stored settings with their secrets
 * decrypted, and the recorded chat model of those settings. The administrator's reads and writes of the same row
 * are `ai-provider.server.ts`.
 */

export interface LlmSettings {
  provider: LlmProvider
  target: ProviderTarget
  temperature: number
  maxTokens: number
}

/**
 * The settings with secrets decrypted, or null when no base URL or model is set (the chat cannot call). A stored
 * secret that cannot be decrypted (the encryption key changed or was lost) is 503 `rag_not_ready` with
 * `details.reason` `secret_unreadable`: a state an administrator fixes by entering it again, never a crash.
 */
export async function loadLlmSettings(manager: EntityManager = em()): Promise<LlmSettings | null> {
  const row = await selectAiProvider(manager)
  if (!row.baseUrl || !row.model) return null
  try {
    return {
      provider: row.provider,
      target: {
        baseUrl: row.baseUrl,
        model: row.model,
        apiKey: decryptKey(row.apiKey),
        headers: decryptHeaders(row.headers),
      },
      temperature: row.temperature,
      maxTokens: row.maxTokens,
    }
  } catch (error) {
    if (error instanceof UndecryptableSecretError) {
      throw new AppError(
        'rag_not_ready',
        'The AI provider is not ready: a stored secret cannot be decrypted with the current encryption key. An administrator must enter it again.',
        { details: { reason: 'secret_unreadable' } },
      )
    }
    throw error
  }
}

/** The chat model of the settings, every call recorded as an AI run (task `llm`) under `context`. */
export function chatModelFor(settings: LlmSettings, context: RunContext): ChatCompleter {
  return recordedChat(chatOf(settings.provider, settings.target), context)
}
