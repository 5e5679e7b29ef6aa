import crypto from 'node:crypto'
import type { EntityManager } from '@mikro-orm/postgresql'
import { AppError, validationError } from '#app/lib/errors.server.ts'
import { leaveSearch } from '#app/services/index-queue/leave-search.server.ts'
import {
  RESERVED_SLUGS,
  type CreateTermInput,
  type MergeTermInput,
  type UpdateTermInput,
} from '#app/schemas/terms.ts'
import { em } from '#db/orm.ts'
import { slugFromName } from '#domain/slug.ts'
import {
  contentHash,
  contentProblems,
  termForms,
  type TermContent,
  type TermNotationValue,
} from './content.server.ts'
import { notifyGlossaryChanged } from './events.server.ts'
import {
  assertNoProblems,
  assertSlugFree,
  bumpGlossaryVersion,
  classificationProblems,
  loadClassificationIds,
  loadHeads,
  loadTermDtos,
  markTermDeleted,
  moveAddresses,
  recordDeletion,
  recordRename,
  resolveTermId,
  termSlugsStartingWith,
  writeTerms,
  type TermDto,
  type TermHead,
  type TermWrite,
} from './store.server.ts'

/**
 * Saving terms. Every save is one transaction that writes a new immutable revision, the term's current
 * columns and notations, and its `rag_index_queue` row; the in-memory matchers hear about it after commit.
 * Rules (docs/decisions/006-term-model.md): identical content creates no revision; a PATCH names the
 * revision it started from and a stale one is refused with 409 `revision_conflict`; merged terms are
 * read-only (409 `term_merged`).
 */

async function freeSlugFrom(tx: EntityManager, base: string): Promise<string> {
  const taken = new Set([...(await termSlugsStartingWith(tx, base)), ...RESERVED_SLUGS])
  if (!taken.has(base)) return base
  for (let n = 2; ; n++) if (!taken.has(`${base}-${n}`)) return `${base}-${n}`
}

/**
 * Creates a term at revision 1 inside `tx`; returns its id. `version` comes from `bumpGlossaryVersion`, which
 * the transaction calls first.
 */
export async function createTermInTx(
  tx: EntityManager,
  input: CreateTermInput,
  actorId: string,
  version: number,
): Promise<string> {
  const ids = await loadClassificationIds(tx)
  const content: TermContent = {
    slug: input.slug ?? (await freeSlugFrom(tx, slugFromName(input.name))),
    name: input.name,
    fullName: input.fullName ?? null,
    nameEn: input.nameEn ?? null,
    nameKo: input.nameKo ?? null,
    notations: input.notations,
    domains: [...new Set(input.domains)],
    categories: [...new Set(input.categories)],
    tags: [...new Set(input.tags)],
    status: input.status ?? (input.definition.trim() ? 'active' : 'needs_completion'),
    definition: input.definition,
    body: input.body,
  }
  assertNoProblems([...contentProblems(content), ...classificationProblems(content, ids)])
  await assertSlugFree(tx, content.slug, null)
  const id = crypto.randomUUID()
  await writeTerms(
    tx,
    [
      {
        id,
        isNew: true,
        revision: 1,
        content,
        hash: contentHash(content),
        note: input.note,
        authorId: actorId,
      },
    ],
    ids,
    version,
  )
  return id
}

/** Creates a term at revision 1. */
export async function createTerm(options: { input: CreateTermInput; actorId: string }): Promise<TermDto> {
  const dto = await em().transactional(async (tx) => {
    const version = await bumpGlossaryVersion(tx)
    const id = await createTermInTx(tx, options.input, options.actorId, version)
    return (await loadTermDtos(tx, [id]))[0]!
  })
  notifyGlossaryChanged()
  return dto
}

function assertEditable(head: TermHead): void {
  if (head.status === 'merged') {
    throw new AppError('term_merged', 'This term was merged into another one and is read-only.', {
      details: { mergedIntoId: head.mergedIntoId },
    })
  }
}

/**
 * Applies a partial update. `baseRevision` must equal the current revision, else 409 `revision_conflict`
 * (details carry `currentRevision`), so two editors never overwrite each other silently. Returns the term;
 * its revision is unchanged when the content did not change.
 */
export async function updateTerm(options: {
  idOrSlug: string
  input: UpdateTermInput
  actorId: string
}): Promise<TermDto> {
  const { input } = options
  let changed = false
  const dto = await em().transactional(async (tx) => {
    const version = await bumpGlossaryVersion(tx)
    const id = await resolveTermId(tx, options.idOrSlug)
    const head = (await loadHeads(tx, [id], true)).get(id)!
    assertEditable(head)
    if (input.baseRevision !== head.revision) {
      throw new AppError(
        'revision_conflict',
        `Someone else saved revision ${head.revision} after the revision ${input.baseRevision} this edit started from.`,
        { details: { currentRevision: head.revision, baseRevision: input.baseRevision } },
      )
    }
    const ids = await loadClassificationIds(tx)
    const pick = <K extends keyof TermContent>(key: K): TermContent[K] =>
      (input[key as keyof UpdateTermInput] === undefined
        ? head.content[key]
        : input[key as keyof UpdateTermInput]) as TermContent[K]
    const content: TermContent = {
      slug: pick('slug'),
      name: pick('name'),
      fullName: pick('fullName') ?? null,
      nameEn: pick('nameEn') ?? null,
      nameKo: pick('nameKo') ?? null,
      notations: pick('notations'),
      domains: [...new Set(pick('domains'))],
      categories: [...new Set(pick('categories'))],
      tags: [...new Set(pick('tags'))],
      status: pick('status'),
      definition: pick('definition'),
      body: pick('body'),
    }
    assertNoProblems([...contentProblems(content), ...classificationProblems(content, ids)])
    const hash = contentHash(content)
    if (hash !== head.contentHash) {
      changed = true
      if (content.slug !== head.slug) {
        await assertSlugFree(tx, content.slug, id)
        await recordRename(tx, id, head.slug, content.slug)
      }
      await writeTerms(
        tx,
        [
          {
            id,
            isNew: false,
            revision: head.revision + 1,
            content,
            hash,
            note: input.note,
            authorId: options.actorId,
          },
        ],
        ids,
        version,
      )
    }
    return (await loadTermDtos(tx, [id]))[0]!
  })
  if (changed) notifyGlossaryChanged()
  return dto
}

/**
 * Deletes a term (admin): a tombstone (`deleted_at` on the row and a `deletions` record for offline sync);
 * the term leaves lists, search, lookup and validation, its addresses are freed and it leaves search
 * (`leaveSearch`).
 */
export async function deleteTerm(options: { idOrSlug: string; actorId: string }): Promise<void> {
  await em().transactional(async (tx) => {
    const version = await bumpGlossaryVersion(tx)
    const id = await resolveTermId(tx, options.idOrSlug)
    const head = (await loadHeads(tx, [id], true)).get(id)!
    await markTermDeleted(tx, id, options.actorId, version)
    await recordDeletion(tx, { type: 'term', id }, options.actorId)
    await leaveSearch(tx, { kind: 'term', id, revision: head.revision })
  })
  notifyGlossaryChanged()
}

/**
 * Merges a term into another. The source gets a last revision in status `merged` and becomes read-only;
 * its slug and old slugs become old addresses of the survivor; its names and notations are added to the
 * survivor as `admitted` notations (deprecated ones stay deprecated) unless the survivor already has them,
 * so lookups of the old names still find the survivor. The survivor is queued for indexing; the merged term
 * leaves search (`leaveSearch`), the same path as a deletion.
 */
export async function mergeTerm(options: {
  idOrSlug: string
  input: MergeTermInput
  actorId: string
}): Promise<{ merged: TermDto; into: TermDto }> {
  const result = await em().transactional(async (tx) => {
    const version = await bumpGlossaryVersion(tx)
    const sourceId = await resolveTermId(tx, options.idOrSlug)
    const targetId = await resolveTermId(tx, options.input.into)
    if (sourceId === targetId) {
      throw validationError([{ path: 'into', message: 'A term cannot be merged into itself.' }])
    }
    const heads = await loadHeads(tx, [sourceId, targetId], true)
    const source = heads.get(sourceId)!
    const target = heads.get(targetId)!
    assertEditable(source)
    if (target.status === 'merged') {
      throw new AppError('term_merged', 'The surviving term was itself merged; merge into its survivor.')
    }
    const ids = await loadClassificationIds(tx)
    const note = options.input.note || `merged into ${target.slug}`
    const sourceContent: TermContent = { ...source.content, status: 'merged' }
    // Forms that differ only by letter case are distinct notations (docs/decisions/013-letter-case.md).
    const present = new Set(termForms(target.content).map((f) => f.cased))
    const added: TermNotationValue[] = []
    for (const form of termForms(source.content)) {
      if (present.has(form.cased)) continue
      present.add(form.cased)
      added.push({
        text: form.text,
        kind: form.kind === 'deprecated' ? 'deprecated' : 'admitted',
        lang: form.lang,
      })
    }
    const targetContent: TermContent = {
      ...target.content,
      notations: [...target.content.notations, ...added],
    }
    const writes: TermWrite[] = [
      {
        id: sourceId,
        isNew: false,
        revision: source.revision + 1,
        content: sourceContent,
        hash: contentHash(sourceContent),
        note,
        authorId: options.actorId,
        mergedIntoId: targetId,
      },
    ]
    const targetHash = contentHash(targetContent)
    if (targetHash !== target.contentHash) {
      writes.push({
        id: targetId,
        isNew: false,
        revision: target.revision + 1,
        content: targetContent,
        hash: targetHash,
        note: `merged ${source.slug} into this term`,
        authorId: options.actorId,
        mergedIntoId: null,
      })
    }
    await moveAddresses(tx, source, targetId)
    await writeTerms(tx, writes, ids, version)
    await leaveSearch(tx, { kind: 'term', id: sourceId, revision: source.revision + 1 })
    const [merged, into] = await loadTermDtos(tx, [sourceId, targetId])
    return { merged: merged!, into: into! }
  })
  notifyGlossaryChanged()
  return result
}
