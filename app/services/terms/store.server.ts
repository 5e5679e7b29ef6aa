import type { EntityManager } from '@mikro-orm/postgresql'
import { AppError, validationError, type Problem } from '#app/lib/errors.server.ts'
import { enqueueIndexMany } from '#app/services/index-queue/enqueue.server.ts'
import type { TermStatus } from '#db/entities/term.entity.ts'
import { canonicalContent, searchText, termForms, type TermContent } from './content.server.ts'

/**
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

const BATCH = 2000

function chunks<T>(items: readonly T[], size = BATCH): T[][] {
  const out: T[][] = []
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size))
  return out
}

/** A uuid[] literal for `?::uuid[]` (uuids only: they contain no characters needing escapes). */
export function uuidArray(ids: readonly string[]): string {
  return `{${ids.join(',')}}`
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
  for (const batch of chunks(writes)) {
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
    await enqueueIndexMany(
      tx,
      batch.map((w) => ({ sourceType: 'term' as const, sourceId: w.id, revision: w.revision })),
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
  for (const batch of chunks(ids)) {
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

/** jsonb comes back parsed from node-postgres and as text from some drivers; accept both. */
export function parseJson<T>(value: unknown): T {
  return (typeof value === 'string' ? JSON.parse(value) : value) as T
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

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

export async function findTermId(tx: EntityManager, idOrSlug: string): Promise<string | undefined> {
  if (UUID.test(idOrSlug)) {
    const rows = await tx.execute<{ id: string }[]>(
      'select id from terms where id = ? and deleted_at is null',
      [idOrSlug.toLowerCase()],
    )
    return rows[0]?.id
  }
  const slug = idOrSlug.normalize('NFKC').toLowerCase()
  const rows = await tx.execute<{ id: string }[]>(
    `select id from terms where slug = ? and deleted_at is null and status <> 'merged'
     union all
     select o.term_id from term_old_slugs o join terms t on t.id = o.term_id and t.deleted_at is null where o.slug = ?
     limit 1`,
    [slug, slug],
  )
  return rows[0]?.id
}

/** Throws 409 slug_taken when `slug` is a current or old address of a term other than `ownerId`. */
export async function assertSlugFree(tx: EntityManager, slug: string, ownerId: string | null): Promise<void> {
  const rows = await tx.execute<{ term_id: string }[]>(
    `select id as term_id from terms where slug = ? and deleted_at is null
     union all select term_id from term_old_slugs where slug = ?`,
    [slug, slug],
  )
  if (rows.some((r) => r.term_id !== ownerId)) {
    throw new AppError('slug_taken', `The address "${slug}" is already used by another term.`, {
      details: { problems: [{ path: 'slug', message: 'already used by another term' }] },
    })
  }
}

export function assertNoProblems(problems: Problem[]): void {
  if (problems.length) throw validationError(problems)
}
