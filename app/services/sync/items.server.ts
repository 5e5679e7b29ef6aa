import type { EntityManager } from '@mikro-orm/postgresql'
import { iso, parseJson } from '#db/sql.ts'
import type { TermContent } from '#app/services/terms/content.server.ts'
import { itemHash, type ItemContent, type SyncItemType } from '#sync/bundle-schema.ts'
import { selectCarriedRows, type CarriedRows } from './export-store.server.ts'

/**
 * The carried view of this installation's items (decision 031, "Identity and hashes"): what an item of each
 * type looks like in a bundle, built by one function for the sender (its manifest and items) and the receiver
 * (the hash of its own copy, to tell a local edit), so "changed here" and "changed there" follow one rule.
 * Which rows are carried is the store's `where` (export-store.server.ts); authors are display names only.
 */

export interface LocalItem<T extends SyncItemType = SyncItemType> {
  type: T
  id: string
  revision: number
  hash: string
  updatedAt: string
  author: string | null
  content: ItemContent<T>
}

/** Rows per batch: a batch of terms holds their bodies, so it stays small enough to keep memory flat. */
const DEFAULT_BATCH = 500

/** Sorted by code unit, never by a database collation: the hash must not depend on the engine's locale. */
const sorted = (values: readonly string[] | null): string[] => [...(values ?? [])].sort()

/** Each type's content, built key by key: stored term content may lack keys or order them otherwise. */
const CONTENT: { [T in SyncItemType]: (row: CarriedRows[T]) => ItemContent<T> } = {
  domain: (r) => ({ key: r.key, nameKo: r.name_ko, nameEn: r.name_en, sort: r.sort }),
  category: (r) => ({ key: r.key, nameKo: r.name_ko, nameEn: r.name_en, sort: r.sort }),
  term: (r) => {
    const c = parseJson<TermContent>(r.content)
    return {
      slug: c.slug,
      name: c.name,
      fullName: c.fullName ?? null,
      nameEn: c.nameEn ?? null,
      nameKo: c.nameKo ?? null,
      notations: (c.notations ?? []).map((n) => ({ text: n.text, kind: n.kind, lang: n.lang ?? null })),
      domains: [...(c.domains ?? [])],
      categories: [...(c.categories ?? [])],
      tags: [...(c.tags ?? [])],
      status: r.status,
      definition: c.definition ?? '',
      body: c.body ?? '',
      oldSlugs: sorted(r.old_slugs),
      mergedInto: r.merged_into_id,
    }
  },
  relation: (r) => ({
    sourceTermId: r.source_term_id,
    targetTermId: r.target_term_id,
    relationType: r.relation_type as ItemContent<'relation'>['relationType'],
    evidenceMd: r.evidence_md,
  }),
  wiki: (r) => ({
    slug: r.slug,
    title: r.title,
    content: r.content,
    summary: r.summary,
    sourceUrl: r.source_url,
    domain: [...(r.domain ?? [])],
    status: r.status,
    termIds: sorted(r.term_ids),
    // Carried only when switched off: a page with the default has the content (and hash) it had before issue 32.
    ...(r.term_links ? {} : { termLinks: false as const }),
  }),
}

/** Items without revisions of their own (domains, categories, relations) are at revision 1. */
const revisionOf = (row: object): number => ('revision' in row ? Number(row.revision) : 1)

function toLocalItem<T extends SyncItemType>(type: T, row: CarriedRows[T]): LocalItem<T> {
  const content = CONTENT[type](row)
  return {
    type,
    id: row.id,
    revision: revisionOf(row),
    hash: itemHash(type, content),
    updatedAt: iso(row.updated_at),
    author: row.author ?? null,
    content,
  }
}

/** The carried view of this installation's items of `type` (all carried ones, or just `ids`), in batches by id. */
export async function* localItems<T extends SyncItemType>(
  manager: EntityManager,
  type: T,
  options: { ids?: readonly string[]; batchSize?: number } = {},
): AsyncGenerator<LocalItem<T>[]> {
  const limit = options.batchSize ?? DEFAULT_BATCH
  if (options.ids) {
    const ids = [...new Set(options.ids)].sort()
    for (let i = 0; i < ids.length; i += limit) {
      const rows = await selectCarriedRows(manager, type, { ids: ids.slice(i, i + limit), limit })
      if (rows.length) yield rows.map((row) => toLocalItem(type, row))
    }
    return
  }
  let afterId: string | null = null
  for (;;) {
    const rows: CarriedRows[T][] = await selectCarriedRows(manager, type, { afterId, limit })
    if (rows.length === 0) return
    yield rows.map((row) => toLocalItem(type, row))
    if (rows.length < limit) return
    afterId = rows[rows.length - 1]!.id
  }
}

/** `/api/v1/attachments/<uuid>`, as the upload answers it (app/services/attachments/attachments.server.ts). */
const ATTACHMENT_REF =
  /\/api\/v1\/attachments\/([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})/gi

/** Attachment ids a term body or wiki content references (`/api/v1/attachments/<uuid>`). */
export function attachmentRefs(text: string): string[] {
  return [...new Set(Array.from(text.matchAll(ATTACHMENT_REF), (m) => m[1]!.toLowerCase()))]
}

/** The text with attachment references replaced by `ids` (origin id -> local id); others left alone. */
export function rewriteAttachmentRefs(text: string, ids: ReadonlyMap<string, string>): string {
  return text.replace(ATTACHMENT_REF, (whole, id: string) => {
    const local = ids.get(id.toLowerCase())
    return local === undefined ? whole : `/api/v1/attachments/${local}`
  })
}
