import crypto from 'node:crypto'
import { Entity, PrimaryKey, Property, type Opt } from '@mikro-orm/core'
import type { ImportJobStatus } from '#domain/content.ts'

/** One real import run: its progress counters and, when finished, the per-row report. */
@Entity({ tableName: 'import_jobs' })
export class ImportJob {
  @PrimaryKey({ type: 'uuid' })
  id: Opt<string> = crypto.randomUUID()

  @Property({ type: 'text' })
  status!: ImportJobStatus

  @Property({ type: 'text' })
  format!: 'csv' | 'json'

  @Property({ type: 'integer' })
  total: Opt<number> = 0

  @Property({ type: 'integer' })
  processed: Opt<number> = 0

  @Property({ type: 'integer' })
  created: Opt<number> = 0

  @Property({ type: 'integer' })
  updated: Opt<number> = 0

  @Property({ type: 'integer' })
  unchanged: Opt<number> = 0

  @Property({ type: 'integer' })
  errors: Opt<number> = 0

  @Property({ type: 'text', nullable: true })
  error: string | null = null

  @Property({ type: 'json', nullable: true })
  report: unknown = null

  /** The rows to import, from submission until the job records its outcome (the job's payload is the id). */
  @Property({ type: 'json', nullable: true })
  input: unknown = null

  @Property({ type: 'uuid', nullable: true })
  createdById: string | null = null

  @Property({ type: 'datetime', columnType: 'timestamptz' })
  createdAt: Opt<Date> = new Date()

  @Property({ type: 'datetime', columnType: 'timestamptz', nullable: true })
  finishedAt: Date | null = null
}
