import crypto from 'node:crypto'
import { ArrayType, Entity, PrimaryKey, PrimaryKeyProp, Property, type Opt } from '@mikro-orm/core'
import type { NotationKind, TermStatus } from '#domain/terms.ts'

/**
 * A term: the row points at its current revision (`revision`) and carries the current content's hash and
 * the columns lists and search need. The full content of every revision lives in `term_revisions`.
 * Services read and write these tables with set-based SQL (app/services/terms/store.server.ts).
 */
@Entity({ tableName: 'terms' })
export class Term {
  @PrimaryKey({ type: 'uuid' })
  id: Opt<string> = crypto.randomUUID()

  @Property({ type: 'text' })
  slug!: string

  @Property({ type: 'text' })
  name!: string

  @Property({ type: 'text', nullable: true })
  fullName: string | null = null

  @Property({ type: 'text', nullable: true })
  nameEn: string | null = null

  @Property({ type: 'text', nullable: true })
  nameKo: string | null = null

  @Property({ type: 'text' })
  status!: TermStatus

  @Property({ type: ArrayType, columnType: 'text[]' })
  tags: Opt<string[]> = []

  @Property({ type: 'integer' })
  revision!: number

  @Property({ type: 'text' })
  contentHash!: string

  /** Normalized names and notations joined by U+0001, for `q` substring search. */
  @Property({ type: 'text', hidden: true })
  searchText!: string

  /** Glossary version of the transaction that last changed the row (see store.server.ts). */
  @Property({ type: 'bigint', hidden: true })
  changeVersion: Opt<string> = '0'

  @Property({ type: 'uuid', nullable: true })
  mergedIntoId: string | null = null

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

  @Property({ type: 'uuid', nullable: true })
  deletedById: string | null = null
}

/** One immutable revision: the full content as a JSON snapshot, its hash, the note and the author. */
@Entity({ tableName: 'term_revisions' })
export class TermRevision {
  @PrimaryKey({ type: 'uuid' })
  id: Opt<string> = crypto.randomUUID()

  @Property({ type: 'uuid' })
  termId!: string

  @Property({ type: 'integer' })
  revision!: number

  @Property({ type: 'json' })
  content!: Record<string, unknown>

  @Property({ type: 'text' })
  contentHash!: string

  @Property({ type: 'text' })
  note: Opt<string> = ''

  @Property({ type: 'uuid', nullable: true })
  authorId: string | null = null

  @Property({ type: 'datetime', columnType: 'timestamptz' })
  createdAt: Opt<Date> = new Date()
}

/** The current names and notations of a term, normalized, for search, suggestions, lookup and matching. */
@Entity({ tableName: 'term_notations' })
export class TermNotation {
  @PrimaryKey({ type: 'uuid' })
  id: Opt<string> = crypto.randomUUID()

  @Property({ type: 'uuid' })
  termId!: string

  @Property({ type: 'text' })
  text!: string

  @Property({ type: 'text' })
  normalized!: string

  @Property({ type: 'text' })
  kind!: NotationKind

  @Property({ type: 'text', nullable: true })
  lang: string | null = null

  /** `notation` for the term's notations; `name`, `full_name`, `name_en`, `name_ko` for its names. */
  @Property({ type: 'text' })
  source!: string

  @Property({ type: 'integer' })
  position: Opt<number> = 0
}

/** An old address (slug) that still resolves to the term after a rename or a merge. */
@Entity({ tableName: 'term_old_slugs' })
export class TermOldSlug {
  @PrimaryKey({ type: 'text' })
  slug!: string

  @Property({ type: 'uuid' })
  termId!: string

  @Property({ type: 'datetime', columnType: 'timestamptz' })
  createdAt: Opt<Date> = new Date()
}

/** Link from a term to a domain (ordered as the term lists them). */
@Entity({ tableName: 'term_domains' })
export class TermDomain {
  [PrimaryKeyProp]?: ['termId', 'domainId']

  @PrimaryKey({ type: 'uuid' })
  termId!: string

  @PrimaryKey({ type: 'uuid' })
  domainId!: string

  @Property({ type: 'integer' })
  position: Opt<number> = 0
}

/** Link from a term to a business category. */
@Entity({ tableName: 'term_categories' })
export class TermCategory {
  [PrimaryKeyProp]?: ['termId', 'categoryId']

  @PrimaryKey({ type: 'uuid' })
  termId!: string

  @PrimaryKey({ type: 'uuid' })
  categoryId!: string

  @Property({ type: 'integer' })
  position: Opt<number> = 0
}
