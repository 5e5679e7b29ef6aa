import crypto from 'node:crypto'
import { ArrayType, Entity, PrimaryKey, PrimaryKeyProp, Property, type Opt } from '@mikro-orm/core'
import type { WikiStatus } from '#domain/content.ts'

/** A wiki knowledge page: the current content; its history lives in `wiki_page_revisions`. */
@Entity({ tableName: 'wiki_pages' })
export class WikiPage {
  @PrimaryKey({ type: 'uuid' })
  id: Opt<string> = crypto.randomUUID()

  @Property({ type: 'text' })
  slug!: string

  @Property({ type: 'text' })
  title!: string

  @Property({ type: 'text' })
  content!: string

  @Property({ type: 'text', nullable: true })
  summary: string | null = null

  @Property({ type: 'text', nullable: true })
  sourceUrl: string | null = null

  @Property({ type: ArrayType, columnType: 'text[]' })
  domain: Opt<string[]> = []

  @Property({ type: 'text' })
  status: Opt<WikiStatus> = 'draft'

  @Property({ type: 'integer' })
  revision: Opt<number> = 1

  @Property({ type: 'uuid', nullable: true })
  createdById: string | null = null

  @Property({ type: 'uuid', nullable: true })
  updatedById: string | null = null

  @Property({ type: 'datetime', columnType: 'timestamptz' })
  createdAt: Opt<Date> = new Date()

  @Property({ type: 'datetime', columnType: 'timestamptz' })
  updatedAt: Opt<Date> = new Date()

  @Property({ type: 'datetime', columnType: 'timestamptz', nullable: true })
  deletedAt: Date | null = null
}

/** One immutable revision of a page: the full content, the linked term slugs, the author and the time. */
@Entity({ tableName: 'wiki_page_revisions' })
export class WikiPageRevision {
  @PrimaryKey({ type: 'uuid' })
  id: Opt<string> = crypto.randomUUID()

  @Property({ type: 'uuid' })
  pageId!: string

  @Property({ type: 'integer' })
  revision!: number

  @Property({ type: 'text' })
  slug!: string

  @Property({ type: 'text' })
  title!: string

  @Property({ type: 'text' })
  content!: string

  @Property({ type: 'text', nullable: true })
  summary: string | null = null

  @Property({ type: 'text', nullable: true })
  sourceUrl: string | null = null

  @Property({ type: ArrayType, columnType: 'text[]' })
  domain: Opt<string[]> = []

  @Property({ type: 'text' })
  status!: WikiStatus

  @Property({ type: ArrayType, columnType: 'text[]' })
  termSlugs: Opt<string[]> = []

  @Property({ type: 'uuid', nullable: true })
  authorId: string | null = null

  /** The author's name at the time, kept when the account is deleted. */
  @Property({ type: 'text', nullable: true })
  authorLabel: string | null = null

  @Property({ type: 'datetime', columnType: 'timestamptz' })
  createdAt: Opt<Date> = new Date()
}

/** A link from a page to a term (a set: no order). */
@Entity({ tableName: 'wiki_page_terms' })
export class WikiPageTerm {
  [PrimaryKeyProp]?: ['pageId', 'termId']

  @PrimaryKey({ type: 'uuid' })
  pageId!: string

  @PrimaryKey({ type: 'uuid' })
  termId!: string
}
