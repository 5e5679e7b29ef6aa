import crypto from 'node:crypto'
import { ArrayType, Entity, PrimaryKey, Property, type Opt } from '@mikro-orm/core'
import type { MeetingStatus } from '#domain/content.ts'

/** A legacy meeting record: the original text, read-only after creation except archiving by an admin. */
@Entity({ tableName: 'meetings' })
export class Meeting {
  @PrimaryKey({ type: 'uuid' })
  id: Opt<string> = crypto.randomUUID()

  @Property({ type: 'text' })
  title!: string

  @Property({ type: 'datetime', columnType: 'timestamptz' })
  meetingDate!: Date

  @Property({ type: 'text', nullable: true })
  source: string | null = null

  @Property({ type: 'text', nullable: true })
  team: string | null = null

  @Property({ type: ArrayType, columnType: 'text[]' })
  domain: Opt<string[]> = []

  @Property({ type: 'text' })
  content!: string

  @Property({ type: 'text' })
  status: Opt<MeetingStatus> = 'active'

  @Property({ type: 'integer' })
  revision: Opt<number> = 1

  @Property({ type: 'uuid', nullable: true })
  createdById: string | null = null

  @Property({ type: 'uuid', nullable: true })
  archivedById: string | null = null

  @Property({ type: 'datetime', columnType: 'timestamptz', nullable: true })
  archivedAt: Date | null = null

  @Property({ type: 'datetime', columnType: 'timestamptz' })
  createdAt: Opt<Date> = new Date()

  @Property({ type: 'datetime', columnType: 'timestamptz' })
  updatedAt: Opt<Date> = new Date()
}
