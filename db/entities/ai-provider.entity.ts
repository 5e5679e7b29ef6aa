import { Entity, PrimaryKey, Property, type Opt } from '@mikro-orm/core'
import type { LlmProvider } from '#domain/rag.ts'

/**
 * The one row of the chat's AI (LLM) provider settings (issue 29, migration 20261201002000); secrets are
 * AES-256-GCM ciphertext. Raw SQL owns it: `app/services/ai/settings-store.server.ts`.
 */
@Entity({ tableName: 'ai_provider_config' })
export class AiProviderConfig {
  @PrimaryKey({ type: 'smallint' })
  id: Opt<number> = 1

  @Property({ type: 'text' })
  provider: Opt<LlmProvider> = 'alpha_compatible'

  @Property({ type: 'text' })
  baseUrl: Opt<string> = ''

  @Property({ type: 'text' })
  model: Opt<string> = ''

  @Property({ type: 'text', nullable: true })
  apiKey: string | null = null

  /** `[{ name, value }]`, value encrypted (`''` once cleared). */
  @Property({ type: 'json', columnType: 'jsonb' })
  headers: Opt<{ name: string; value: string }[]> = []

  @Property({ type: 'double' })
  temperature: Opt<number> = 0.2

  @Property({ type: 'integer' })
  maxTokens: Opt<number> = 1024

  @Property({ type: 'uuid', nullable: true })
  updatedById: string | null = null

  @Property({ type: 'datetime', columnType: 'timestamptz' })
  updatedAt: Opt<Date> = new Date()
}
