import { Entity, PrimaryKey, Property, type Opt } from '@mikro-orm/core'
import type {
  AiFailureClass,
  AiPurpose,
  AiRunStatus,
  AiTask,
  EmbeddingProvider,
  RerankerProvider,
} from '#domain/rag.ts'

/**
 * Schema-only descriptions of the search tables (migration 1000, decision 016). Raw SQL owns them: settings,
 * chunks and KNN in `app/services/search/store.server.ts`, pending chunks in
 * `app/services/index-queue/store.server.ts`, AI runs in `app/services/ai/store.server.ts`. Vectors are
 * described in pgvector's text form.
 */

/** The one row of search settings; secrets are AES-256-GCM ciphertext. */
@Entity({ tableName: 'rag_config' })
export class RagConfig {
  @PrimaryKey({ type: 'smallint' })
  id: Opt<number> = 1

  @Property({ type: 'boolean' })
  enabled: Opt<boolean> = false

  @Property({ type: 'boolean' })
  chatEnabled: Opt<boolean> = false

  @Property({ type: 'text' })
  embeddingProvider: Opt<EmbeddingProvider> = 'alpha_compatible'

  @Property({ type: 'text' })
  embeddingBaseUrl: Opt<string> = ''

  @Property({ type: 'text' })
  embeddingModel: Opt<string> = ''

  @Property({ type: 'text', nullable: true })
  embeddingApiKey: string | null = null

  /** `[{ name, value }]`, value encrypted. */
  @Property({ type: 'json', columnType: 'jsonb' })
  embeddingHeaders: Opt<{ name: string; value: string }[]> = []

  @Property({ type: 'boolean' })
  rerankerEnabled: Opt<boolean> = false

  @Property({ type: 'text' })
  rerankerProvider: Opt<RerankerProvider> = 'gamma_compatible'

  @Property({ type: 'text' })
  rerankerBaseUrl: Opt<string> = ''

  @Property({ type: 'text' })
  rerankerModel: Opt<string> = ''

  @Property({ type: 'text', nullable: true })
  rerankerApiKey: string | null = null

  @Property({ type: 'json', columnType: 'jsonb' })
  rerankerHeaders: Opt<{ name: string; value: string }[]> = []

  @Property({ type: 'integer' })
  chunkSize: Opt<number> = 1200

  @Property({ type: 'integer' })
  chunkOverlap: Opt<number> = 150

  @Property({ type: 'integer' })
  topK: Opt<number> = 10

  @Property({ type: 'uuid', nullable: true })
  updatedById: string | null = null

  @Property({ type: 'datetime', columnType: 'timestamptz' })
  updatedAt: Opt<Date> = new Date()
}

/** What every chunk table has. */
abstract class ChunkColumns {
  @PrimaryKey({ type: 'uuid' })
  id!: string

  @Property({ type: 'integer' })
  revision!: number

  @Property({ type: 'integer' })
  chunkIndex!: number

  @Property({ type: 'text' })
  content!: string

  /** SHA-256 of the embedded text. */
  @Property({ type: 'text' })
  contentHash!: string

  /** The embedding space: provider, base URL and model. */
  @Property({ type: 'text' })
  model!: string

  @Property({ type: 'text', columnType: 'vector(1536)' })
  embedding!: string

  @Property({ type: 'datetime', columnType: 'timestamptz' })
  createdAt: Opt<Date> = new Date()
}

@Entity({ tableName: 'term_chunks' })
export class TermChunk extends ChunkColumns {
  @Property({ type: 'uuid' })
  termId!: string

  @Property({ type: 'text' })
  sourceField!: string
}

@Entity({ tableName: 'wiki_chunks' })
export class WikiChunk extends ChunkColumns {
  @Property({ type: 'uuid' })
  pageId!: string

  @Property({ type: 'integer' })
  startOffset!: number

  @Property({ type: 'integer' })
  endOffset!: number
}

@Entity({ tableName: 'meeting_chunks' })
export class MeetingChunk extends ChunkColumns {
  @Property({ type: 'uuid' })
  meetingId!: string

  @Property({ type: 'integer' })
  startOffset!: number

  @Property({ type: 'integer' })
  endOffset!: number
}

/** A chunk one queue row's stages hand on: made by chunk, embedded by embed, moved by upsert. */
@Entity({ tableName: 'rag_pending_chunks' })
export class RagPendingChunk {
  @PrimaryKey({ type: 'uuid' })
  queueId!: string

  @PrimaryKey({ type: 'integer' })
  chunkIndex!: number

  @Property({ type: 'text', nullable: true })
  sourceField: string | null = null

  @Property({ type: 'integer', nullable: true })
  startOffset: number | null = null

  @Property({ type: 'integer', nullable: true })
  endOffset: number | null = null

  @Property({ type: 'text' })
  content!: string

  @Property({ type: 'text' })
  embedText!: string

  @Property({ type: 'text' })
  contentHash!: string

  @Property({ type: 'text', columnType: 'vector(1536)', nullable: true })
  embedding: string | null = null
}

/** One provider call: never its prompt, text, vector or secret. */
@Entity({ tableName: 'ai_runs' })
export class AiRun {
  @PrimaryKey({ type: 'uuid' })
  id!: string

  @Property({ type: 'text' })
  traceId!: string

  @Property({ type: 'text' })
  task!: AiTask

  @Property({ type: 'text' })
  purpose!: AiPurpose

  @Property({ type: 'text' })
  provider!: string

  @Property({ type: 'text' })
  model!: string

  @Property({ type: 'text' })
  status: Opt<AiRunStatus> = 'running'

  @Property({ type: 'text', nullable: true })
  failureClass: AiFailureClass | null = null

  @Property({ type: 'integer', nullable: true })
  httpStatus: number | null = null

  @Property({ type: 'integer' })
  items: Opt<number> = 0

  @Property({ type: 'integer', nullable: true })
  inputTokens: number | null = null

  @Property({ type: 'integer', nullable: true })
  outputTokens: number | null = null

  @Property({ type: 'integer', nullable: true })
  totalTokens: number | null = null

  @Property({ type: 'integer', nullable: true })
  latencyMs: number | null = null

  @Property({ type: 'datetime', columnType: 'timestamptz' })
  startedAt: Opt<Date> = new Date()

  @Property({ type: 'datetime', columnType: 'timestamptz', nullable: true })
  finishedAt: Date | null = null
}
