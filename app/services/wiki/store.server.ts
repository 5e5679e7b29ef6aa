import type { z } from 'zod'
import type { WikiListItemSchema, WikiPageSchema } from '#app/schemas/wiki.ts'
import type { EntityManager } from '@mikro-orm/postgresql'
import { passageFor, type PassageAsk } from '#app/lib/passage.ts'
import { renderMarkdown } from '#app/services/markdown/render.server.ts'
import {
  containsPattern,
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
import type { WikiStatus } from '#domain/content.ts'

/**
 * The data access of the wiki area: every SQL statement on `wiki_pages`, `wiki_page_revisions` and
 * `wiki_page_terms`, with the row mappers that build the page DTOs. The rules (statuses, search side
 * effects, slugs, conflicts) are in write.server.ts, read.server.ts and slug.server.ts.
 */

export type PersonDto = PersonRef

/** The `WikiListItemSchema` of the API, inferred: the answer and its documentation cannot differ. */
export type WikiListItemDto = z.output<typeof WikiListItemSchema>

/** The `WikiPageSchema` of the API, inferred: the answer and its documentation cannot differ. */
export type WikiPageDto = z.output<typeof WikiPageSchema>

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
  term_links: boolean
  content?: string
}

/** Linked terms (not deleted ones), ordered by slug only for a stable display: links have no priority. */
const PAGE_SELECT = (withContent: boolean) => `
  select p.id, p.slug, p.title, p.summary, p.source_url, p.domain, p.status, p.revision, p.term_links,
         p.created_at, p.updated_at, p.created_by_id, cu.name as created_by_name, p.updated_by_id, uu.name as updated_by_name,
         ${withContent ? 'p.content,' : ''}
         coalesce((select json_agg(json_build_object('id', t.id, 'slug', t.slug, 'name', t.name) order by t.slug)
                     from wiki_page_terms wt join terms t on t.id = wt.term_id and t.deleted_at is null
                    where wt.page_id = p.id), '[]'::json) as terms
    from wiki_pages p
    left join users cu on cu.id = p.created_by_id
    left join users uu on uu.id = p.updated_by_id`

function linkedTerms(row: PageRow): { id: string; slug: string; name: string }[] {
  return row.terms ? parseJson(row.terms) : []
}

/** `official` is true only for published pages: drafts and archived pages are not official evidence. */
function toListItem(row: PageRow): WikiListItemDto {
  return {
    id: row.id,
    slug: row.slug,
    title: row.title,
    summary: row.summary,
    sourceUrl: row.source_url,
    domain: row.domain ?? [],
    termSlugs: linkedTerms(row).map((t) => t.slug),
    termLinks: row.term_links,
    status: row.status,
    revision: row.revision,
    official: row.status === 'published',
    createdAt: iso(row.created_at),
    updatedAt: iso(row.updated_at),
    createdBy: personRef(row.created_by_id, row.created_by_name),
    updatedBy: personRef(row.updated_by_id, row.updated_by_name),
  }
}

/**
 * The page as the API returns it; with `asked`, its HTML marks that passage when it applies to this text.
 * Without `html`, its HTML is left empty for the caller to render (the page with term links).
 */
function toPageDto(row: PageRow, asked?: PassageAsk, html = true): WikiPageDto {
  const content = row.content ?? ''
  const rendered = html ? pageHtml({ content, revision: row.revision }, asked) : ''
  return { ...toListItem(row), content, html: rendered, terms: linkedTerms(row) }
}

/** A page's sanitized HTML, marking the passage `asked` when it applies to this revision. */
export function pageHtml(page: { content: string; revision: number }, asked?: PassageAsk): string {
  const passage = passageFor(asked, page.content.length, page.revision)
  return renderMarkdown(page.content, passage.kind === 'mark' ? { passage: passage.passage } : undefined)
}

/**
 * The live page with this (normalized) slug, or undefined; with `passage` (a search result's, app/lib/passage.ts)
 * its HTML marks that passage, so a page opened at a passage is rendered once.
 */
export async function selectPage(
  manager: EntityManager,
  slug: string,
  passage?: PassageAsk,
  options: { html?: boolean } = {},
): Promise<WikiPageDto | undefined> {
  const rows = await manager.execute<PageRow[]>(
    `${PAGE_SELECT(true)} where p.slug = ? and p.deleted_at is null`,
    [slug],
  )
  return rows[0] && toPageDto(rows[0], passage, options.html)
}

/** The id of the live page with this slug, or undefined. */
export async function selectPageId(manager: EntityManager, slug: string): Promise<string | undefined> {
  const rows = await manager.execute<{ id: string }[]>(
    'select id from wiki_pages where slug = ? and deleted_at is null',
    [slug],
  )
  return rows[0]?.id
}

/** Locks the page row, so concurrent edits of one page serialize on a multi-connection Postgres. */
export async function lockPage(tx: EntityManager, id: string): Promise<void> {
  await tx.execute('select id from wiki_pages where id = ? for update', [id])
}

/** Page slugs equal to `base` or `base-…` (any page, deleted ones too: a slug is never reused). */
export async function selectPageSlugsLike(tx: EntityManager, base: string): Promise<string[]> {
  const rows = await tx.execute<{ slug: string }[]>(
    `select slug from wiki_pages where slug = ? or slug like ? escape '\\'`,
    [base, `${likeEscape(base)}-%`],
  )
  return rows.map((r) => r.slug)
}

export interface WikiPageQuery {
  /** A status to keep, or `'not-archived'`. */
  status: WikiStatus | 'not-archived'
  q?: string
  domains: string[]
  termId?: string
  limit: number
  offset: number
}

/** A page of list items, most recently changed first (with `q`, title matches first), and the total. */
export async function selectPageList(
  manager: EntityManager,
  query: WikiPageQuery,
): Promise<{ items: WikiListItemDto[]; total: number }> {
  const pattern = query.q && containsPattern(query.q)
  const filtered = where(
    ['p.deleted_at is null'],
    query.status === 'not-archived' ? [`p.status <> 'archived'`] : ['p.status = ?', query.status],
    pattern && ['p.search_text like lower(?)', pattern],
    query.domains.length > 0 && ['p.domain && ?::text[]', textArray(query.domains)],
    query.termId && [
      'exists (select 1 from wiki_page_terms wt where wt.page_id = p.id and wt.term_id = ?)',
      query.termId,
    ],
  )
  // With `q`, title matches first.
  const rank = pattern ? 'case when lower(p.title) like lower(?) then 0 else 1 end, ' : ''
  const rankParams = pattern ? [pattern] : []
  const rows = await manager.execute<{ id: string; total?: string }[]>(
    `select p.id${windowTotal(pattern)} from wiki_pages p ${filtered.sql}
      order by ${rank}p.updated_at desc, p.id limit ? offset ?`,
    [...filtered.params, ...rankParams, query.limit, query.offset],
  )
  const total = await pageTotal(
    { rows, offset: query.offset, limit: query.limit },
    {
      manager,
      from: `wiki_pages p ${filtered.sql}`,
      params: filtered.params,
    },
  )
  const ids = rows.map((r) => r.id)
  const details = ids.length
    ? await manager.execute<PageRow[]>(`${PAGE_SELECT(false)} where p.id = any(?::uuid[])`, [uuidArray(ids)])
    : []
  const byId = new Map(details.map((row) => [row.id, toListItem(row)]))
  const items = ids.map((id) => byId.get(id)).filter((item): item is WikiListItemDto => !!item)
  return { items, total }
}

/** Everything a revision records: the page's fields and its linked term slugs. */
export interface WikiSnapshot {
  slug: string
  title: string
  content: string
  summary: string | null
  sourceUrl: string | null
  domain: string[]
  status: WikiStatus
  termSlugs: string[]
}

/** The page's own fields in the column order every statement below uses: title … status. */
function fieldValues(snapshot: WikiSnapshot): unknown[] {
  return [
    snapshot.title,
    snapshot.content,
    snapshot.summary,
    snapshot.sourceUrl,
    textArray(snapshot.domain),
    snapshot.status,
  ]
}

export async function insertPage(
  tx: EntityManager,
  id: string,
  snapshot: WikiSnapshot,
  actorId: string | null,
): Promise<void> {
  await tx.execute(
    `insert into wiki_pages (id, slug, title, content, summary, source_url, domain, status, revision,
                             created_by_id, updated_by_id, created_at, updated_at)
     values (?, ?, ?, ?, ?, ?, ?::text[], ?, 1, ?, ?, now(), now())`,
    [id, snapshot.slug, ...fieldValues(snapshot), actorId, actorId],
    'run',
  )
}

export async function updatePage(
  tx: EntityManager,
  id: string,
  snapshot: WikiSnapshot,
  revision: number,
  actorId: string | null,
): Promise<void> {
  await tx.execute(
    `update wiki_pages set title = ?, content = ?, summary = ?, source_url = ?, domain = ?::text[], status = ?,
                           revision = ?, updated_by_id = ?, updated_at = clock_timestamp()
      where id = ?`,
    [...fieldValues(snapshot), revision, actorId, id],
    'run',
  )
}

/** Whether readers see the page's term uses linked (a display setting: no revision, issue 32). */
export async function setPageTermLinks(tx: EntityManager, id: string, on: boolean): Promise<void> {
  await tx.execute('update wiki_pages set term_links = ? where id = ?', [on, id], 'run')
}

/** Soft-deletes a page: it leaves every read; its revisions stay. */
export async function markPageDeleted(tx: EntityManager, id: string): Promise<void> {
  await tx.execute(
    'update wiki_pages set deleted_at = now(), updated_at = clock_timestamp() where id = ?',
    [id],
    'run',
  )
}

export async function replaceTermLinks(
  tx: EntityManager,
  pageId: string,
  termIds: readonly string[],
): Promise<void> {
  await tx.execute('delete from wiki_page_terms where page_id = ?', [pageId], 'run')
  const unique = [...new Set(termIds)]
  if (unique.length === 0) return
  await tx.execute(
    `insert into wiki_page_terms (page_id, term_id) select ?, unnest(?::uuid[]) on conflict do nothing`,
    [pageId, uuidArray(unique)],
    'run',
  )
}

/** The immutable revision row: the full snapshot with its author (the page's history and audit trail). */
export async function insertRevision(
  tx: EntityManager,
  pageId: string,
  revision: number,
  snapshot: WikiSnapshot,
  author: { id: string | null; name: string },
): Promise<void> {
  await tx.execute(
    `insert into wiki_page_revisions (id, page_id, revision, slug, title, content, summary, source_url, domain,
                                      status, term_slugs, author_id, author_label, created_at)
     values (gen_random_uuid(), ?, ?, ?, ?, ?, ?, ?, ?::text[], ?, ?::text[], ?, ?, now())`,
    [
      pageId,
      revision,
      snapshot.slug,
      ...fieldValues(snapshot),
      textArray([...snapshot.termSlugs].sort()),
      author.id,
      author.name.slice(0, 320),
    ],
    'run',
  )
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

const REVISION_SELECT = `
  select r.revision, r.slug, r.title, r.content, r.summary, r.source_url, r.domain, r.status, r.term_slugs,
         r.author_id, r.author_label, u.name as author_name, r.created_at
    from wiki_page_revisions r left join users u on u.id = r.author_id`

/** The author as recorded: the account while it exists, else the name the revision kept. */
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

/** A page's revisions, newest first. */
export async function selectRevisionSummaries(
  manager: EntityManager,
  pageId: string,
): Promise<WikiRevisionSummary[]> {
  const rows = await manager.execute<RevisionRow[]>(
    `${REVISION_SELECT} where r.page_id = ? order by r.revision desc`,
    [pageId],
  )
  return rows.map(toRevisionSummary)
}

/** One revision with its content rendered, or undefined. */
export async function selectRevision(
  manager: EntityManager,
  pageId: string,
  revision: number,
): Promise<WikiRevisionDto | undefined> {
  const rows = await manager.execute<RevisionRow[]>(
    `${REVISION_SELECT} where r.page_id = ? and r.revision = ?`,
    [pageId, revision],
  )
  const row = rows[0]
  if (!row) return undefined
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
