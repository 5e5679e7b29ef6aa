import type { EntityManager } from '@mikro-orm/postgresql'
import { diffArrays, diffLines } from 'diff'
import { AppError } from '#app/lib/errors.server.ts'
import type { ListWikiQuery } from '#app/schemas/wiki.ts'
import { renderMarkdown } from '#app/services/markdown/render.server.ts'
import { em } from '#db/orm.ts'
import type { WikiStatus } from '#domain/content.ts'

/**
 * Reading wiki pages (docs/decisions/009-wiki-and-meetings.md): list with filters (archived pages hidden
 * unless asked for), one page with its Markdown rendered to sanitized HTML, its revision history and a
 * field-by-field diff between two revisions. `official` is true only for published pages: drafts (and
 * archived pages) are not official evidence.
 */

export interface PersonDto {
  id: string
  name: string
}

export interface WikiListItemDto {
  id: string
  slug: string
  title: string
  summary: string | null
  sourceUrl: string | null
  domain: string[]
  termSlugs: string[]
  status: WikiStatus
  revision: number
  official: boolean
  createdAt: string
  updatedAt: string
  createdBy: PersonDto | null
  updatedBy: PersonDto | null
}

export interface WikiPageDto extends WikiListItemDto {
  content: string
  html: string
  terms: { id: string; slug: string; name: string }[]
}

interface PageRow {
  id: string
  slug: string
  title: string
  summary: string | null
  source_url: string | null
  domain: string[]
  status: WikiStatus
  revision: number
  created_at: Date | string
  updated_at: Date | string
  created_by_id: string | null
  created_by_name: string | null
  updated_by_id: string | null
  updated_by_name: string | null
  terms: { id: string; slug: string; name: string }[] | string | null
  content?: string
}

export function iso(value: Date | string): string {
  return (value instanceof Date ? value : new Date(value)).toISOString()
}

function person(id: string | null, name: string | null): PersonDto | null {
  return id ? { id, name: name ?? '' } : null
}

/** Linked terms (not deleted ones), ordered by slug only for a stable display: links have no priority. */
const PAGE_SELECT = (withContent: boolean) => `
  select p.id, p.slug, p.title, p.summary, p.source_url, p.domain, p.status, p.revision, p.created_at,
         p.updated_at, p.created_by_id, cu.name as created_by_name, p.updated_by_id, uu.name as updated_by_name,
         ${withContent ? 'p.content,' : ''}
         coalesce((select json_agg(json_build_object('id', t.id, 'slug', t.slug, 'name', t.name) order by t.slug)
                     from wiki_page_terms wt join terms t on t.id = wt.term_id and t.deleted_at is null
                    where wt.page_id = p.id), '[]'::json) as terms
    from wiki_pages p
    left join users cu on cu.id = p.created_by_id
    left join users uu on uu.id = p.updated_by_id`

function terms(row: PageRow): { id: string; slug: string; name: string }[] {
  if (!row.terms) return []
  return typeof row.terms === 'string' ? JSON.parse(row.terms) : row.terms
}

function toListItem(row: PageRow): WikiListItemDto {
  return {
    id: row.id,
    slug: row.slug,
    title: row.title,
    summary: row.summary,
    sourceUrl: row.source_url,
    domain: row.domain ?? [],
    termSlugs: terms(row).map((t) => t.slug),
    status: row.status,
    revision: row.revision,
    official: row.status === 'published',
    createdAt: iso(row.created_at),
    updatedAt: iso(row.updated_at),
    createdBy: person(row.created_by_id, row.created_by_name),
    updatedBy: person(row.updated_by_id, row.updated_by_name),
  }
}

function toPageDto(row: PageRow): WikiPageDto {
  const content = row.content ?? ''
  return { ...toListItem(row), content, html: renderMarkdown(content), terms: terms(row) }
}

/** The page with this slug as the API returns it (inside `manager`, e.g. a transaction). */
export async function loadWikiPageDto(manager: EntityManager, slug: string): Promise<WikiPageDto> {
  const rows = await manager.execute<PageRow[]>(
    `${PAGE_SELECT(true)} where p.slug = ? and p.deleted_at is null`,
    [slug],
  )
  if (!rows[0]) throw new AppError('not_found', `No wiki page "${slug}".`)
  return toPageDto(rows[0])
}

/** One page by slug: the original Markdown, its sanitized HTML and the linked terms. */
export async function getWikiPage(options: { slug: string }): Promise<WikiPageDto> {
  return loadWikiPageDto(em(), options.slug.normalize('NFKC').toLowerCase())
}

function likeEscape(s: string): string {
  return s.replace(/[\\%_]/g, (c) => `\\${c}`)
}

/**
 * Lists pages, most recently changed first (with `q`, title matches first). Without `status`, archived
 * pages are hidden; `status=archived` lists them. `domain` matches any of the given domains; `termId`
 * keeps pages linked to that term.
 */
export async function listWikiPages(
  query: ListWikiQuery,
): Promise<{ items: WikiListItemDto[]; total: number; page: number; pageSize: number }> {
  const manager = em()
  const where = ['p.deleted_at is null']
  const params: unknown[] = []
  let rank = ''
  const rankParams: unknown[] = []
  if (query.status) {
    where.push('p.status = ?')
    params.push(query.status)
  } else {
    where.push(`p.status <> 'archived'`)
  }
  if (query.q) {
    const pattern = `%${likeEscape(query.q)}%`
    where.push('p.search_text like lower(?)')
    params.push(pattern)
    rank = 'case when lower(p.title) like lower(?) then 0 else 1 end'
    rankParams.push(pattern)
  }
  if (query.domain.length) {
    where.push('p.domain && ?::text[]')
    params.push(`{${query.domain.map((d) => `"${d.replace(/["\\]/g, (c) => `\\${c}`)}"`).join(',')}}`)
  }
  if (query.termId) {
    where.push('exists (select 1 from wiki_page_terms wt where wt.page_id = p.id and wt.term_id = ?)')
    params.push(query.termId)
  }
  const offset = (query.page - 1) * query.pageSize
  const rows = await manager.execute<{ id: string; total: string | number }[]>(
    `select p.id, count(*) over () as total from wiki_pages p where ${where.join(' and ')}
      order by ${rank ? `${rank}, ` : ''}p.updated_at desc, p.id limit ? offset ?`,
    [...params, ...rankParams, query.pageSize, offset],
  )
  let total = rows.length ? Number(rows[0]!.total) : 0
  if (rows.length === 0 && offset > 0) {
    const count = await manager.execute<{ n: string | number }[]>(
      `select count(*) as n from wiki_pages p where ${where.join(' and ')}`,
      params,
    )
    total = Number(count[0]?.n ?? 0)
  }
  const ids = rows.map((r) => r.id)
  const details = ids.length
    ? await manager.execute<PageRow[]>(`${PAGE_SELECT(false)} where p.id = any(?::uuid[])`, [
        `{${ids.join(',')}}`,
      ])
    : []
  const byId = new Map(details.map((row) => [row.id, toListItem(row)]))
  const items = ids.map((id) => byId.get(id)).filter((item): item is WikiListItemDto => !!item)
  return { items, total, page: query.page, pageSize: query.pageSize }
}

export interface WikiRevisionSummary {
  revision: number
  title: string
  status: WikiStatus
  author: PersonDto | null
  createdAt: string
}

export interface WikiRevisionDto extends WikiRevisionSummary {
  slug: string
  content: string
  html: string
  summary: string | null
  sourceUrl: string | null
  domain: string[]
  termSlugs: string[]
}

interface RevisionRow {
  revision: number
  slug: string
  title: string
  content: string
  summary: string | null
  source_url: string | null
  domain: string[]
  status: WikiStatus
  term_slugs: string[]
  author_id: string | null
  author_label: string | null
  author_name: string | null
  created_at: Date | string
}

function toRevisionSummary(row: RevisionRow): WikiRevisionSummary {
  return {
    revision: row.revision,
    title: row.title,
    status: row.status,
    author: row.author_id
      ? { id: row.author_id, name: row.author_name ?? row.author_label ?? '' }
      : row.author_label
        ? { id: '', name: row.author_label }
        : null,
    createdAt: iso(row.created_at),
  }
}

async function pageId(manager: EntityManager, slug: string): Promise<string> {
  const rows = await manager.execute<{ id: string }[]>(
    'select id from wiki_pages where slug = ? and deleted_at is null',
    [slug.normalize('NFKC').toLowerCase()],
  )
  if (!rows[0]) throw new AppError('not_found', `No wiki page "${slug}".`)
  return rows[0].id
}

const REVISION_SELECT = `
  select r.revision, r.slug, r.title, r.content, r.summary, r.source_url, r.domain, r.status, r.term_slugs,
         r.author_id, r.author_label, u.name as author_name, r.created_at
    from wiki_page_revisions r left join users u on u.id = r.author_id`

/** The revision history of a page, newest first. */
export async function listWikiRevisions(options: {
  slug: string
}): Promise<{ slug: string; items: WikiRevisionSummary[]; total: number }> {
  const manager = em()
  const id = await pageId(manager, options.slug)
  const rows = await manager.execute<RevisionRow[]>(
    `${REVISION_SELECT} where r.page_id = ? order by r.revision desc`,
    [id],
  )
  return { slug: options.slug, items: rows.map(toRevisionSummary), total: rows.length }
}

async function loadRevision(manager: EntityManager, id: string, revision: number): Promise<WikiRevisionDto> {
  const rows = await manager.execute<RevisionRow[]>(
    `${REVISION_SELECT} where r.page_id = ? and r.revision = ?`,
    [id, revision],
  )
  const row = rows[0]
  if (!row) throw new AppError('not_found', `The page has no revision ${revision}.`)
  return {
    ...toRevisionSummary(row),
    slug: row.slug,
    content: row.content,
    html: renderMarkdown(row.content),
    summary: row.summary,
    sourceUrl: row.source_url,
    domain: row.domain ?? [],
    termSlugs: row.term_slugs ?? [],
  }
}

/** One revision with its full content (and that content rendered). */
export async function getWikiRevision(options: { slug: string; revision: number }): Promise<WikiRevisionDto> {
  const manager = em()
  return loadRevision(manager, await pageId(manager, options.slug), options.revision)
}

export interface WikiFieldDiff {
  field: string
  changed: boolean
  before: unknown
  after: unknown
  changes?: { value: string; added: boolean; removed: boolean }[]
}

const DIFF_FIELDS = ['title', 'summary', 'sourceUrl', 'domain', 'termSlugs', 'status', 'content'] as const

/**
 * Difference between two revisions (either order): scalars as before/after, `domain` and `termSlugs` as an
 * item diff (sorted first: links have no order), `content` as a line diff.
 */
export async function diffWikiRevisions(options: { slug: string; from: number; to: number }): Promise<{
  slug: string
  from: WikiRevisionSummary
  to: WikiRevisionSummary
  fields: WikiFieldDiff[]
}> {
  const manager = em()
  const id = await pageId(manager, options.slug)
  const a = await loadRevision(manager, id, options.from)
  const b = await loadRevision(manager, id, options.to)
  const fields = DIFF_FIELDS.map((field): WikiFieldDiff => {
    const list = field === 'domain' || field === 'termSlugs'
    const before = list ? [...(a[field] as string[])].sort() : (a[field] ?? null)
    const after = list ? [...(b[field] as string[])].sort() : (b[field] ?? null)
    const changed = JSON.stringify(before) !== JSON.stringify(after)
    const out: WikiFieldDiff = { field, changed, before, after }
    if (!changed) return out
    if (field === 'content') {
      out.changes = diffLines(String(before), String(after)).map((p) => ({
        value: p.value,
        added: !!p.added,
        removed: !!p.removed,
      }))
    } else if (list) {
      out.changes = diffArrays(before as string[], after as string[]).flatMap((p) =>
        p.value.map((value) => ({ value, added: !!p.added, removed: !!p.removed })),
      )
    }
    return out
  })
  const strip = (r: WikiRevisionDto): WikiRevisionSummary => ({
    revision: r.revision,
    title: r.title,
    status: r.status,
    author: r.author,
    createdAt: r.createdAt,
  })
  return { slug: options.slug, from: strip(a), to: strip(b), fields }
}
