import type { EntityManager } from '@mikro-orm/postgresql'
import { iso, parseJson } from '#db/sql.ts'
import type { LlmProvider } from '#domain/rag.ts'
import type { StoredHeader } from './provider-secrets.server.ts'

/**
 * The SQL of `ai_provider_config`: the one row of the chat's AI (LLM) provider settings (migration
 * 20261201002000). The key and header values are stored as the caller gives them (ciphertext).
 */

export interface AiProviderRow {
  provider: LlmProvider
  baseUrl: string
  model: string
  apiKey: string | null
  headers: StoredHeader[]
  temperature: number
  maxTokens: number
  updatedAt: string
}

interface AiProviderDbRow {
  provider: LlmProvider
  base_url: string
  model: string
  api_key: string | null
  headers: unknown
  temperature: number | string
  max_tokens: number
  updated_at: Date | string
}

/** The settings row (the migration inserts it); `forUpdate` locks it for a read-modify-write. */
export async function selectAiProvider(manager: EntityManager, forUpdate = false): Promise<AiProviderRow> {
  const [row] = await manager.execute<AiProviderDbRow[]>(
    `select * from ai_provider_config where id = 1${forUpdate ? ' for update' : ''}`,
  )
  if (!row) throw new Error('ai_provider_config has no row: the migration inserts it.')
  return {
    provider: row.provider,
    baseUrl: row.base_url,
    model: row.model,
    apiKey: row.api_key,
    headers: parseJson<StoredHeader[]>(row.headers) ?? [],
    temperature: Number(row.temperature),
    maxTokens: row.max_tokens,
    updatedAt: iso(row.updated_at),
  }
}

export async function updateAiProvider(
  tx: EntityManager,
  next: Omit<AiProviderRow, 'updatedAt'>,
  actorId: string,
): Promise<void> {
  await tx.execute(
    `update ai_provider_config set provider = ?, base_url = ?, model = ?, api_key = ?, headers = ?::jsonb,
            temperature = ?, max_tokens = ?, updated_by_id = ?, updated_at = now()
      where id = 1`,
    [
      next.provider,
      next.baseUrl,
      next.model,
      next.apiKey,
      JSON.stringify(next.headers),
      next.temperature,
      next.maxTokens,
      actorId,
    ],
    'run',
  )
}
