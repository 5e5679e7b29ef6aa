import crypto from 'node:crypto'
import type { EntityManager } from '@mikro-orm/postgresql'
import { AppError, validationError } from '#app/lib/errors.server.ts'
import type { CreateWikiPageInput, UpdateWikiPageInput } from '#app/schemas/wiki.ts'
import { enqueueIndex } from '#app/services/index-queue/enqueue.server.ts'
import { removeFromSearch } from '#app/services/index-queue/remove.server.ts'
import { em } from '#db/orm.ts'
import { loadWikiPageDto, type WikiPageDto } from './read.server.ts'
import { chooseWikiSlug } from './slug.server.ts'
import type { WikiStatus } from '#domain/content.ts'

/**
 * Writing wiki pages (docs/decisions/009-wiki-and-meetings.md). Every save is one transaction that writes
 * the page, a complete immutable revision row (author, time, all fields and linked term slugs: the page's
 * history and its audit snapshot) and the search side effects:
 * - the page is `published` after the save → queued on `rag_index_queue` with the new revision;
 * - the page is `draft` or `archived` after the save → `removeFromSearch` (queued work dropped; chunks once
 *   the indexer exists).
 * New pages start as `draft` unless the caller gives a status; every move between the three statuses is
 * allowed to a caller who may write.
 */

export interface WikiActor {
  id: string
  name: string
}

/** Term ids for slugs (current slugs; an old slug of a renamed term also resolves). Unknown slugs → 400. */
async function resolveTermSlugs(tx: EntityManager, slugs: readonly string[]): Promise<Map<string, string>> {
  if (slugs.length === 0) return new Map()
  const literal = `{${slugs.map((s) => `"${s.replace(/["\\]/g, (c) => `\\${c}`)}"`).join(',')}}`
  const rows = await tx.execute<{ slug: string; id: string }[]>(
    `select slug, id from terms where slug = any(?::text[]) and deleted_at is null and status <> 'merged'
     union all
     select o.slug, o.term_id as id from term_old_slugs o join terms t on t.id = o.term_id and t.deleted_at is null
      where o.slug = any(?::text[])`,
    [literal, literal],
  )
  const ids = new Map<string, string>()
  for (const row of rows) if (!ids.has(row.slug)) ids.set(row.slug, row.id)
  const problems = slugs
    .map((slug, i) => ({ slug, i }))
    .filter(({ slug }) => !ids.has(slug))
    .map(({ slug, i }) => ({ path: `termSlugs.${i}`, message: `No term "${slug}".` }))
  if (problems.length) throw validationError(problems)
  return ids
}

async function replaceTermLinks(
  tx: EntityManager,
  pageId: string,
  termIds: readonly string[],
): Promise<void> {
  await tx.execute('delete from wiki_page_terms where page_id = ?', [pageId], 'run')
  const unique = [...new Set(termIds)]
  if (unique.length === 0) return
  await tx.execute(
    `insert into wiki_page_terms (page_id, term_id) select ?, unnest(?::uuid[]) on conflict do nothing`,
    [pageId, `{${unique.join(',')}}`],
    'run',
  )
}

interface Snapshot {
  slug: string
  title: string
  content: string
  summary: string | null
  sourceUrl: string | null
  domain: string[]
  status: WikiStatus
  termSlugs: string[]
}

async function insertRevision(
  tx: EntityManager,
  pageId: string,
  revision: number,
  snapshot: Snapshot,
  actor: WikiActor,
): Promise<void> {
  await tx.execute(
    `insert into wiki_page_revisions (id, page_id, revision, slug, title, content, summary, source_url, domain,
                                      status, term_slugs, author_id, author_label, created_at)
     values (?, ?, ?, ?, ?, ?, ?, ?, ?::text[], ?, ?::text[], ?, ?, now())`,
    [
      crypto.randomUUID(),
      pageId,
      revision,
      snapshot.slug,
      snapshot.title,
      snapshot.content,
      snapshot.summary,
      snapshot.sourceUrl,
      textArray(snapshot.domain),
      snapshot.status,
      textArray([...snapshot.termSlugs].sort()),
      actor.id,
      actor.name.slice(0, 320),
    ],
    'run',
  )
}

function textArray(values: readonly string[]): string {
  return `{${values.map((v) => `"${v.replace(/["\\]/g, (c) => `\\${c}`)}"`).join(',')}}`
}

/** Queue or unqueue the page for search according to its status after the save. */
async function syncSearch(
  tx: EntityManager,
  pageId: string,
  status: WikiStatus,
  revision: number,
): Promise<void> {
  if (status === 'published') await enqueueIndex(tx, { sourceType: 'wiki', sourceId: pageId, revision })
  else await removeFromSearch(tx, { sourceType: 'wiki', sourceId: pageId })
}

/** Creates a page at revision 1 (status `draft` unless given). */
export async function createWikiPage(options: {
  input: CreateWikiPageInput
  actor: WikiActor
}): Promise<WikiPageDto> {
  const { input, actor } = options
  return em().transactional(async (tx) => {
    const slug = await chooseWikiSlug(tx, input.title, input.slug)
    const termIds = await resolveTermSlugs(tx, input.termSlugs)
    const id = crypto.randomUUID()
    const snapshot: Snapshot = {
      slug,
      title: input.title,
      content: input.content,
      summary: input.summary,
      sourceUrl: input.sourceUrl ?? null,
      domain: input.domain,
      status: input.status,
      termSlugs: input.termSlugs,
    }
    await tx.execute(
      `insert into wiki_pages (id, slug, title, content, summary, source_url, domain, status, revision,
                               created_by_id, updated_by_id, created_at, updated_at)
       values (?, ?, ?, ?, ?, ?, ?::text[], ?, 1, ?, ?, now(), now())`,
      [
        id,
        slug,
        snapshot.title,
        snapshot.content,
        snapshot.summary,
        snapshot.sourceUrl,
        textArray(snapshot.domain),
        snapshot.status,
        actor.id,
        actor.id,
      ],
      'run',
    )
    await replaceTermLinks(tx, id, [...termIds.values()])
    await insertRevision(tx, id, 1, snapshot, actor)
    await syncSearch(tx, id, snapshot.status, 1)
    return loadWikiPageDto(tx, slug)
  })
}

/**
 * Edits a page: a new revision with the full snapshot. Sending content identical to the current one
 * changes nothing (no revision). `baseRevision`, when given, must be the current revision (409
 * `revision_conflict` otherwise), so two editors never overwrite each other silently.
 */
export async function updateWikiPage(options: {
  slug: string
  input: UpdateWikiPageInput
  actor: WikiActor
}): Promise<WikiPageDto> {
  const { input, actor } = options
  const slug = options.slug.normalize('NFKC').toLowerCase()
  return em().transactional(async (tx) => {
    const current = await loadWikiPageDto(tx, slug)
    // Lock the row so concurrent edits of one page serialize on a multi-connection Postgres.
    await tx.execute('select id from wiki_pages where id = ? for update', [current.id])
    if (input.baseRevision !== undefined && input.baseRevision !== current.revision) {
      throw new AppError(
        'revision_conflict',
        'The page was changed since you opened it. Reload it and edit again.',
        {
          details: { baseRevision: input.baseRevision, currentRevision: current.revision },
        },
      )
    }
    const termIds = input.termSlugs ? await resolveTermSlugs(tx, input.termSlugs) : undefined
    const next: Snapshot = {
      slug: current.slug,
      title: input.title ?? current.title,
      content: input.content ?? current.content,
      summary: input.summary === undefined ? current.summary : input.summary,
      sourceUrl: input.sourceUrl === undefined ? current.sourceUrl : input.sourceUrl,
      domain: input.domain ?? current.domain,
      status: input.status ?? current.status,
      termSlugs: input.termSlugs ?? current.termSlugs,
    }
    const before: Snapshot = {
      slug: current.slug,
      title: current.title,
      content: current.content,
      summary: current.summary,
      sourceUrl: current.sourceUrl,
      domain: current.domain,
      status: current.status,
      termSlugs: current.termSlugs,
    }
    const canonical = (s: Snapshot) => JSON.stringify({ ...s, termSlugs: [...s.termSlugs].sort() })
    if (canonical(next) === canonical(before)) return current
    const revision = current.revision + 1
    await tx.execute(
      `update wiki_pages set title = ?, content = ?, summary = ?, source_url = ?, domain = ?::text[], status = ?,
                             revision = ?, updated_by_id = ?, updated_at = clock_timestamp()
        where id = ?`,
      [
        next.title,
        next.content,
        next.summary,
        next.sourceUrl,
        textArray(next.domain),
        next.status,
        revision,
        actor.id,
        current.id,
      ],
      'run',
    )
    if (termIds) await replaceTermLinks(tx, current.id, [...termIds.values()])
    await insertRevision(tx, current.id, revision, next, actor)
    await syncSearch(tx, current.id, next.status, revision)
    return loadWikiPageDto(tx, current.slug)
  })
}
