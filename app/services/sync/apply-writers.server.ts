import type { EntityManager } from '@mikro-orm/postgresql'
import { AppError } from '#app/lib/errors.server.ts'
import { leaveSearch } from '#app/services/index-queue/leave-search.server.ts'
import {
  upsertApprovedRelations,
  deleteRelations,
  selectRelationsByKey,
  selectTermHeads,
} from '#app/services/relations/store.server.ts'
import {
  deleteClassificationInTx,
  updateClassificationInTx,
} from '#app/services/terms/classification.server.ts'
import { contentHash, contentProblems, type TermContent } from '#app/services/terms/content.server.ts'
import { diffTermContent } from '#app/services/terms/read.server.ts'
import {
  classificationProblems,
  insertClassification,
  loadClassificationIds,
  loadHeads,
  markTermDeleted,
  recordDeletion,
  replaceOldSlugs,
  selectClassification,
  termsAtAddresses,
  writeTerms,
  type TermWrite,
} from '#app/services/terms/store.server.ts'
import { chooseWikiSlug } from '#app/services/wiki/slug.server.ts'
import { setPageTermLinks } from '#app/services/wiki/store.server.ts'
import { deleteWikiPageInTx, saveWikiPageInTx } from '#app/services/wiki/write.server.ts'
import type { BundleItem, SyncItemType } from '#sync/bundle-schema.ts'
import type { ApplyContext, PlanEntry } from './apply-context.server.ts'
import { rewriteAttachmentRefs, type LocalItem } from './items.server.ts'
import { selectMappedItems } from './receiver-store.server.ts'

/**
 * How each type is written at the receiver, through the same store functions and in-transaction save paths
 * the services use (terms: `writeTerms`, which queues the index; wiki pages: `saveWikiPageInTx`; domains and
 * categories: the classification rules; relations: the relations store), so a synced item obeys the rules a
 * local save does. The decisions of rules a, b and d are taken before (apply-items.server.ts); what is left
 * here is each type's own: conflicts (rule e), "same content, no revision", and deletions (rule c).
 */

export type ItemOf<T extends SyncItemType> = Extract<BundleItem, { type: T }>

/** An item to write: a new local item, or the mapped one updated. */
export interface ItemWrite<T extends SyncItemType> {
  item: ItemOf<T>
  localId: string
  /** The local copy before the write (updates of a copy that is still here). */
  local: LocalItem<T> | undefined
  /** Why it is written although it changed here too (rule d), or restored after a local deletion. */
  reason?: string
}

/** What became of one write: its report line but for the ids and type the caller adds. */
export type WriteOutcome = Pick<PlanEntry, 'title' | 'action' | 'reason' | 'changes'>

export interface TypeWriter<T extends SyncItemType> {
  /** Report titles of a batch of items, by origin id. */
  titles(ctx: ApplyContext, items: readonly ItemOf<T>[]): Promise<Map<string, string>>
  /** Writes a batch; answers an outcome per write, in order. */
  write(ctx: ApplyContext, writes: readonly ItemWrite<T>[]): Promise<WriteOutcome[]>
  /** Deletes local items the origin deleted (rule c). */
  remove(ctx: ApplyContext, locals: readonly LocalItem<T>[]): Promise<void>
  /**
   * A mapped item whose local copy is gone here (deleted, or for a relation no longer approved) and that the
   * origin changed comes back under its old local id (true: the row is still there to overwrite) or as a new
   * item (false: terms and pages keep their deleted row and its history).
   */
  restoresInPlace: boolean
}

const syncNote = (ctx: ApplyContext, item: { revision: number }) =>
  `sync: ${ctx.origin.name} r${item.revision}`

const conflict = (title: string, reason: string): WriteOutcome => ({ title, action: 'conflict', reason })

/** Origin term ids → the local terms they are mapped to (this origin's map). */
async function localTermIds(ctx: ApplyContext, originIds: readonly string[]): Promise<Map<string, string>> {
  const mapped = await selectMappedItems(ctx.tx, ctx.origin.id, 'term', [...new Set(originIds)])
  return new Map([...mapped].map(([originId, m]) => [originId, m.localId]))
}

/** Why an item that needs the origin term `originId` cannot have it here. */
function missingTermReason(ctx: ApplyContext, originId: string): string {
  return ctx.skippedTerms.has(originId)
    ? `it needs the term ${originId}, which this bundle skipped as a conflict`
    : `it needs the term ${originId}, which is not here`
}

// ── Domains and categories ──────────────────────────────────────────────────────────────────────────────

function classificationWriter(kind: 'domain' | 'category'): TypeWriter<typeof kind> {
  return {
    restoresInPlace: false,
    titles: async (_ctx, items) => new Map(items.map((i) => [i.id, i.content.key])),
    async write(ctx, writes) {
      const byKey = new Map((await selectClassification(ctx.tx, kind)).map((c) => [c.key, c]))
      const outcomes: WriteOutcome[] = []
      for (const w of writes) {
        const c = w.item.content
        const entry = { nameKo: c.nameKo, nameEn: c.nameEn, sort: c.sort }
        if (!w.local) {
          const holder = byKey.get(c.key)
          if (holder) {
            outcomes.push(conflict(c.key, `the key "${c.key}" is used here by another ${kind}`))
            continue
          }
          await insertClassification(ctx.tx, kind, { id: w.localId, key: c.key, ...entry })
          outcomes.push({ title: c.key, action: 'create', reason: w.reason })
        } else if (
          w.local.content.nameKo === c.nameKo &&
          w.local.content.nameEn === c.nameEn &&
          w.local.content.sort === c.sort
        ) {
          outcomes.push({ title: c.key, action: 'unchanged', reason: 'the same here already' })
        } else {
          await updateClassificationInTx(ctx.tx, kind, w.localId, entry)
          outcomes.push({ title: c.key, action: 'update', reason: w.reason })
        }
      }
      return outcomes
    },
    async remove(ctx, locals) {
      for (const local of locals) {
        const changed = await deleteClassificationInTx(
          ctx.tx,
          kind,
          { id: local.id, key: local.content.key },
          ctx.actor.id,
          ctx.version,
        )
        if (changed) ctx.termsChanged = true
      }
    },
  }
}

// ── Terms ───────────────────────────────────────────────────────────────────────────────────────────────

/** The local content of a term: the carried one without what the term row keeps apart, images rewritten. */
function termContent(ctx: ApplyContext, c: ItemOf<'term'>['content']): TermContent {
  return {
    slug: c.slug,
    name: c.name,
    fullName: c.fullName,
    nameEn: c.nameEn,
    nameKo: c.nameKo,
    notations: c.notations,
    domains: c.domains,
    categories: c.categories,
    tags: c.tags,
    status: c.status,
    definition: c.definition,
    body: rewriteAttachmentRefs(c.body, ctx.images),
  }
}

/**
 * Rule e for a batch of terms: origin id → why the term cannot take its addresses (the first current or old
 * address a different local term uses, named), for those that cannot. A merge is no conflict: a merged term's
 * slug is an old address of the term it was merged into, so the survivor and the terms merged into it (here,
 * or by this bundle) may share addresses.
 */
async function addressConflicts(
  ctx: ApplyContext,
  writes: readonly { w: ItemWrite<'term'>; mergedIntoId: string | null }[],
): Promise<Map<string, string>> {
  const slugs = writes.flatMap(({ w }) => [w.item.content.slug, ...w.item.content.oldSlugs])
  const holders = await termsAtAddresses(ctx.tx, slugs)
  const others = [...new Set([...holders.values()].flat())]
  const heads = await loadHeads(ctx.tx, others)
  const mergedHere = await localTermIds(ctx, [...ctx.mergedInto.keys()])
  const out = new Map<string, string>()
  for (const { w, mergedIntoId } of writes) {
    const mergesInto = (holder: string) =>
      heads.get(holder)?.mergedIntoId === w.localId ||
      [...ctx.mergedInto].some(([from, into]) => into === w.item.id && mergedHere.get(from) === holder)
    for (const slug of [w.item.content.slug, ...w.item.content.oldSlugs]) {
      const other = (holders.get(slug) ?? []).find(
        (holder) => holder !== w.localId && holder !== mergedIntoId && !mergesInto(holder),
      )
      if (other) {
        const name = heads.get(other)?.content.name ?? other
        out.set(w.item.id, `the address "${slug}" is used here by the term "${name}"`)
        break
      }
    }
  }
  return out
}

const termWriter: TypeWriter<'term'> = {
  restoresInPlace: false,
  titles: async (_ctx, items) => new Map(items.map((i) => [i.id, i.content.name])),
  async write(ctx, writes) {
    const { tx } = ctx
    const ids = await loadClassificationIds(tx)
    const heads = await loadHeads(
      tx,
      writes.filter((w) => w.local).map((w) => w.localId),
      true,
    )
    const survivors = await localTermIds(
      ctx,
      writes.flatMap((w) => (w.item.content.mergedInto ? [w.item.content.mergedInto] : [])),
    )
    const prepared = writes.map((w) => ({
      w,
      content: termContent(ctx, w.item.content),
      mergedIntoId: w.item.content.mergedInto ? (survivors.get(w.item.content.mergedInto) ?? null) : null,
    }))
    const addressTaken = await addressConflicts(ctx, prepared)
    const outcomes: WriteOutcome[] = []
    const termWrites: TermWrite[] = []
    const oldSlugs: { termId: string; slugs: string[] }[] = []
    const leaving: { id: string; revision: number }[] = []
    for (const { w, content, mergedIntoId } of prepared) {
      const title = content.name
      const problems = [...contentProblems(content), ...classificationProblems(content, ids)]
      const reason =
        (w.item.content.mergedInto && !mergedIntoId && missingTermReason(ctx, w.item.content.mergedInto)) ||
        addressTaken.get(w.item.id) ||
        (problems.length ? problems.map((p) => p.message).join(' ') : undefined)
      if (reason) {
        ctx.skippedTerms.add(w.item.id)
        outcomes.push(conflict(title, reason))
        continue
      }
      oldSlugs.push({ termId: w.localId, slugs: w.item.content.oldSlugs })
      const head = heads.get(w.localId)
      const hash = contentHash(content)
      if (head && hash === head.contentHash && head.mergedIntoId === mergedIntoId) {
        outcomes.push({ title, action: 'unchanged', reason: 'the same content here already' })
        continue
      }
      const revision = head ? head.revision + 1 : 1
      termWrites.push({
        id: w.localId,
        isNew: !head,
        revision,
        content,
        hash,
        note: syncNote(ctx, w.item),
        authorId: ctx.actor.id,
        mergedIntoId,
      })
      // A term merged at the origin leaves search here too, as a merge does (writeTerms never queues it).
      if (content.status === 'merged' && head?.status !== 'merged') leaving.push({ id: w.localId, revision })
      outcomes.push(
        head
          ? {
              title,
              action: 'update',
              reason: w.reason,
              changes: diffTermContent(head.content, content).filter((d) => d.changed),
            }
          : { title, action: 'create', reason: w.reason },
      )
    }
    await writeTerms(tx, termWrites, ids, ctx.version)
    await replaceOldSlugs(tx, oldSlugs)
    for (const source of leaving) await leaveSearch(tx, { kind: 'term', ...source })
    if (termWrites.length) ctx.termsChanged = true
    return outcomes
  },
  async remove(ctx, locals) {
    // As DELETE /terms does: a tombstone, the addresses freed, out of search.
    for (const local of locals) {
      await markTermDeleted(ctx.tx, local.id, ctx.actor.id, ctx.version)
      await recordDeletion(ctx.tx, { type: 'term', id: local.id }, ctx.actor.id)
      await leaveSearch(ctx.tx, { kind: 'term', id: local.id, revision: local.revision })
    }
    if (locals.length) ctx.termsChanged = true
  },
}

// ── Relations ───────────────────────────────────────────────────────────────────────────────────────────

/** `source:target:type` of a relation between local terms, as `selectRelationsByKey` answers. */
const relationKey = (s: string, t: string, type: string) => `${s}:${t}:${type}`

/** A relation's report title: its terms' local names (origin ids while they are not here) and its type. */
async function relationTitles(
  ctx: ApplyContext,
  items: readonly ItemOf<'relation'>[],
): Promise<Map<string, string>> {
  const terms = await localTermIds(
    ctx,
    items.flatMap((i) => [i.content.sourceTermId, i.content.targetTermId]),
  )
  const heads = await loadHeads(ctx.tx, [...new Set(terms.values())])
  const name = (originId: string) => heads.get(terms.get(originId) ?? '')?.content.name ?? originId
  return new Map(
    items.map((i) => [
      i.id,
      `${name(i.content.sourceTermId)} ${i.content.relationType} ${name(i.content.targetTermId)}`,
    ]),
  )
}

const relationWriter: TypeWriter<'relation'> = {
  restoresInPlace: true,
  titles: relationTitles,
  async write(ctx, writes) {
    const titles = await relationTitles(
      ctx,
      writes.map((w) => w.item),
    )
    const terms = await localTermIds(
      ctx,
      writes.flatMap((w) => [w.item.content.sourceTermId, w.item.content.targetTermId]),
    )
    const live = await selectTermHeads(ctx.tx, [...new Set(terms.values())])
    const ends = writes.map((w) => ({
      source: terms.get(w.item.content.sourceTermId),
      target: terms.get(w.item.content.targetTermId),
    }))
    const holders = await selectRelationsByKey(
      ctx.tx,
      writes.flatMap((w, i) => {
        const { source, target } = ends[i]!
        return source && target
          ? [{ sourceTermId: source, targetTermId: target, relationType: w.item.content.relationType }]
          : []
      }),
    )
    const outcomes: WriteOutcome[] = []
    const rows: Parameters<typeof upsertApprovedRelations>[1][number][] = []
    writes.forEach((w, i) => {
      const c = w.item.content
      const title = titles.get(w.item.id)!
      const { source, target } = ends[i]!
      if (!source || !target) {
        outcomes.push(conflict(title, missingTermReason(ctx, source ? c.targetTermId : c.sourceTermId)))
        return
      }
      if (!live.has(source) || !live.has(target)) {
        outcomes.push(conflict(title, 'a term it needs was deleted here'))
        return
      }
      const holder = holders.get(relationKey(source, target, c.relationType))
      if (holder && holder !== w.localId) {
        outcomes.push(conflict(title, 'a relation with the same terms and type exists here'))
        return
      }
      const row = {
        id: w.localId,
        sourceTermId: source,
        targetTermId: target,
        relationType: c.relationType,
        evidenceMd: c.evidenceMd,
      }
      const l = w.local?.content
      if (
        l &&
        l.sourceTermId === source &&
        l.targetTermId === target &&
        l.relationType === c.relationType &&
        l.evidenceMd === c.evidenceMd
      ) {
        outcomes.push({ title, action: 'unchanged', reason: 'the same here already' })
        return
      }
      rows.push(row)
      outcomes.push({ title, action: w.local ? 'update' : 'create', reason: w.reason })
    })
    await upsertApprovedRelations(ctx.tx, rows, ctx.actor.id)
    return outcomes
  },
  async remove(ctx, locals) {
    await deleteRelations(
      ctx.tx,
      locals.map((l) => l.id),
    )
  },
}

// ── Wiki pages ──────────────────────────────────────────────────────────────────────────────────────────

/** The slug a new page may take, or why not (rule e for pages: the wiki's own address rule decides). */
async function pageSlugProblem(tx: EntityManager, item: ItemOf<'wiki'>): Promise<string | undefined> {
  try {
    await chooseWikiSlug(tx, item.content.title, item.content.slug)
    return undefined
  } catch (error) {
    if (error instanceof AppError && error.code === 'slug_taken') return error.message
    throw error
  }
}

const sameList = (a: readonly string[], b: readonly string[]) =>
  JSON.stringify([...a].sort()) === JSON.stringify([...b].sort())

const wikiWriter: TypeWriter<'wiki'> = {
  restoresInPlace: false,
  titles: async (_ctx, items) => new Map(items.map((i) => [i.id, i.content.title])),
  async write(ctx, writes) {
    const terms = await localTermIds(
      ctx,
      writes.flatMap((w) => w.item.content.termIds),
    )
    const heads = await loadHeads(ctx.tx, [...new Set(terms.values())])
    const outcomes: WriteOutcome[] = []
    for (const w of writes) {
      const c = w.item.content
      const title = c.title
      const missing = c.termIds.find((id) => !terms.has(id))
      if (missing) {
        outcomes.push(conflict(title, missingTermReason(ctx, missing)))
        continue
      }
      // A linked term deleted here is no longer linked, as a page's links skip deleted terms everywhere.
      const termIds = c.termIds.map((id) => terms.get(id)!).filter((id) => heads.has(id))
      const content = rewriteAttachmentRefs(c.content, ctx.images)
      const local = w.local?.content
      const linksOn = c.termLinks ?? true
      if (!local) {
        const problem = await pageSlugProblem(ctx.tx, w.item)
        if (problem) {
          outcomes.push(conflict(title, problem))
          continue
        }
      } else if (
        local.title === c.title &&
        local.content === content &&
        local.summary === c.summary &&
        local.sourceUrl === c.sourceUrl &&
        sameList(local.domain, c.domain) &&
        local.status === c.status &&
        sameList(local.termIds, termIds)
      ) {
        // Term links are a display setting without a revision: switching them is all the update there is.
        if ((local.termLinks ?? true) === linksOn) {
          outcomes.push({ title, action: 'unchanged', reason: 'the same content here already' })
        } else {
          await setPageTermLinks(ctx.tx, w.localId, linksOn)
          outcomes.push({ title, action: 'update', reason: w.reason })
        }
        continue
      }
      await saveWikiPageInTx(ctx.tx, {
        id: w.localId,
        before: w.local ? { status: w.local.content.status, revision: w.local.revision } : null,
        snapshot: {
          slug: local?.slug ?? c.slug,
          title: c.title,
          content,
          summary: c.summary,
          sourceUrl: c.sourceUrl,
          domain: c.domain,
          status: c.status,
          termSlugs: termIds.map((id) => heads.get(id)!.slug),
        },
        termIds,
        // Page revisions have no note: the one a term revision gets goes with the name the revision keeps.
        actor: { id: ctx.actor.id, name: `${ctx.actor.label} (${syncNote(ctx, w.item)})` },
      })
      if ((local?.termLinks ?? true) !== linksOn) await setPageTermLinks(ctx.tx, w.localId, linksOn)
      outcomes.push({ title, action: w.local ? 'update' : 'create', reason: w.reason })
    }
    return outcomes
  },
  async remove(ctx, locals) {
    for (const local of locals) {
      await deleteWikiPageInTx(ctx.tx, {
        id: local.id,
        status: local.content.status,
        revision: local.revision,
      })
    }
  },
}

/** The writer of each type. */
export const WRITERS: { [T in SyncItemType]: TypeWriter<T> } = {
  domain: classificationWriter('domain') as TypeWriter<'domain'>,
  category: classificationWriter('category') as TypeWriter<'category'>,
  term: termWriter,
  relation: relationWriter,
  wiki: wikiWriter,
}
