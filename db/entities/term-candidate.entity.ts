import crypto from 'node:crypto'
import { Entity, PrimaryKey, Property, type Opt } from '@mikro-orm/core'
import type { CandidateStatus } from '#domain/content.ts'

/** A notation that looks like a term but is not in the glossary, with how often and where it was seen. */
@Entity({ tableName: 'term_candidates' })
export class TermCandidate {
  @PrimaryKey({ type: 'uuid' })
  id: Opt<string> = crypto.randomUUID()

  @Property({ type: 'text' })
  text!: string

  @Property({ type: 'text' })
  normalized!: string

  @Property({ type: 'text' })
  status: Opt<CandidateStatus> = 'open'

  @Property({ type: 'integer' })
  count: Opt<number> = 0

  /** The last few sightings: `{ source, context, seenAt }`. */
  @Property({ type: 'json' })
  sightings: Opt<unknown[]> = []

  @Property({ type: 'datetime', columnType: 'timestamptz' })
  firstSeenAt: Opt<Date> = new Date()

  @Property({ type: 'datetime', columnType: 'timestamptz' })
  lastSeenAt: Opt<Date> = new Date()

  @Property({ type: 'uuid', nullable: true })
  promotedTermId: string | null = null

  @Property({ type: 'uuid', nullable: true })
  decidedById: string | null = null
}
