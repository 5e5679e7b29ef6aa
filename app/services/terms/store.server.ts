import type { z } from 'zod'
import type { ClassificationItemSchema, RevisionSchema, TermSchema } from '#app/schemas/terms.ts'
import type { EntityManager } from '@mikro-orm/postgresql'
import { AppError, validationError, type Problem } from '#app/lib/errors.server.ts'
import { enqueueIndexMany } from '#app/services/index-queue/enqueue.server.ts'
import {
  batches,
  iso,
  likeEscape,
  pageTotal,
  windowTotal,
  parseJson,
  personRef,
  textArray,
  uuidArray,
  where,
  type PersonRef,
} from '#db/sql.ts'
import { isUuid } from '#domain/ids.ts'
import { canonicalContent, searchText, termForms, type TermContent } from './content.server.ts'
import type { NotationKind, TermStatus } from '#domain/terms.ts'

/**
 * The data access of the terms area: every SQL statement on `terms`, `term_revisions`, `term_notations`,
 * `term_old_slugs`, the classification tables and the term tombstones, with the row mappers that turn their
 * rows into DTOs. The services next to it (read, write, classification) hold the rules and call these.
 *
 * Set-based persistence of term saves. One save (or ten thousand, for an import) is: upsert the term rows,
 * insert the immutable revisions, replace the denormalized notations and classification links, queue the
 * sources for indexing and bump the glossary version, each as one statement per batch, inside the caller's
 * transaction. Rows travel as one JSON parameter (`jsonb_to_recordset`), so no statement hits the bind limit.
 */

export interface TermWrite {
  id: string
  isNew: boolean
  /** The new revision number (1 for a new term). */
  revision: number
  content: TermContent
  hash: string
  note: string
  authorId: string | null
  mergedIntoId?: string | null
}

/** Classification key → id maps, read once per transaction. */
export interface ClassificationIds {
  domains: Map<string, string>
  categories: Map<string, string>
}

export async function loadClassificationIds(tx: EntityManager): Promise<ClassificationIds> {
  const domains = await tx.execute<{ id: string; key: string }[]>('select id, key from domains')
  const categories = await tx.execute<{ id: string; key: string }[]>(
    'select id, key from business_categories',
  )
  return {
    domains: new Map(domains.map((r) => [r.key, r.id])),
    categories: new Map(categories.map((r) => [r.key, r.id])),
  }
}

/** Problems for classification keys that do not exist. */
export function classificationProblems(content: TermContent, ids: ClassificationIds, prefix = ''): Problem[] {
  const problems: Problem[] = []
  content.domains.forEach((key, i) => {
    if (!ids.domains.has(key))
      problems.push({ path: `${prefix}domains.${i}`, message: `Unknown domain "${key}".` })
  })
  content.categories.forEach((key, i) => {
    if (!ids.categories.has(key)) {
      problems.push({ path: `${prefix}categories.${i}`, message: `Unknown business category "${key}".` })
    }
  })
  return problems
}

/**
 * Persists saves inside `tx`. The revision rows are written before the queue rows, and both in the caller's
 * transaction: if anything after the revision insert fails, neither exists. `version` is what
 * `bumpGlossaryVersion` returned at the start of the transaction.
 */
export async function writeTerms(
  tx: EntityManager,
  writes: readonly TermWrite[],
  ids: ClassificationIds,
  version: number,
): Promise<void> {
  if (writes.length === 0) return
  for (const batch of batches(writes)) {
    const termRows = batch.map((w) => {
      const forms = termForms(w.content)
      return {
        id: w.id,
        slug: w.content.slug,
        name: w.content.name,
        full_name: w.content.fullName,
        name_en: w.content.nameEn,
        name_ko: w.content.nameKo,
        status: w.content.status,
        tags: w.content.tags,
        revision: w.revision,
        content_hash: w.hash,
        search_text: searchText(forms),
        merged_into_id: w.mergedIntoId ?? null,
        author_id: w.authorId,
        change_version: version,
      }
    })
    await tx.execute(
      `insert into terms (id, slug, name, full_name, name_en, name_ko, status, tags, revision, content_hash,
                          search_text, merged_into_id, created_by_id, updated_by_id, change_version, created_at,
                          updated_at)
       select x.id, x.slug, x.name, x.full_name, x.name_en, x.name_ko, x.status, x.tags, x.revision, x.content_hash,
              x.search_text, x.merged_into_id, x.author_id, x.author_id, x.change_version, now(), now()
         from jsonb_to_recordset(?::jsonb) as x(id uuid, slug text, name text, full_name text, name_en text,
              name_ko text, status text, tags text[], revision integer, content_hash text, search_text text,
              merged_into_id uuid, author_id uuid, change_version bigint)
       on conflict (id) do update set slug = excluded.slug, name = excluded.name, full_name = excluded.full_name,
          name_en = excluded.name_en, name_ko = excluded.name_ko, status = excluded.status, tags = excluded.tags,
          revision = excluded.revision, content_hash = excluded.content_hash, search_text = excluded.search_text,
          merged_into_id = excluded.merged_into_id, updated_by_id = excluded.updated_by_id,
          change_version = excluded.change_version, updated_at = now()`,
      [JSON.stringify(termRows)],
      'run',
    )
    await tx.execute(
      `insert into term_revisions (id, term_id, revision, content, content_hash, note, author_id, created_at)
       select gen_random_uuid(), x.term_id, x.revision, x.content, x.content_hash, x.note, x.author_id, now()
         from jsonb_to_recordset(?::jsonb) as x(term_id uuid, revision integer, content jsonb, content_hash text,
              note text, author_id uuid)`,
      [
        JSON.stringify(
          batch.map((w) => ({
            term_id: w.id,
            revision: w.revision,
            content: canonicalContent(w.content),
            content_hash: w.hash,
            note: w.note,
            author_id: w.authorId,
          })),
        ),
      ],
      'run',
    )
    const existing = batch.filter((w) => !w.isNew).map((w) => w.id)
    if (existing.length) {
      const list = uuidArray(existing)
      await tx.execute('delete from term_notations where term_id = any(?::uuid[])', [list], 'run')
      await tx.execute('delete from term_domains where term_id = any(?::uuid[])', [list], 'run')
      await tx.execute('delete from term_categories where term_id = any(?::uuid[])', [list], 'run')
    }
    const notationRows = batch.flatMap((w) =>
      termForms(w.content).map((f) => ({
        term_id: w.id,
        text: f.text,
        normalized: f.normalized,
        kind: f.kind,
        lang: f.lang,
        source: f.source,
        position: f.position,
      })),
    )
    await tx.execute(
      `insert into term_notations (id, term_id, text, normalized, kind, lang, source, position)
       select gen_random_uuid(), x.term_id, x.text, x.normalized, x.kind, x.lang, x.source, x.position
         from jsonb_to_recordset(?::jsonb) as x(term_id uuid, text text, normalized text, kind text, lang text,
              source text, position integer)`,
      [JSON.stringify(notationRows)],
      'run',
    )
    const links = (keys: (w: TermWrite) => string[], map: Map<string, string>) =>
      batch.flatMap((w) => keys(w).map((key, position) => ({ term_id: w.id, ref: map.get(key)!, position })))
    const domainRows = links((w) => w.content.domains, ids.domains)
    if (domainRows.length) {
      await tx.execute(
        `insert into term_domains (term_id, domain_id, position)
         select x.term_id, x.ref, x.position from jsonb_to_recordset(?::jsonb) as x(term_id uuid, ref uuid, position integer)`,
        [JSON.stringify(domainRows)],
        'run',
      )
    }
    const categoryRows = links((w) => w.content.categories, ids.categories)
    if (categoryRows.length) {
      await tx.execute(
        `insert into term_categories (term_id, category_id, position)
         select x.term_id, x.ref, x.position from jsonb_to_recordset(?::jsonb) as x(term_id uuid, ref uuid, position integer)`,
        [JSON.stringify(categoryRows)],
        'run',
      )
    }
    // A merged term is never searchable: the merge sends it out of search (`leaveSearch`) instead.
    await enqueueIndexMany(
      tx,
      batch
        .filter((w) => w.content.status !== 'merged')
        .map((w) => ({ sourceType: 'term' as const, sourceId: w.id, revision: w.revision })),
    )
  }
}

export const GLOSSARY_VERSION_KEY = 'glossary.version'

/**
 * A counter in `app_setting`, bumped as the FIRST write of every transaction that changes terms; the new value
 * is stamped on the changed rows (`change_version`). The row lock it takes serializes term writers until they
 * commit, so versions follow commit order: a matcher that has seen version V has seen every change ≤ V and
 * reloads only rows with a higher `change_version`. Every web process compares the counter (at most once a
 * second) with the version its matcher was built from. Taking it first also fixes the lock order.
 */
export async function bumpGlossaryVersion(tx: EntityManager): Promise<number> {
  const rows = await tx.execute<{ v: string }[]>(
    `insert into app_setting (key, value, updated_at) values (?, '1'::jsonb, now())
     on conflict (key) do update set value = to_jsonb(coalesce((app_setting.value #>> '{}')::bigint, 0) + 1),
        updated_at = now()
     returning value #>> '{}' as v`,
    [GLOSSARY_VERSION_KEY],
  )
  return Number(rows[0]!.v)
}

export async function readGlossaryVersion(tx: EntityManager): Promise<number> {
  const rows = await tx.execute<{ v: string | null }[]>(
    `select value #>> '{}' as v from app_setting where key = ?`,
    [GLOSSARY_VERSION_KEY],
  )
  return Number(rows[0]?.v ?? 0)
}

/** The current state of a term row, as a save needs it. */
export interface TermHead {
  id: string
  slug: string
  status: TermStatus
  revision: number
  contentHash: string
  mergedIntoId: string | null
  content: TermContent
}

/** Loads term heads (current content included) by id, locking the rows when `lock` is set. */
export async function loadHeads(
  tx: EntityManager,
  ids: readonly string[],
  lock = false,
): Promise<Map<string, TermHead>> {
  const out = new Map<string, TermHead>()
  for (const batch of batches(ids)) {
    const rows = await tx.execute<
      {
        id: string
        slug: string
        status: TermStatus
        revision: number
        content_hash: string
        merged_into_id: string | null
        content: TermContent | string
      }[]
    >(
      `select t.id, t.slug, t.status, t.revision, t.content_hash, t.merged_into_id, r.content
         from terms t join term_revisions r on r.term_id = t.id and r.revision = t.revision
        where t.id = any(?::uuid[]) and t.deleted_at is null${lock ? ' for update of t' : ''}`,
      [uuidArray(batch)],
    )
    for (const r of rows) {
      out.set(r.id, {
        id: r.id,
        slug: r.slug,
        status: r.status,
        revision: r.revision,
        contentHash: r.content_hash,
        mergedIntoId: r.merged_into_id,
        content: parseJson<TermContent>(r.content),
      })
    }
  }
  return out
}

/**
 * The id of the term an address points at: a UUID, a current slug, or an old slug (renames and merges).
 * Deleted terms resolve to nothing. Throws 404.
 */
export async function resolveTermId(tx: EntityManager, idOrSlug: string): Promise<string> {
  const id = await findTermId(tx, idOrSlug)
  if (!id) throw new AppError('not_found', `No term "${idOrSlug}".`)
  return id
}

export async function findTermId(tx: EntityManager, idOrSlug: string): Promise<string | undefined> {
  if (isUuid(idOrSlug)) {
    const rows = await tx.execute<{ id: string }[]>(
      'select id from terms where id = ? and deleted_at is null',
      [idOrSlug.toLowerCase()],
    )
    return rows[0]?.id
  }
  const slug = idOrSlug.normalize('NFKC').toLowerCase()
  return (await findTermIdsBySlugs(tx, [slug])).get(slug)
}

/**
 * The live term each slug addresses, as a map slug → id: a current slug of a term that is not merged, or an
 * old slug (a rename, or the slug of a term merged into this one; merging moves the merged term's slug
 * to its survivor's old slugs). Slugs that address nothing are absent. Every "term by slug" lookup (pages,
 * wiki links, imports) goes through this one statement.
 */
export async function findTermIdsBySlugs(
  tx: EntityManager,
  slugs: readonly string[],
): Promise<Map<string, string>> {
  const ids = new Map<string, string>()
  if (slugs.length === 0) return ids
  const list = textArray(slugs)
  const rows = await tx.execute<{ slug: string; id: string }[]>(
    `select slug, id, 0 as rank from terms where slug = any(?::text[]) and deleted_at is null and status <> 'merged'
     union all
     select o.slug, o.term_id, 1 from term_old_slugs o join terms t on t.id = o.term_id and t.deleted_at is null
      where o.slug = any(?::text[])
     order by rank`,
    [list, list],
  )
  for (const row of rows) if (!ids.has(row.slug)) ids.set(row.slug, row.id)
  return ids
}

/**
 * The live terms (merged ones included) that use `slug` as their current or an old address. A slug is free
 * for a term or a wiki page only when this is empty (or names the term itself).
 */
export async function termsAtAddress(tx: EntityManager, slug: string): Promise<string[]> {
  return (await termsAtAddresses(tx, [slug])).get(slug) ?? []
}

/**
 * `termsAtAddress` for many slugs in one statement (offline sync checks a batch of terms at once): slug → the
 * live terms (merged ones included) using it as their current or an old address.
 */
export async function termsAtAddresses(
  tx: EntityManager,
  slugs: readonly string[],
): Promise<Map<string, string[]>> {
  const out = new Map<string, string[]>()
  if (slugs.length === 0) return out
  const list = textArray([...new Set(slugs)])
  const rows = await tx.execute<{ slug: string; term_id: string }[]>(
    `select slug, id as term_id from terms where slug = any(?::text[]) and deleted_at is null
     union all select slug, term_id from term_old_slugs where slug = any(?::text[])`,
    [list, list],
  )
  for (const r of rows) out.set(r.slug, [...(out.get(r.slug) ?? []), r.term_id])
  return out
}

/** Current and old term slugs that start with `prefix` (for choosing a free `-2`, `-3` … suffix). */
export async function termSlugsStartingWith(tx: EntityManager, prefix: string): Promise<string[]> {
  const pattern = `${likeEscape(prefix)}%`
  const rows = await tx.execute<{ slug: string }[]>(
    `select slug from terms where slug like ? and deleted_at is null
     union select slug from term_old_slugs where slug like ?`,
    [pattern, pattern],
  )
  return rows.map((r) => r.slug)
}

/** Throws 409 slug_taken when `slug` is a current or old address of a term other than `ownerId`. */
export async function assertSlugFree(tx: EntityManager, slug: string, ownerId: string | null): Promise<void> {
  if ((await termsAtAddress(tx, slug)).some((id) => id !== ownerId)) {
    throw new AppError('slug_taken', `The address "${slug}" is already used by another term.`, {
      details: { problems: [{ path: 'slug', message: 'already used by another term' }] },
    })
  }
}

export function assertNoProblems(problems: Problem[]): void {
  if (problems.length) throw validationError(problems)
}

// ── Addresses and tombstones ────────────────────────────────────────────────────────────────────────────

/** Moves the current slug to the old addresses when it changes, and takes back an own old slug. */
export async function recordRename(
  tx: EntityManager,
  termId: string,
  from: string,
  to: string,
): Promise<void> {
  if (from === to) return
  await tx.execute('delete from term_old_slugs where slug = ? and term_id = ?', [to, termId], 'run')
  await tx.execute(
    'insert into term_old_slugs (slug, term_id, created_at) values (?, ?, now()) on conflict (slug) do nothing',
    [from, termId],
    'run',
  )
}

/**
 * Makes `slugs` the exact old addresses of each term (offline sync carries a term's old addresses whole): the
 * ones it no longer lists are dropped, the new ones added. The caller has checked that no other term uses them.
 */
export async function replaceOldSlugs(
  tx: EntityManager,
  terms: readonly { termId: string; slugs: readonly string[] }[],
): Promise<void> {
  if (terms.length === 0) return
  await tx.execute(
    `delete from term_old_slugs o using jsonb_to_recordset(?::jsonb) as x(term_id uuid, slugs text[])
      where o.term_id = x.term_id and not (o.slug = any(x.slugs))`,
    [JSON.stringify(terms.map((t) => ({ term_id: t.termId, slugs: t.slugs })))],
    'run',
  )
  const rows = terms.flatMap((t) => t.slugs.map((slug) => ({ slug, term_id: t.termId })))
  if (rows.length === 0) return
  await tx.execute(
    `insert into term_old_slugs (slug, term_id, created_at)
     select x.slug, x.term_id, now() from jsonb_to_recordset(?::jsonb) as x(slug text, term_id uuid)
     on conflict (slug) do update set term_id = excluded.term_id`,
    [JSON.stringify(rows)],
    'run',
  )
}

/** A merge: the source's old slugs and its current slug become old addresses of the survivor. */
export async function moveAddresses(
  tx: EntityManager,
  source: { id: string; slug: string },
  targetId: string,
): Promise<void> {
  await tx.execute('update term_old_slugs set term_id = ? where term_id = ?', [targetId, source.id], 'run')
  await tx.execute(
    'insert into term_old_slugs (slug, term_id, created_at) values (?, ?, now()) on conflict (slug) do update set term_id = excluded.term_id',
    [source.slug, targetId],
    'run',
  )
}

/** Tombstones a term row (`deleted_at`) and frees its old addresses; the unique slug index skips dead rows. */
export async function markTermDeleted(
  tx: EntityManager,
  id: string,
  actorId: string | null,
  version: number,
): Promise<void> {
  await tx.execute(
    'update terms set deleted_at = now(), deleted_by_id = ?, change_version = ?, updated_at = now() where id = ?',
    [actorId, version, id],
    'run',
  )
  await tx.execute('delete from term_old_slugs where term_id = ?', [id], 'run')
}

/** What offline sync reads to delete a record on the other side (`deletions`, one row per record). */
export type DeletedEntityType = 'term' | 'domain' | 'category'

export async function recordDeletion(
  tx: EntityManager,
  entity: { type: DeletedEntityType; id: string },
  actorId: string | null,
): Promise<void> {
  await tx.execute(
    `insert into deletions (id, entity_type, entity_id, deleted_at, deleted_by_id) values (gen_random_uuid(), ?, ?, now(), ?)
     on conflict (entity_type, entity_id) do nothing`,
    [entity.type, entity.id, actorId],
    'run',
  )
}

// ── Term DTOs ───────────────────────────────────────────────────────────────────────────────────────────

/** The `TermSchema` of the API, inferred: the answer and its documentation cannot differ. */
export type TermDto = z.output<typeof TermSchema>

/** A list item: the term without its body and old addresses. */
export type TermListItem = Omit<TermDto, 'body' | 'oldSlugs'>

interface DtoRow {
  id: string
  status: TermStatus
  revision: number
  created_at: Date | string
  updated_at: Date | string
  content: TermContent | string
  updated_by_id: string | null
  updated_by_name: string | null
  merged_into_id: string | null
  merged_into_slug: string | null
  merged_into_name: string | null
  old_slugs: string[] | null
}

const dtoSelect = (withBody: boolean) => `
  select t.id, t.status, t.revision, t.created_at, t.updated_at, ${withBody ? 'r.content' : "r.content - 'body' as content"},
         u.id as updated_by_id, u.name as updated_by_name,
         m.id as merged_into_id, m.slug as merged_into_slug, m.name as merged_into_name,
         coalesce((select array_agg(o.slug order by o.created_at, o.slug) from term_old_slugs o where o.term_id = t.id),
                  '{}') as old_slugs
    from terms t
    join term_revisions r on r.term_id = t.id and r.revision = t.revision
    left join users u on u.id = t.updated_by_id
    left join terms m on m.id = t.merged_into_id`

function toTermDto(row: DtoRow): TermDto {
  const c = parseJson<TermContent>(row.content)
  return {
    id: row.id,
    slug: c.slug,
    name: c.name,
    fullName: c.fullName,
    nameEn: c.nameEn,
    nameKo: c.nameKo,
    notations: c.notations,
    domains: c.domains,
    categories: c.categories,
    tags: c.tags,
    status: row.status,
    definition: c.definition,
    body: c.body ?? '',
    revision: row.revision,
    mergedInto: row.merged_into_id
      ? { id: row.merged_into_id, slug: row.merged_into_slug!, name: row.merged_into_name! }
      : null,
    oldSlugs: row.old_slugs ?? [],
    createdAt: iso(row.created_at),
    updatedAt: iso(row.updated_at),
    updatedBy: personRef(row.updated_by_id, row.updated_by_name),
  }
}

/**
 * DTOs for ids, in the order given (missing or deleted ids are left out). Lists pass `withBody: false`, so a
 * page of results does not read every Markdown body.
 */
export async function loadTermDtos(
  tx: EntityManager,
  ids: readonly string[],
  options: { withBody?: boolean } = {},
): Promise<TermDto[]> {
  if (ids.length === 0) return []
  const rows = await tx.execute<DtoRow[]>(
    `${dtoSelect(options.withBody ?? true)} where t.id = any(?::uuid[]) and t.deleted_at is null`,
    [uuidArray(ids)],
  )
  const byId = new Map(rows.map((r) => [r.id, toTermDto(r)]))
  return ids.map((id) => byId.get(id)).filter((d): d is TermDto => !!d)
}

/** What a term list filters on; the service decides the defaults (merged terms hidden unless asked for). */
export interface TermPageQuery {
  /** The folded search key (`normalizeKey`), matched as a substring of any name or notation. */
  folded: string
  /** The query as written, letter case kept (`casedKey`): exact spellings rank first. */
  cased: string
  /** A status to keep, or `'not-merged'` for every status but `merged`. */
  status: TermStatus | 'not-merged'
  domains: string[]
  categories: string[]
  tags: string[]
  limit: number
  offset: number
}

/**
 * A page of term ids and the total. Ranking with a search key: a name/notation written exactly as typed,
 * then a whole form equal to the folded key, then one starting with it, then any other match; ties by name.
 */
export async function selectTermPage(
  manager: EntityManager,
  query: TermPageQuery,
): Promise<{ ids: string[]; total: number }> {
  const escaped = likeEscape(query.folded)
  const filtered = where(
    ['t.deleted_at is null'],
    query.folded && ['t.search_text like ?', `%${escaped}%`],
    query.status === 'not-merged' ? [`t.status <> 'merged'`] : ['t.status = ?', query.status],
    query.domains.length > 0 && [
      'exists (select 1 from term_domains td join domains d on d.id = td.domain_id where td.term_id = t.id and d.key = any(?::text[]))',
      textArray(query.domains),
    ],
    query.categories.length > 0 && [
      'exists (select 1 from term_categories tc join business_categories c on c.id = tc.category_id where tc.term_id = t.id and c.key = any(?::text[]))',
      textArray(query.categories),
    ],
    query.tags.length > 0 && ['t.tags @> ?::text[]', textArray(query.tags)],
  )
  // search_text wraps every folded form in U+0001, so a whole form and a form's start can be told apart.
  const rank = query.folded
    ? `case when exists (select 1 from term_notations n where n.term_id = t.id and n.text = ?) then 0 else 1 end,
            case when t.search_text like ? then 0 when t.search_text like ? then 1 else 2 end, `
    : ''
  const rankParams = query.folded ? [query.cased, `%\u0001${escaped}\u0001%`, `%\u0001${escaped}%`] : []
  const rows = await manager.execute<{ id: string; total?: string }[]>(
    `select t.id${windowTotal(query.folded)}
       from terms t
      ${filtered.sql}
      order by ${rank}lower(t.name), t.id
      limit ? offset ?`,
    [...filtered.params, ...rankParams, query.limit, query.offset],
  )
  const total = await pageTotal(
    { rows, offset: query.offset, limit: query.limit },
    {
      manager,
      from: `terms t ${filtered.sql}`,
      params: filtered.params,
    },
  )
  return { ids: rows.map((r) => r.id), total }
}

/** The ids of the live, unmerged terms changed last, newest first (`terms_updated_at_idx`). */
export async function selectRecentTermIds(manager: EntityManager, limit: number): Promise<string[]> {
  const rows = await manager.execute<{ id: string }[]>(
    `select t.id from terms t where t.deleted_at is null and t.status <> 'merged'
      order by t.updated_at desc, t.id limit ?`,
    [limit],
  )
  return rows.map((r) => r.id)
}

export interface Suggestion {
  id: string
  slug: string
  name: string
  status: TermStatus
  /** The name or notation whose start matched. */
  matched: string
  kind: NotationKind
}

/**
 * Live, unmerged terms with a name or notation starting with the folded key, one per term, best first:
 * shorter matched forms, then names before notations; within a term the form whose start is written as
 * `cased` (letter case included) is the one shown.
 */
export async function selectSuggestions(
  manager: EntityManager,
  query: { folded: string; cased: string; limit: number },
): Promise<Suggestion[]> {
  return manager.execute<Suggestion[]>(
    `select id, slug, name, status, matched, kind from (
       select distinct on (t.id) t.id, t.slug, t.name, t.status, n.text as matched, n.kind,
              length(n.normalized) as len, n.position
         from term_notations n join terms t on t.id = n.term_id
        where n.normalized like ? and t.deleted_at is null and t.status <> 'merged'
        order by t.id, length(n.normalized), n.text not like ?, n.position
     ) s order by len, position, lower(name) limit ?`,
    [`${likeEscape(query.folded)}%`, `${likeEscape(query.cased)}%`, query.limit],
  )
}

// ── Revisions ───────────────────────────────────────────────────────────────────────────────────────────

export interface RevisionSummary {
  revision: number
  note: string
  author: PersonRef | null
  createdAt: string
  contentHash: string
}

/** The `RevisionSchema` of the API, inferred: the answer and its documentation cannot differ. */
export type RevisionDto = z.output<typeof RevisionSchema>

interface RevisionRow {
  revision: number
  note: string
  author_id: string | null
  author_name: string | null
  created_at: Date | string
  content_hash: string
  content?: TermContent | string
}

const REVISION_SELECT = (withContent: boolean) => `
  select r.revision, r.note, r.author_id, u.name as author_name, r.created_at, r.content_hash${withContent ? ', r.content' : ''}
    from term_revisions r left join users u on u.id = r.author_id`

function toRevisionSummary(r: RevisionRow): RevisionSummary {
  return {
    revision: r.revision,
    note: r.note,
    author: personRef(r.author_id, r.author_name),
    createdAt: iso(r.created_at),
    contentHash: r.content_hash,
  }
}

/** A term's revisions, newest first. */
export async function selectRevisionSummaries(
  manager: EntityManager,
  termId: string,
): Promise<RevisionSummary[]> {
  const rows = await manager.execute<RevisionRow[]>(
    `${REVISION_SELECT(false)} where r.term_id = ? order by r.revision desc`,
    [termId],
  )
  return rows.map(toRevisionSummary)
}

/** One revision with its content, or undefined. */
export async function selectRevision(
  manager: EntityManager,
  termId: string,
  revision: number,
): Promise<RevisionDto | undefined> {
  const rows = await manager.execute<RevisionRow[]>(
    `${REVISION_SELECT(true)} where r.term_id = ? and r.revision = ?`,
    [termId, revision],
  )
  const r = rows[0]
  return r && { termId, ...toRevisionSummary(r), content: parseJson<TermContent>(r.content) }
}

// ── Classification scheme ───────────────────────────────────────────────────────────────────────────────

export type ClassificationKind = 'domain' | 'category'

/** The two schemes share one shape; only their table, link table and the content field differ. */
export const CLASSIFICATION_TABLES = {
  domain: { table: 'domains', link: 'term_domains', ref: 'domain_id', field: 'domains', label: 'domain' },
  category: {
    table: 'business_categories',
    link: 'term_categories',
    ref: 'category_id',
    field: 'categories',
    label: 'business category',
  },
} as const

/** The `ClassificationItemSchema` of the API, inferred: the answer and its documentation cannot differ. */
export type ClassificationDto = z.output<typeof ClassificationItemSchema>

interface ClassificationRow {
  id: string
  key: string
  name_ko: string
  name_en: string
  sort: number
  term_count: string | number
  created_at: Date | string
  updated_at: Date | string
}

const toClassificationDto = (r: ClassificationRow): ClassificationDto => ({
  id: r.id,
  key: r.key,
  nameKo: r.name_ko,
  nameEn: r.name_en,
  sort: r.sort,
  termCount: Number(r.term_count),
  createdAt: iso(r.created_at),
  updatedAt: iso(r.updated_at),
})

/** Entries in display order (one when `key` is given), each with how many live, unmerged terms carry it. */
export async function selectClassification(
  manager: EntityManager,
  kind: ClassificationKind,
  key?: string,
): Promise<ClassificationDto[]> {
  const t = CLASSIFICATION_TABLES[kind]
  const rows = await manager.execute<ClassificationRow[]>(
    `select c.id, c.key, c.name_ko, c.name_en, c.sort, c.created_at, c.updated_at,
            (select count(*) from ${t.link} l join terms x on x.id = l.term_id
              where l.${t.ref} = c.id and x.deleted_at is null and x.status <> 'merged') as term_count
       from ${t.table} c ${key ? 'where c.key = ?' : ''} order by c.sort, c.key`,
    key ? [key] : [],
  )
  return rows.map(toClassificationDto)
}

/** Inserts an entry; its id is a new UUID unless given (offline sync keeps the origin's when it is free). */
export async function insertClassification(
  tx: EntityManager,
  kind: ClassificationKind,
  entry: { id?: string; key: string; nameKo: string; nameEn: string; sort: number },
): Promise<void> {
  await tx.execute(
    `insert into ${CLASSIFICATION_TABLES[kind].table} (id, key, name_ko, name_en, sort, created_at, updated_at)
     values (coalesce(?::uuid, gen_random_uuid()), ?, ?, ?, ?, now(), now())`,
    [entry.id ?? null, entry.key, entry.nameKo, entry.nameEn, entry.sort],
    'run',
  )
}

export async function updateClassificationRow(
  tx: EntityManager,
  kind: ClassificationKind,
  id: string,
  entry: { nameKo: string; nameEn: string; sort: number },
): Promise<void> {
  await tx.execute(
    `update ${CLASSIFICATION_TABLES[kind].table} set name_ko = ?, name_en = ?, sort = ?, updated_at = now() where id = ?`,
    [entry.nameKo, entry.nameEn, entry.sort, id],
    'run',
  )
}

export async function deleteClassificationRow(
  tx: EntityManager,
  kind: ClassificationKind,
  id: string,
): Promise<void> {
  await tx.execute(`delete from ${CLASSIFICATION_TABLES[kind].table} where id = ?`, [id], 'run')
}

/** The live terms carrying an entry, with their status and current revision. */
export async function selectTermsCarrying(
  tx: EntityManager,
  kind: ClassificationKind,
  id: string,
): Promise<{ id: string; revision: number; status: TermStatus }[]> {
  const t = CLASSIFICATION_TABLES[kind]
  return tx.execute(
    `select x.id, x.revision, x.status from ${t.link} l join terms x on x.id = l.term_id
      where l.${t.ref} = ? and x.deleted_at is null`,
    [id],
  )
}

// ── Export batches ──────────────────────────────────────────────────────────────────────────────────────

/** The tables an export walks, whose planner statistics `refreshExportStatistics` keeps. */
const EXPORT_TABLES = ['terms', 'term_revisions', 'term_notations', 'relations'] as const

/**
 * Refreshes the planner's statistics of the tables an export walks where they are missing or stale. The
 * embedded database runs no autovacuum, so a glossary filled in bulk may have none, and without them
 * PostgreSQL plans a keyset batch ("slug > ? order by slug limit 500") as a scan of every following row plus a
 * sort: quadratic over an export (191 s instead of a few at 100,000 terms). Stale means autovacuum's rule of
 * thumb (50 rows and a tenth changed), in pages: never analyzed (`reltuples` < 0), or the table's size moved by
 * more than 10 pages and a tenth since. Pages, because the embedded engine keeps no count of changed rows
 * (`pg_stat_user_tables` stays at zero there). Analyzing every time cost ~70 ms of the one connection at the
 * start of every export (2,000 terms; decision 019, "Round two (issue 26)"). A database user not allowed to
 * run ANALYZE only loses the speed-up.
 */
export async function refreshExportStatistics(manager: EntityManager): Promise<void> {
  const stale = await manager.execute<{ name: string }[]>(
    `select c.relname as name from pg_class c
      where c.oid = any(?::regclass[])
        and (c.reltuples < 0
             or abs(pg_relation_size(c.oid) / current_setting('block_size')::int - c.relpages) > 10 + c.relpages / 10)`,
    [textArray(EXPORT_TABLES)],
  )
  const tables = EXPORT_TABLES.filter((table) => stale.some((row) => row.name === table))
  if (tables.length === 0) return
  try {
    await manager.execute(`analyze ${tables.join(', ')}`, [], 'run')
  } catch {
    // Not the table owner (PostgreSQL): autovacuum keeps the statistics there.
  }
}

/** A live, unmerged term as the exports and the shared sheet read it: the current content and its row. */
export interface ExportTerm {
  id: string
  revision: number
  updatedAt: string
  content: TermContent
}

/**
 * Live, unmerged terms in slug order, `limit` at a time after the slug `after` (keyset: each batch is one
 * index range scan on the live-slug index, so an export reads the glossary in constant memory however large
 * it is). `withBody: false` leaves the Markdown bodies in the database.
 */
export async function selectExportBatch(
  manager: EntityManager,
  options: { after: string | null; limit: number; withBody: boolean },
): Promise<ExportTerm[]> {
  const rows = await manager.execute<
    { id: string; revision: number; updated_at: Date | string; content: TermContent | string }[]
  >(
    `select t.id, t.revision, t.updated_at, ${options.withBody ? 'r.content' : "r.content - 'body' as content"}
       from terms t join term_revisions r on r.term_id = t.id and r.revision = t.revision
      where t.deleted_at is null and t.status <> 'merged'${options.after === null ? '' : ' and t.slug > ?'}
      order by t.slug
      limit ?`,
    options.after === null ? [options.limit] : [options.after, options.limit],
  )
  return rows.map((r) => {
    const content = parseJson<TermContent>(r.content)
    return {
      id: r.id,
      revision: r.revision,
      updatedAt: iso(r.updated_at),
      content: { ...content, body: content.body ?? '' },
    }
  })
}

/** A name or notation of a live, unmerged term, as the linter exports read it. */
export interface LintForm {
  text: string
  /** The folded key (`normalizeKey`). */
  normalized: string
  kind: NotationKind
  termId: string
  slug: string
  name: string
  nameKo: string | null
  status: TermStatus
}

/**
 * Names and notations of live, unmerged terms in the byte order of their folded key, whole keys at a time:
 * about `limit` rows after the key `after`, and `next`, the key to continue after (null at the end). The
 * order is the one of the `term_notations_prefix_idx` index (`text_pattern_ops`, compared with `~<~`), so a
 * batch is an index range scan whatever the size of the glossary; forms written alike (by several terms, or
 * in several letter cases) arrive in one batch, so a linter rule keyed by them can merge them while reading
 * in constant memory.
 */
export async function selectLintForms(
  manager: EntityManager,
  options: {
    kinds: readonly NotationKind[]
    /** Terms whose status is `deprecated`, or all others. */
    deprecatedTerms: boolean
    after: string | null
    limit: number
  },
): Promise<{ rows: LintForm[]; next: string | null }> {
  const select = (where: string, params: unknown[], limit: number | null) =>
    manager.execute<LintForm[]>(
      `select n.text, n.normalized, n.kind, t.id as "termId", t.slug, t.name, t.name_ko as "nameKo", t.status
         from term_notations n join terms t on t.id = n.term_id
        where ${where} and t.deleted_at is null and t.status <> 'merged' and n.kind = any(?::text[])
          and t.status ${options.deprecatedTerms ? '=' : '<>'} 'deprecated'
        order by n.normalized using ~<~${limit === null ? '' : ' limit ?'}`,
      [...params, textArray(options.kinds), ...(limit === null ? [] : [limit])],
    )
  const rows = await select(
    options.after === null ? 'true' : 'n.normalized ~>~ ?',
    options.after === null ? [] : [options.after],
    options.limit,
  )
  if (rows.length < options.limit) return { rows, next: null }
  const lastKey = rows[rows.length - 1]!.normalized
  const complete = rows.filter((r) => r.normalized !== lastKey)
  if (complete.length) return { rows: complete, next: complete[complete.length - 1]!.normalized }
  // One key has more forms than a batch: read it whole.
  return { rows: await select('n.normalized = ?', [lastKey], null), next: lastKey }
}
