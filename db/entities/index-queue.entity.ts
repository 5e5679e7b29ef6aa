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
