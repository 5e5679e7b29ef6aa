import type { EntityManager } from '@mikro-orm/postgresql'
import { diffArrays, diffLines } from 'diff'
import { AppError } from '#app/lib/errors.server.ts'
import { casedKey } from '#app/services/matching/letter-case.ts'
import { normalizeKey } from '#app/services/matching/normalize.ts'
import type { ListTermsQuery } from '#app/schemas/terms.ts'
import type { NotationKind, TermStatus } from '#db/entities/term.entity.ts'
import { em } from '#db/orm.ts'
import type { TermContent, TermNotationValue } from './content.server.ts'
import { parseJson, resolveTermId, uuidArray } from './store.server.ts'

/** The term as the API returns it: its current content plus identity, history and addresses. */
export interface TermDto extends TermContent {
  id: string
  revision: number
  mergedInto: { id: string; slug: string; name: string } | null
  oldSlugs: string[]
  createdAt: string
  updatedAt: string
  updatedBy: { id: string; name: string } | null
}

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

function iso(value: Date | string): string {
  return (value instanceof Date ? value : new Date(value)).toISOString()
}

function toDto(row: DtoRow): TermDto {
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
    updatedBy: row.updated_by_id ? { id: row.updated_by_id, name: row.updated_by_name ?? '' } : null,
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
  const byId = new Map(rows.map((r) => [r.id, toDto(r)]))
  return ids.map((id) => byId.get(id)).filter((d): d is TermDto => !!d)
}

/** One term by UUID, current slug or old slug. */
export async function getTerm(options: { idOrSlug: string }): Promise<TermDto> {
  const manager = em()
  const id = await resolveTermId(manager, options.idOrSlug)
  const [dto] = await loadTermDtos(manager, [id])
  if (!dto) throw new AppError('not_found', `No term "${options.idOrSlug}".`)
  return dto
}

/** Escapes LIKE wildcards; the pattern uses `\` as its escape character. */
function likeEscape(s: string): string {
  return s.replace(/[\\%_]/g, (c) => `\\${c}`)
}

/**
 * Lists terms. `q` matches a substring of any name or notation after the matcher's normalization (NFKC,
 * lowercase), so width, case and Korean all work. Ranking: a name/notation written exactly as `q` (letter
 * case included), then a whole name/notation equal to `q` without case, then one starting with it, then any
 * other match; ties by name. Without `status`, merged terms are left out;
 * deleted terms never appear.
 */
export async function listTerms(
  options: ListTermsQuery,
): Promise<{ items: TermListItem[]; total: number; page: number; pageSize: number }> {
  const manager = em()
  const where: string[] = ['t.deleted_at is null']
  const params: unknown[] = []
  let rank = ''
  const rankParams: unknown[] = []
  const q = options.q ? normalizeKey(options.q) : ''
  if (q) {
    const escaped = likeEscape(q)
    where.push(`t.search_text like ?`)
    params.push(`%${escaped}%`)
    // Letter case ranks first (docs/decisions/013-letter-case.md): `US` lists the term written `US` before
    // the one written `us`; the folded search itself finds both.
    rank = `case when exists (select 1 from term_notations n where n.term_id = t.id and n.text = ?) then 0 else 1 end,
            case when t.search_text like ? then 0 when t.search_text like ? then 1 else 2 end, `
    rankParams.push(casedKey(options.q!), `%\u0001${escaped}\u0001%`, `%\u0001${escaped}%`)
  }
  if (options.status) {
    where.push('t.status = ?')
    params.push(options.status)
  } else {
    where.push(`t.status <> 'merged'`)
  }
  if (options.domain.length) {
    where.push(
      'exists (select 1 from term_domains td join domains d on d.id = td.domain_id where td.term_id = t.id and d.key = any(?::text[]))',
    )
    params.push(textArray(options.domain))
  }
  if (options.category.length) {
    where.push(
      'exists (select 1 from term_categories tc join business_categories c on c.id = tc.category_id where tc.term_id = t.id and c.key = any(?::text[]))',
    )
    params.push(textArray(options.category))
  }
  if (options.tag.length) {
    where.push('t.tags @> ?::text[]')
    params.push(textArray(options.tag))
  }
  const offset = (options.page - 1) * options.pageSize
  const rows = await manager.execute<{ id: string; total: string | number }[]>(
    `select t.id, count(*) over () as total
       from terms t
      where ${where.join(' and ')}
      order by ${rank}lower(t.name), t.id
      limit ? offset ?`,
    [...params, ...rankParams, options.pageSize, offset],
  )
  let total = rows.length ? Number(rows[0]!.total) : 0
  if (rows.length === 0 && offset > 0) {
    const count = await manager.execute<{ n: string | number }[]>(
      `select count(*) as n from terms t where ${where.join(' and ')}`,
      params,
    )
    total = Number(count[0]?.n ?? 0)
  }
  const dtos = await loadTermDtos(
    manager,
    rows.map((r) => r.id),
    { withBody: false },
  )
  const items = dtos.map(({ body: _body, oldSlugs: _old, ...item }) => item)
  return { items, total, page: options.page, pageSize: options.pageSize }
}

/** A text[] literal with every element quoted (safe for any string). */
export function textArray(values: readonly string[]): string {
  return `{${values.map((v) => `"${v.replace(/["\\]/g, (c) => `\\${c}`)}"`).join(',')}}`
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
 * Prefix autocomplete over names and notations (normalized, so case and width do not matter for finding a
 * term). One entry per term, best first: shorter matched forms, then names before notations. Within a term,
 * a form whose start is written as typed, letter case included, is the one shown (docs/decisions/
 * 013-letter-case.md): `Github` suggests the deprecated `Github`, `GitHub` the preferred `GitHub`.
 */
export async function suggestTerms(options: { q: string; limit: number }): Promise<{ items: Suggestion[] }> {
  const q = normalizeKey(options.q)
  if (!q) return { items: [] }
  const cased = `${likeEscape(casedKey(options.q))}%`
  const rows = await em().execute<
    { id: string; slug: string; name: string; status: TermStatus; matched: string; kind: NotationKind }[]
  >(
    `select id, slug, name, status, matched, kind from (
       select distinct on (t.id) t.id, t.slug, t.name, t.status, n.text as matched, n.kind,
              length(n.normalized) as len, n.position
         from term_notations n join terms t on t.id = n.term_id
        where n.normalized like ? and t.deleted_at is null and t.status <> 'merged'
        order by t.id, length(n.normalized), n.text not like ?, n.position
     ) s order by len, position, lower(name) limit ?`,
    [`${likeEscape(q)}%`, cased, options.limit],
  )
  return { items: rows }
}

export interface RevisionSummary {
  revision: number
  note: string
  author: { id: string; name: string } | null
  createdAt: string
  contentHash: string
}

/** The revision history of a term, newest first. */
export async function listRevisions(options: {
  idOrSlug: string
}): Promise<{ termId: string; items: RevisionSummary[]; total: number }> {
  const manager = em()
  const termId = await resolveTermId(manager, options.idOrSlug)
  const rows = await manager.execute<
    {
      revision: number
      note: string
      author_id: string | null
      author_name: string | null
      created_at: Date | string
      content_hash: string
    }[]
  >(
    `select r.revision, r.note, r.author_id, u.name as author_name, r.created_at, r.content_hash
       from term_revisions r left join users u on u.id = r.author_id
      where r.term_id = ? order by r.revision desc`,
    [termId],
  )
  const items = rows.map((r) => ({
    revision: r.revision,
    note: r.note,
    author: r.author_id ? { id: r.author_id, name: r.author_name ?? '' } : null,
    createdAt: iso(r.created_at),
    contentHash: r.content_hash,
  }))
  return { termId, items, total: items.length }
}

export interface RevisionDto extends RevisionSummary {
  termId: string
  content: TermContent
}

async function loadRevision(manager: EntityManager, termId: string, revision: number): Promise<RevisionDto> {
  const rows = await manager.execute<
    {
      revision: number
      note: string
      author_id: string | null
      author_name: string | null
      created_at: Date | string
      content_hash: string
      content: TermContent | string
    }[]
  >(
    `select r.revision, r.note, r.author_id, u.name as author_name, r.created_at, r.content_hash, r.content
       from term_revisions r left join users u on u.id = r.author_id
      where r.term_id = ? and r.revision = ?`,
    [termId, revision],
  )
  const r = rows[0]
  if (!r) throw new AppError('not_found', `The term has no revision ${revision}.`)
  return {
    termId,
    revision: r.revision,
    note: r.note,
    author: r.author_id ? { id: r.author_id, name: r.author_name ?? '' } : null,
    createdAt: iso(r.created_at),
    contentHash: r.content_hash,
    content: parseJson<TermContent>(r.content),
  }
}

/** One revision with its full content. */
export async function getRevision(options: { idOrSlug: string; revision: number }): Promise<RevisionDto> {
  const manager = em()
  const termId = await resolveTermId(manager, options.idOrSlug)
  return loadRevision(manager, termId, options.revision)
}

export interface FieldDiff {
  field: keyof TermContent
  changed: boolean
  before: unknown
  after: unknown
  /** Line diff for definition and body; item diff for lists. Only for changed fields. */
  changes?: { value: string; added: boolean; removed: boolean }[]
}

const TEXT_FIELDS = new Set<keyof TermContent>(['definition', 'body'])
const LIST_FIELDS = new Set<keyof TermContent>(['notations', 'domains', 'categories', 'tags'])
const FIELDS: (keyof TermContent)[] = [
  'slug',
  'name',
  'fullName',
  'nameEn',
  'nameKo',
  'status',
  'notations',
  'domains',
  'categories',
  'tags',
  'definition',
  'body',
]

/**
 * Field-by-field difference between two revisions (either order): scalars as before/after, lists as an item
 * diff (a notation is shown as `text (kind)`), definition and body as a line diff.
 */
export async function diffRevisions(options: {
  idOrSlug: string
  from: number
  to: number
}): Promise<{ termId: string; from: RevisionSummary; to: RevisionSummary; fields: FieldDiff[] }> {
  const manager = em()
  const termId = await resolveTermId(manager, options.idOrSlug)
  const a = await loadRevision(manager, termId, options.from)
  const b = await loadRevision(manager, termId, options.to)
  const fields = FIELDS.map((field): FieldDiff => {
    const before = a.content[field] ?? null
    const after = b.content[field] ?? null
    const changed = JSON.stringify(before) !== JSON.stringify(after)
    const out: FieldDiff = { field, changed, before, after }
    if (!changed) return out
    if (TEXT_FIELDS.has(field)) {
      out.changes = diffLines(String(before ?? ''), String(after ?? '')).map((p) => ({
        value: p.value,
        added: !!p.added,
        removed: !!p.removed,
      }))
    } else if (LIST_FIELDS.has(field)) {
      const show = (v: unknown) =>
        ((v ?? []) as unknown[]).map((x) =>
          typeof x === 'string' ? x : `${(x as TermNotationValue).text} (${(x as TermNotationValue).kind})`,
        )
      out.changes = diffArrays(show(before), show(after)).flatMap((p) =>
        p.value.map((value) => ({ value, added: !!p.added, removed: !!p.removed })),
      )
    }
    return out
  })
  const strip = ({ content: _c, termId: _t, ...summary }: RevisionDto): RevisionSummary => summary
  return { termId, from: strip(a), to: strip(b), fields }
}
