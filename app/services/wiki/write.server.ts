import crypto from 'node:crypto'
import type { EntityManager } from '@mikro-orm/postgresql'
import { AppError, validationError } from '#app/lib/errors.server.ts'
import type { CreateWikiPageInput, UpdateWikiPageInput } from '#app/schemas/wiki.ts'
import { enqueueIndex } from '#app/services/index-queue/enqueue.server.ts'
import { leaveSearch } from '#app/services/index-queue/leave-search.server.ts'
import { findTermIdsBySlugs } from '#app/services/terms/store.server.ts'
import { em } from '#db/orm.ts'
import type { WikiStatus } from '#domain/content.ts'
import { loadWikiPageDto, type WikiPageDto } from './read.server.ts'
import { chooseWikiSlug } from './slug.server.ts'
import {
  insertPage,
  insertRevision,
  lockPage,
  markPageDeleted,
  replaceTermLinks,
  setPageTermLinks,
  updatePage,
  type WikiSnapshot,
} from './store.server.ts'

/**
 * Writing wiki pages (docs/decisions/009-wiki-and-meetings.md). Every save is one transaction that writes
 * the page, a complete immutable revision row (author, time, all fields and linked term slugs: the page's
 * history and its audit snapshot) and the search side effects:
 * - the page is `published` after the save → queued on `rag_index_queue` with the new revision;
 * - the page was `published` and is `draft` or `archived` after the save → `leaveSearch`, the one way out
 *   of search (deleted or merged terms and archived meetings take it too).
 * New pages start as `draft` unless the caller gives a status; every move between the three statuses is
 * allowed to a caller who may write.
 */

export interface WikiActor {
  id: string
  name: string
}

/** Term ids for slugs (current slugs; an old slug of a renamed term also resolves). Unknown slugs → 400. */
async function resolveTermSlugs(tx: EntityManager, slugs: readonly string[]): Promise<Map<string, string>> {
  const ids = await findTermIdsBySlugs(tx, slugs)
  const problems = slugs
    .map((slug, i) => ({ slug, i }))
    .filter(({ slug }) => !ids.has(slug))
    .map(({ slug, i }) => ({ path: `termSlugs.${i}`, message: `No term "${slug}".` }))
  if (problems.length) throw validationError(problems)
  return ids
}

/**
 * The search side of a save: a published page is queued at its new revision; a page that was published
 * and no longer is leaves search. A draft or archived page that stays unpublished was never (or is no
 * longer) searchable, so its edits touch nothing.
 */
async function syncSearch(
  tx: EntityManager,
  pageId: string,
  status: { before: WikiStatus | null; after: WikiStatus },
  revision: number,
): Promise<void> {
  if (status.after === 'published') {
    await enqueueIndex(tx, { sourceType: 'wiki', sourceId: pageId, revision })
  } else if (status.before === 'published') {
    await leaveSearch(tx, { kind: 'wiki', id: pageId, revision })
  }
}

/** One save of a page inside a transaction: what create, update and offline sync share. */
export interface WikiSave {
  id: string
  /** The page before the save; null for a new page (written at revision 1). */
  before: { status: WikiStatus; revision: number } | null
  snapshot: WikiSnapshot
  /** The linked terms' ids; undefined keeps the links as they are. */
  termIds: readonly string[] | undefined
  /** Who saves: the account (null for the command line) and the name the revision keeps. */
  actor: { id: string | null; name: string }
}

/**
 * Writes one save inside `tx`: the page row, its term links, the immutable revision row and the search side
 * (`syncSearch`). Answers the page's new revision.
 */
export async function saveWikiPageInTx(tx: EntityManager, save: WikiSave): Promise<number> {
  const revision = save.before ? save.before.revision + 1 : 1
  if (save.before) await updatePage(tx, save.id, save.snapshot, revision, save.actor.id)
  else await insertPage(tx, save.id, save.snapshot, save.actor.id)
  if (save.termIds) await replaceTermLinks(tx, save.id, save.termIds)
  await insertRevision(tx, save.id, revision, save.snapshot, save.actor)
  await syncSearch(
    tx,
    save.id,
    { before: save.before?.status ?? null, after: save.snapshot.status },
    revision,
  )
  return revision
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
    const snapshot: WikiSnapshot = {
      slug,
      title: input.title,
      content: input.content,
      summary: input.summary,
      sourceUrl: input.sourceUrl ?? null,
      domain: input.domain,
      status: input.status,
      termSlugs: input.termSlugs,
    }
    const id = crypto.randomUUID()
    await saveWikiPageInTx(tx, { id, before: null, snapshot, termIds: [...termIds.values()], actor })
    if (!input.termLinks) await setPageTermLinks(tx, id, false)
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
    // Lock, then read: on PostgreSQL an edit that commits while this one waits for the lock would be missing
    // from a read made before it, so a stale `baseRevision` would pass and the revision insert collide.
    await lockPage(tx, (await loadWikiPageDto(tx, slug)).id)
    const current = await loadWikiPageDto(tx, slug)
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
    const next: WikiSnapshot = {
      slug: current.slug,
      title: input.title ?? current.title,
      content: input.content ?? current.content,
      summary: input.summary === undefined ? current.summary : input.summary,
      sourceUrl: input.sourceUrl === undefined ? current.sourceUrl : input.sourceUrl,
      domain: input.domain ?? current.domain,
      status: input.status ?? current.status,
      termSlugs: input.termSlugs ?? current.termSlugs,
    }
    const before: WikiSnapshot = {
      slug: current.slug,
      title: current.title,
      content: current.content,
      summary: current.summary,
      sourceUrl: current.sourceUrl,
      domain: current.domain,
      status: current.status,
      termSlugs: current.termSlugs,
    }
    // Term links are a display setting of the page, not its content: switching them writes no revision.
    const switched = input.termLinks !== undefined && input.termLinks !== current.termLinks
    if (switched) await setPageTermLinks(tx, current.id, input.termLinks!)
    const canonical = (s: WikiSnapshot) => JSON.stringify({ ...s, termSlugs: [...s.termSlugs].sort() })
    if (canonical(next) === canonical(before)) return switched ? loadWikiPageDto(tx, current.slug) : current
    await saveWikiPageInTx(tx, {
      id: current.id,
      before: { status: current.status, revision: current.revision },
      snapshot: next,
      termIds: termIds && [...termIds.values()],
      actor,
    })
    return loadWikiPageDto(tx, current.slug)
  })
}

/**
 * Deletes a page inside `tx` (offline sync: the origin deleted it): `deleted_at` on the row, so it leaves lists
 * and reads while its revisions stay; a published page leaves search. The slug stays taken (slugs are never
 * reused).
 */
export async function deleteWikiPageInTx(
  tx: EntityManager,
  page: { id: string; status: WikiStatus; revision: number },
): Promise<void> {
  await markPageDeleted(tx, page.id)
  if (page.status === 'published')
    await leaveSearch(tx, { kind: 'wiki', id: page.id, revision: page.revision })
}
