import crypto from 'node:crypto'
import { Entity, PrimaryKey, Property, type Opt } from '@mikro-orm/core'
import type { IndexQueueAction, IndexQueueStatus } from '#domain/content.ts'

export type IndexSourceType = 'term' | 'wiki' | 'meeting'

/**
 * The durable index queue (spec: `rag_index_queue`): written in the same transaction as the change it
 * records, with the revision at enqueue time. At most one `queued` row per source (a partial unique index).
 */
@Entity({ tableName: 'rag_index_queue' })
export class RagIndexQueue {
  @PrimaryKey({ type: 'uuid' })
  id: Opt<string> = crypto.randomUUID()

  @Property({ type: 'text' })
  sourceType!: IndexSourceType

  @Property({ type: 'uuid' })
  sourceId!: string

  @Property({ type: 'integer' })
  revision!: number

  @Property({ type: 'text' })
  action: Opt<IndexQueueAction> = 'index'

  @Property({ type: 'text' })
  status: Opt<IndexQueueStatus> = 'queued'

  @Property({ type: 'integer' })
  attempts: Opt<number> = 0

  /** Truncated error message of a failed attempt. */
  @Property({ type: 'text', nullable: true })
  error: string | null = null

  @Property({ type: 'datetime', columnType: 'timestamptz', nullable: true })
  lockedAt: Date | null = null

  /** The worker (heartbeat id) whose stage last took the row while `processing`. */
  @Property({ type: 'text', nullable: true })
  lockedBy: string | null = null

  /** The full reindex run that covers this queued row (the relay leaves it to the run); null for ordinary work. */
  @Property({ type: 'uuid', nullable: true })
  runId: string | null = null

  /** A retry waits until then (exponential backoff of the in-process transport). */
  @Property({ type: 'datetime', columnType: 'timestamptz' })
  availableAt: Opt<Date> = new Date()

  @Property({ type: 'datetime', columnType: 'timestamptz', nullable: true })
  finishedAt: Date | null = null

  @Property({ type: 'datetime', columnType: 'timestamptz' })
  createdAt: Opt<Date> = new Date()

  @Property({ type: 'datetime', columnType: 'timestamptz' })
  updatedAt: Opt<Date> = new Date()
}

/**
 * A provider of search paused after it answered 429, 5xx or not in time (decision 027): no row that needs it
 * starts before `pausedUntil`; `since` is when the outage began (its budget), `failures` how often it failed.
 */
@Entity({ tableName: 'index_provider_pauses' })
export class IndexProviderPause {
  @PrimaryKey({ type: 'text' })
  provider!: 'embedding' | 'reranker'

  @Property({ type: 'datetime', columnType: 'timestamptz' })
  pausedUntil!: Date

  @Property({ type: 'datetime', columnType: 'timestamptz' })
  since!: Date

  @Property({ type: 'integer' })
  failures!: number

  @Property({ type: 'text' })
  reason!: string

  /** While set and ahead, one stage is probing the provider after the pause ended. */
  @Property({ type: 'datetime', columnType: 'timestamptz', nullable: true })
  probeUntil: Date | null = null

  @Property({ type: 'datetime', columnType: 'timestamptz' })
  updatedAt: Opt<Date> = new Date()
}

/**
 * One full reindex into shadow tables (decision 028): built source by source in id order (`cursorKind`,
 * `cursorId`), its HNSW index made, then swapped in for the live chunk tables in one transaction.
 */
@Entity({ tableName: 'rag_reindex_runs' })
export class RagReindexRun {
  @PrimaryKey({ type: 'uuid' })
  id: Opt<string> = crypto.randomUUID()

  @Property({ type: 'text' })
  status: Opt<'building' | 'done' | 'failed' | 'cancelled'> = 'building'

  /** The embedding space (provider, base URL, model) the run embeds in. */
  @Property({ type: 'text' })
  space!: string

  @Property({ type: 'integer' })
  chunkSize!: number

  @Property({ type: 'integer' })
  chunkOverlap!: number

  /** Where the run is: a source kind being loaded, then `index` (building the indexes), then `swap`. */
  @Property({ type: 'text' })
  cursorKind: Opt<'term' | 'wiki' | 'meeting' | 'index' | 'swap'> = 'term'

  /** The last source of `cursorKind` written to the shadow table. */
  @Property({ type: 'uuid', nullable: true })
  cursorId: string | null = null

  @Property({ type: 'integer' })
  sourcesTotal: Opt<number> = 0

  @Property({ type: 'integer' })
  sourcesDone: Opt<number> = 0

  @Property({ type: 'integer' })
  chunksWritten: Opt<number> = 0

  /** Chunks sent to the provider (the rest reused a vector of the same text in the same space). */
  @Property({ type: 'integer' })
  chunksEmbedded: Opt<number> = 0

  /** The embedding settings of the live tables while they differ from the run's (keys encrypted); search uses them until the swap. */
  @Property({ type: 'json', nullable: true })
  serving: Record<string, unknown> | null = null

  /** The worker (heartbeat id) building the run. */
  @Property({ type: 'text', nullable: true })
  holder: string | null = null

  @Property({ type: 'text', nullable: true })
  error: string | null = null

  @Property({ type: 'uuid', nullable: true })
  requestedById: string | null = null

  @Property({ type: 'datetime', columnType: 'timestamptz' })
  createdAt: Opt<Date> = new Date()

  @Property({ type: 'datetime', columnType: 'timestamptz' })
  updatedAt: Opt<Date> = new Date()

  @Property({ type: 'datetime', columnType: 'timestamptz', nullable: true })
  finishedAt: Date | null = null
}
