import crypto from 'node:crypto'
import { Entity, PrimaryKey, Property, type Opt } from '@mikro-orm/core'

/** A tombstone: what was deleted, when and by whom, so offline sync can propagate deletions later. */
@Entity({ tableName: 'deletions' })
export class Deletion {
  @PrimaryKey({ type: 'uuid' })
  id: Opt<string> = crypto.randomUUID()

  @Property({ type: 'text' })
  entityType!: string

  @Property({ type: 'uuid' })
  entityId!: string

  @Property({ type: 'datetime', columnType: 'timestamptz' })
  deletedAt: Opt<Date> = new Date()

  @Property({ type: 'uuid', nullable: true })
  deletedById: string | null = null
}
