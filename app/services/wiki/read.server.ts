import type { EntityManager } from '@mikro-orm/postgresql'
import { pageHtmlWithTermLinks } from '#app/services/annotate/page-links.server.ts'
import type { TermLinkLabels } from '#app/services/annotate/annotate.server.ts'
import { AppError } from '#app/lib/errors.server.ts'
import type { PassageAsk } from '#app/lib/passage.ts'
import type { ListWikiQuery } from '#app/schemas/wiki.ts'
import { diffField, type FieldDiff } from '#app/services/revision-diff.server.ts'
import { em } from '#db/orm.ts'
import {
  pageHtml,
  selectPage,
  selectPageId,
  selectPageList,
  selectRevision,
  selectRevisionSummaries,
  type PersonDto,
  type WikiListItemDto,
  type WikiPageDto,
  type WikiRevisionDto,
  type WikiRevisionSummary,
} from './store.server.ts'

export type { PersonDto, WikiListItemDto, WikiPageDto, WikiRevisionDto, WikiRevisionSummary }

/**
 * Reading wiki pages (docs/decisions/009-wiki-and-meetings.md): list with filters (archived pages hidden
 * unless asked for), one page with its Markdown rendered to sanitized HTML, its revision history and a
 * field-by-field diff between two revisions. `official` is true only for published pages: drafts (and
 * archived pages) are not official evidence.
 */

/** Page addresses are compared as slugs are made: NFKC and lowercase. */
function normalizeSlug(slug: string): string {
  return slug.normalize('NFKC').toLowerCase()
}

/**
 * The page with this slug as the API returns it (inside `manager`, e.g. a transaction); with `passage`, its
 * HTML marks that passage of a search result when it applies to the page's text (app/lib/passage.ts).
 */
export async function loadWikiPageDto(
  manager: EntityManager,
  slug: string,
  passage?: PassageAsk,
  options: { html?: boolean } = {},
): Promise<WikiPageDto> {
  const page = await selectPage(manager, slug, passage, options)
  if (!page) throw new AppError('not_found', `No wiki page "${slug}".`)
  return page
}

/**
 * One page by slug: the original Markdown, its sanitized HTML (marking `passage`, if asked) and the linked terms.
 * With `termLinks` (the wiki page as readers see it, issue 32), the HTML links the uses of glossary terms,
 * unless the page has them switched off.
 */
export async function getWikiPage(options: {
  slug: string
  passage?: PassageAsk
  termLinks?: TermLinkLabels
}): Promise<WikiPageDto> {
  const slug = normalizeSlug(options.slug)
  if (!options.termLinks) return loadWikiPageDto(em(), slug, options.passage)
  const page = await loadWikiPageDto(em(), slug, options.passage, { html: false })
  if (!page.termLinks) return { ...page, html: pageHtml(page, options.passage) } // switched off for this page
  return { ...page, html: await pageHtmlWithTermLinks(page, options.passage, options.termLinks) }
}

/**
 * Lists pages, most recently changed first (with `q`, title matches first). Without `status`, archived
 * pages are hidden; `status=archived` lists them. `domain` matches any of the given domains; `termId`
 * keeps pages linked to that term.
 */
export async function listWikiPages(
  query: ListWikiQuery,
): Promise<{ items: WikiListItemDto[]; total: number; page: number; pageSize: number }> {
  const { items, total } = await selectPageList(em(), {
    status: query.status ?? 'not-archived',
    q: query.q,
    domains: query.domain,
    termId: query.termId,
    limit: query.pageSize,
    offset: (query.page - 1) * query.pageSize,
  })
  return { items, total, page: query.page, pageSize: query.pageSize }
}

async function pageId(manager: EntityManager, slug: string): Promise<string> {
  const id = await selectPageId(manager, normalizeSlug(slug))
  if (!id) throw new AppError('not_found', `No wiki page "${slug}".`)
  return id
}

/** The revision history of a page, newest first. */
export async function listWikiRevisions(options: {
  slug: string
}): Promise<{ slug: string; items: WikiRevisionSummary[]; total: number }> {
  const manager = em()
  const items = await selectRevisionSummaries(manager, await pageId(manager, options.slug))
  return { slug: options.slug, items, total: items.length }
}

async function loadRevision(manager: EntityManager, id: string, revision: number): Promise<WikiRevisionDto> {
  const found = await selectRevision(manager, id, revision)
  if (!found) throw new AppError('not_found', `The page has no revision ${revision}.`)
  return found
}

/** One revision with its full content (and that content rendered). */
export async function getWikiRevision(options: { slug: string; revision: number }): Promise<WikiRevisionDto> {
  const manager = em()
  return loadRevision(manager, await pageId(manager, options.slug), options.revision)
}

export type WikiFieldDiff = FieldDiff

const DIFF_FIELDS = ['title', 'summary', 'sourceUrl', 'domain', 'termSlugs', 'status', 'content'] as const

/** Domains and linked term slugs are shown item by item (sorted first: links have no order). */
const STRING_ITEMS = { items: (v: unknown) => v as string[] }

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
  const fields = DIFF_FIELDS.map((field) => {
    if (field === 'domain' || field === 'termSlugs') {
      return diffField(field, STRING_ITEMS, [...a[field]].sort(), [...b[field]].sort())
    }
    return diffField(field, field === 'content' ? 'lines' : 'scalar', a[field] ?? null, b[field] ?? null)
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
