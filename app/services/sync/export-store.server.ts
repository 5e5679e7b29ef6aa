import type { EntityManager } from '@mikro-orm/postgresql'
import { batches, iso, uuidArray, where } from '#db/sql.ts'
import type { TermContent } from '#app/services/terms/content.server.ts'
import type { TermStatus } from '#domain/terms.ts'
import type { WikiStatus } from '#domain/content.ts'
import type { ManifestEntry, SyncItemType, SyncKind } from '#sync/bundle-schema.ts'

/**
 * The data access of the sender's side of offline sync (decision 031): the carried rows of each item type,
 * the history of this installation's exports (`sync_exports`) and the manifest of the last one
 * (`sync_export_manifest`). What is carried is decided here, in the `where` of each type's statement, and
 * nowhere else: every domain and category; live terms of every status (merged ones too); approved relations
 * whose two terms are live; live wiki pages of every status. The content built from these rows is in
 * items.server.ts.
 */

export interface ClassificationRow {
  id: string
  key: string
  name_ko: string
  name_en: string
  sort: number
  updated_at: Date | string
  /** Always null: a domain or category records no author. */
  author: null
}

export interface TermRow {
  id: string
  revision: number
  status: TermStatus
  merged_into_id: string | null
  updated_at: Date | string
  content: TermContent | string
  author: string | null
  old_slugs: string[] | null
}

export interface RelationRow {
  id: string
  source_term_id: string
  target_term_id: string
  relation_type: string
  evidence_md: string
  updated_at: Date | string
  author: string | null
}

export interface WikiRow {
  id: string
  slug: string
  title: string
  content: string
  summary: string | null
  source_url: string | null
  domain: string[] | null
  status: WikiStatus
  revision: number
  updated_at: Date | string
  author: string | null
  term_ids: string[] | null
  term_links: boolean
}

export interface CarriedRows {
  domain: ClassificationRow
  category: ClassificationRow
  term: TermRow
  relation: RelationRow
  wiki: WikiRow
}

/** Each type's statement up to its `where`; the carried rule is its first condition. */
const CARRIED: { [T in SyncItemType]: { select: string; carried: string; id: string } } = {
  domain: {
    select: 'select c.id, c.key, c.name_ko, c.name_en, c.sort, c.updated_at, null as author from domains c',
    carried: 'true',
    id: 'c.id',
  },
  category: {
    select: `select c.id, c.key, c.name_ko, c.name_en, c.sort, c.updated_at, null as author
               from business_categories c`,
    carried: 'true',
    id: 'c.id',
  },
  // The author is whoever wrote the current revision, as a display name; old slugs are sorted by the caller.
  term: {
    select: `select t.id, t.revision, t.status, t.merged_into_id, t.updated_at, r.content, u.name as author,
                    (select array_agg(o.slug) from term_old_slugs o where o.term_id = t.id) as old_slugs
               from terms t
               join term_revisions r on r.term_id = t.id and r.revision = t.revision
               left join users u on u.id = r.author_id`,
    carried: 't.deleted_at is null',
    id: 't.id',
  },
  // A relation travels once approved, between two terms that travel; its author is the reviewer who approved it.
  relation: {
    select: `select x.id, x.source_term_id, x.target_term_id, x.relation_type, x.evidence_md, x.updated_at,
                    u.name as author
               from relations x
               join terms s on s.id = x.source_term_id
               join terms g on g.id = x.target_term_id
               left join users u on u.id = x.reviewed_by_id`,
    carried: `x.status = 'approved' and s.deleted_at is null and g.deleted_at is null`,
    id: 'x.id',
  },
  // Linked terms are the live ones (a deleted term is no longer carried); ids as text, sorted by the caller.
  wiki: {
    select: `select p.id, p.slug, p.title, p.content, p.summary, p.source_url, p.domain, p.status, p.revision,
                    p.updated_at, v.author_label as author, p.term_links,
                    (select array_agg(wt.term_id::text) from wiki_page_terms wt
                       join terms t on t.id = wt.term_id and t.deleted_at is null
                      where wt.page_id = p.id) as term_ids
               from wiki_pages p
               left join wiki_page_revisions v on v.page_id = p.id and v.revision = p.revision`,
    carried: 'p.deleted_at is null',
    id: 'p.id',
  },
}

/**
 * One batch of the carried rows of `type` in id order: the next `limit` after `afterId`, or those among `ids`
 * (at most one SQL batch of them).
 */
export async function selectCarriedRows<T extends SyncItemType>(
  manager: EntityManager,
  type: T,
  page: { afterId?: string | null; ids?: readonly string[]; limit: number },
): Promise<CarriedRows[T][]> {
  const spec = CARRIED[type]
  const filter = where(
    [spec.carried],
    page.afterId && [`${spec.id} > ?`, page.afterId],
    page.ids && [`${spec.id} = any(?::uuid[])`, uuidArray(page.ids)],
  )
  return manager.execute<CarriedRows[T][]>(`${spec.select} ${filter.sql} order by ${spec.id} limit ?`, [
    ...filter.params,
    page.limit,
  ])
}

/** The ids among `ids` of stored attachments (references to images that are gone are dangling). */
export async function selectExistingAttachmentIds(
  manager: EntityManager,
  ids: readonly string[],
): Promise<string[]> {
  const out: string[] = []
  for (const batch of batches(ids)) {
    const rows = await manager.execute<{ id: string }[]>(
      'select id from attachments where id = any(?::uuid[]) order by id',
      [uuidArray(batch)],
    )
    out.push(...rows.map((r) => r.id))
  }
  return out
}

/** When each of these items was deleted, where a `deletions` tombstone says so (terms, domains, categories). */
export async function selectDeletionTimes(
  manager: EntityManager,
  items: readonly { type: SyncItemType; id: string }[],
): Promise<Map<string, string>> {
  const times = new Map<string, string>()
  for (const batch of batches(items)) {
    const rows = await manager.execute<
      { entity_type: string; entity_id: string; deleted_at: Date | string }[]
    >(
      `select d.entity_type, d.entity_id, d.deleted_at
         from deletions d join jsonb_to_recordset(?::jsonb) as x(type text, id uuid)
           on d.entity_type = x.type and d.entity_id = x.id`,
      [JSON.stringify(batch.map((i) => ({ type: i.type, id: i.id })))],
    )
    for (const r of rows) times.set(`${r.entity_type}:${r.entity_id}`, iso(r.deleted_at))
  }
  return times
}

// ── Exports and the last manifest ───────────────────────────────────────────────────────────────────────

export interface ExportRecord {
  sequence: number
  kind: SyncKind
  exportedAt: string
  fileName: string
}

/** This installation's last export (the highest sequence), or undefined before the first. */
export async function selectLastExport(manager: EntityManager): Promise<ExportRecord | undefined> {
  const rows = await manager.execute<
    { sequence: number; kind: SyncKind; exported_at: Date | string; file_name: string }[]
  >('select sequence, kind, exported_at, file_name from sync_exports order by sequence desc limit 1')
  const r = rows[0]
  return r && { sequence: r.sequence, kind: r.kind, exportedAt: iso(r.exported_at), fileName: r.file_name }
}

/** The manifest of the last export, keyed `type:id`. */
export async function selectStoredManifest(manager: EntityManager): Promise<Map<string, ManifestEntry>> {
  const rows = await manager.execute<
    { item_type: SyncItemType; item_id: string; hash: string; revision: number }[]
  >('select item_type, item_id, hash, revision from sync_export_manifest')
  return new Map(
    rows.map((r) => [
      manifestKey(r.item_type, r.item_id),
      { type: r.item_type, id: r.item_id, hash: r.hash, revision: r.revision },
    ]),
  )
}

/** The key of an item in a manifest map. */
export const manifestKey = (type: SyncItemType, id: string): string => `${type}:${id}`

/** Records an export and makes its manifest the one the next incremental export is measured against. */
export async function recordExport(
  tx: EntityManager,
  row: {
    sequence: number
    kind: SyncKind
    exportedAt: string
    previousSequence: number | null
    label: string | null
    fileName: string
    counts: unknown
    createdById: string | null
  },
  manifest: readonly ManifestEntry[],
): Promise<void> {
  await tx.execute(
    `insert into sync_exports (id, sequence, kind, exported_at, previous_sequence, label, file_name, counts,
                               created_by_id)
     values (gen_random_uuid(), ?, ?, ?, ?, ?, ?, ?::jsonb, ?)`,
    [
      row.sequence,
      row.kind,
      row.exportedAt,
      row.previousSequence,
      row.label,
      row.fileName,
      JSON.stringify(row.counts),
      row.createdById,
    ],
    'run',
  )
  await tx.execute('delete from sync_export_manifest', [], 'run')
  for (const batch of batches(manifest)) {
    await tx.execute(
      `insert into sync_export_manifest (item_type, item_id, hash, revision)
       select x.type, x.id, x.hash, x.revision
         from jsonb_to_recordset(?::jsonb) as x(type text, id uuid, hash text, revision integer)`,
      [JSON.stringify(batch)],
      'run',
    )
  }
}
