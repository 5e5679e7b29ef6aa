import type { EntityManager } from '@mikro-orm/postgresql'
import { AppError } from '#app/lib/errors.server.ts'
import { enqueueIndexMany } from '#app/services/index-queue/enqueue.server.ts'
import { em } from '#db/orm.ts'
import { contentHash, type TermContent } from './content.server.ts'
import { notifyGlossaryChanged } from './events.server.ts'
import {
  bumpGlossaryVersion,
  CLASSIFICATION_TABLES,
  deleteClassificationRow,
  insertClassification,
  loadClassificationIds,
  loadHeads,
  recordDeletion,
  selectClassification,
  selectTermsCarrying,
  updateClassificationRow,
  writeTerms,
  type ClassificationDto,
  type ClassificationKind,
  type TermWrite,
} from './store.server.ts'

export type { ClassificationDto, ClassificationKind }

/**
 * The classification scheme: domains and business categories, managed by administrators. A change reaches
 * the search index in the same transaction: renaming or re-sorting an entry queues every searchable term
 * that carries it (their indexed content shows the names), and deleting one removes it from those terms
 * with a new revision each (note `classification: … removed`), so revisions keep holding the full content.
 * Merged terms keep their classification but are never queued: they left search when they were merged.
 */

/** Every entry, in display order, with how many live terms carry it. */
export async function listClassification(options: {
  kind: ClassificationKind
}): Promise<{ items: ClassificationDto[] }> {
  return { items: await selectClassification(em(), options.kind) }
}

export async function createClassification(options: {
  kind: ClassificationKind
  input: { key: string; nameKo: string; nameEn: string; sort: number }
}): Promise<ClassificationDto> {
  const { label } = CLASSIFICATION_TABLES[options.kind]
  return em().transactional(async (tx) => {
    if ((await selectClassification(tx, options.kind, options.input.key)).length) {
      throw new AppError('conflict', `The ${label} "${options.input.key}" already exists.`, {
        details: { problems: [{ path: 'key', message: 'already used by another entry' }] },
      })
    }
    await insertClassification(tx, options.kind, options.input)
    return (await selectClassification(tx, options.kind, options.input.key))[0]!
  })
}

/**
 * The renaming or re-sorting of an entry inside `tx`: the row, and every searchable term carrying it queued
 * (their indexed content shows the names). Offline sync applies a changed entry through it too.
 */
export async function updateClassificationInTx(
  tx: EntityManager,
  kind: ClassificationKind,
  id: string,
  entry: { nameKo: string; nameEn: string; sort: number },
): Promise<void> {
  await updateClassificationRow(tx, kind, id, entry)
  const terms = await selectTermsCarrying(tx, kind, id)
  await enqueueIndexMany(
    tx,
    terms
      .filter((x) => x.status !== 'merged')
      .map((x) => ({ sourceType: 'term' as const, sourceId: x.id, revision: x.revision })),
  )
}

/** Renames or re-sorts an entry and queues every searchable term carrying it, in one transaction. */
export async function updateClassification(options: {
  kind: ClassificationKind
  key: string
  input: { nameKo?: string; nameEn?: string; sort?: number }
}): Promise<ClassificationDto> {
  const { label } = CLASSIFICATION_TABLES[options.kind]
  return em().transactional(async (tx) => {
    const [entry] = await selectClassification(tx, options.kind, options.key)
    if (!entry) throw new AppError('not_found', `No ${label} "${options.key}".`)
    await updateClassificationInTx(tx, options.kind, entry.id, {
      nameKo: options.input.nameKo ?? entry.nameKo,
      nameEn: options.input.nameEn ?? entry.nameEn,
      sort: options.input.sort ?? entry.sort,
    })
    return (await selectClassification(tx, options.kind, options.key))[0]!
  })
}

/**
 * The deletion of an entry inside `tx` (`version` from `bumpGlossaryVersion`, taken first): every term carrying
 * it gets a new revision without it (and is queued), the row goes and a tombstone is recorded. Answers how many
 * terms changed. Offline sync deletes an entry the origin deleted through it too.
 */
export async function deleteClassificationInTx(
  tx: EntityManager,
  kind: ClassificationKind,
  entry: { id: string; key: string },
  actorId: string | null,
  version: number,
): Promise<number> {
  const { field, label } = CLASSIFICATION_TABLES[kind]
  const terms = await selectTermsCarrying(tx, kind, entry.id)
  const heads = await loadHeads(
    tx,
    terms.map((x) => x.id),
    true,
  )
  const ids = await loadClassificationIds(tx)
  const writes: TermWrite[] = []
  for (const head of heads.values()) {
    const content: TermContent = {
      ...head.content,
      [field]: head.content[field].filter((k) => k !== entry.key),
    }
    writes.push({
      id: head.id,
      isNew: false,
      revision: head.revision + 1,
      content,
      hash: contentHash(content),
      note: `classification: ${label} ${entry.key} removed`,
      authorId: actorId,
      mergedIntoId: head.mergedIntoId,
    })
  }
  await writeTerms(tx, writes, ids, version)
  await deleteClassificationRow(tx, kind, entry.id)
  await recordDeletion(tx, { type: kind, id: entry.id }, actorId)
  return writes.length
}

/** Deletes an entry: every term carrying it gets a new revision without it (and is queued). */
export async function deleteClassification(options: {
  kind: ClassificationKind
  key: string
  actorId: string
}): Promise<{ affectedTerms: number }> {
  const { label } = CLASSIFICATION_TABLES[options.kind]
  const count = await em().transactional(async (tx) => {
    const version = await bumpGlossaryVersion(tx)
    const [entry] = await selectClassification(tx, options.kind, options.key)
    if (!entry) throw new AppError('not_found', `No ${label} "${options.key}".`)
    return deleteClassificationInTx(tx, options.kind, entry, options.actorId, version)
  })
  if (count) notifyGlossaryChanged()
  return { affectedTerms: count }
}
