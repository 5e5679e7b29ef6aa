import crypto from 'node:crypto'
import { Entity, PrimaryKey, Property, type Opt } from '@mikro-orm/core'
import type { RelationStatus, RelationType } from '#domain/content.ts'

/**
 * A semantic relation from one term to another, under review (docs/decisions/008-relations.md). `version` is
 * the opaque concurrency token: every change writes a new one with a conditional UPDATE. Services read and
 * write this table with SQL (app/services/relations/*).
 */
@Entity({ tableName: 'relations' })
export class Relation {
  @PrimaryKey({ type: 'uuid' })
  id: Opt<string> = crypto.randomUUID()

  @Property({ type: 'uuid' })
  sourceTermId!: string

  @Property({ type: 'uuid' })
  targetTermId!: string

  @Property({ type: 'text' })
  relationType!: RelationType

  @Property({ type: 'text' })
  evidenceMd!: string

  @Property({ type: 'integer' })
  sourceRevision!: number

  @Property({ type: 'integer' })
  targetRevision!: number

  @Property({ type: 'text' })
  status: Opt<RelationStatus> = 'proposed'

  @Property({ type: 'uuid' })
  version: Opt<string> = crypto.randomUUID()

  @Property({ type: 'uuid', nullable: true })
  proposedById: string | null = null

  @Property({ type: 'uuid', nullable: true })
  reviewedById: string | null = null

  @Property({ type: 'datetime', columnType: 'timestamptz', nullable: true })
  reviewedAt: Date | null = null

  @Property({ type: 'uuid', nullable: true })
  editedById: string | null = null

  @Property({ type: 'datetime', columnType: 'timestamptz', nullable: true })
  editedAt: Date | null = null

  /** Set on a relation proposed by the "wrong direction" action: the rejected relation it reverses. */
  @Property({ type: 'uuid', nullable: true })
  reversedFromId: string | null = null

  @Property({ type: 'datetime', columnType: 'timestamptz' })
  createdAt: Opt<Date> = new Date()

  @Property({ type: 'datetime', columnType: 'timestamptz' })
  updatedAt: Opt<Date> = new Date()
}
