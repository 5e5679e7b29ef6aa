import crypto from 'node:crypto'
import { AppError } from '#app/lib/errors.server.ts'
import { enqueueIndexMany } from '#app/services/index-queue/enqueue.server.ts'
import { em } from '#db/orm.ts'
import { contentHash, type TermContent } from './content.server.ts'
import { notifyGlossaryChanged } from './events.server.ts'
import {
  bumpGlossaryVersion,
  loadClassificationIds,
  loadHeads,
  writeTerms,
  type TermWrite,
} from './store.server.ts'

/**
 * The classification scheme: domains and business categories, managed by administrators. A change reaches
 * the search index in the same transaction: renaming or re-sorting an entry queues every term that carries
 * it (their indexed content shows the names), and deleting one removes it from those terms with a new
 * revision each (note `classification: … removed`), so revisions keep holding the full content.
 */
export type ClassificationKind = 'domain' | 'category'

const TABLES = {
  domain: { table: 'domains', link: 'term_domains', ref: 'domain_id', field: 'domains', label: 'domain' },
  category: {
    table: 'business_categories',
    link: 'term_categories',
    ref: 'category_id',
    field: 'categories',
    label: 'business category',
  },
} as const

export interface ClassificationDto {
  id: string
  key: string
  nameKo: string
  nameEn: string
  sort: number
  termCount: number
  createdAt: string
  updatedAt: string
}

interface Row {
  id: string
  key: string
  name_ko: string
  name_en: string
  sort: number
  term_count: string | number
  created_at: Date | string
  updated_at: Date | string
}

const iso = (v: Date | string) => (v instanceof Date ? v : new Date(v)).toISOString()
const toDto = (r: Row): ClassificationDto => ({
  id: r.id,
  key: r.key,
  nameKo: r.name_ko,
  nameEn: r.name_en,
  sort: r.sort,
  termCount: Number(r.term_count),
  createdAt: iso(r.created_at),
  updatedAt: iso(r.updated_at),
})

async function select(
  manager: ReturnType<typeof em>,
  kind: ClassificationKind,
  key?: string,
): Promise<Row[]> {
  const t = TABLES[kind]
  return manager.execute<Row[]>(
    `select c.id, c.key, c.name_ko, c.name_en, c.sort, c.created_at, c.updated_at,
            (select count(*) from ${t.link} l join terms x on x.id = l.term_id
              where l.${t.ref} = c.id and x.deleted_at is null and x.status <> 'merged') as term_count
       from ${t.table} c ${key ? 'where c.key = ?' : ''} order by c.sort, c.key`,
    key ? [key] : [],
  )
}

/** Every entry, in display order, with how many live terms carry it. */
export async function listClassification(options: {
  kind: ClassificationKind
}): Promise<{ items: ClassificationDto[] }> {
  return { items: (await select(em(), options.kind)).map(toDto) }
}

export async function createClassification(options: {
  kind: ClassificationKind
  input: { key: string; nameKo: string; nameEn: string; sort: number }
}): Promise<ClassificationDto> {
  const t = TABLES[options.kind]
  return em().transactional(async (tx) => {
    const exists = await tx.execute(`select 1 from ${t.table} where key = ?`, [options.input.key])
    if (exists.length) throw new AppError('conflict', `The ${t.label} "${options.input.key}" already exists.`)
    await tx.execute(
      `insert into ${t.table} (id, key, name_ko, name_en, sort, created_at, updated_at) values (?, ?, ?, ?, ?, now(), now())`,
      [
        crypto.randomUUID(),
        options.input.key,
        options.input.nameKo,
        options.input.nameEn,
        options.input.sort,
      ],
      'run',
    )
    return toDto((await select(tx, options.kind, options.input.key))[0]!)
  })
}

async function affectedTerms(tx: ReturnType<typeof em>, kind: ClassificationKind, id: string) {
  const t = TABLES[kind]
  return tx.execute<{ id: string; revision: number }[]>(
    `select x.id, x.revision from ${t.link} l join terms x on x.id = l.term_id
      where l.${t.ref} = ? and x.deleted_at is null`,
    [id],
  )
}

/** Renames or re-sorts an entry and queues every term carrying it, in one transaction. */
export async function updateClassification(options: {
  kind: ClassificationKind
  key: string
  input: { nameKo?: string; nameEn?: string; sort?: number }
}): Promise<ClassificationDto> {
  const t = TABLES[options.kind]
  return em().transactional(async (tx) => {
    const [row] = await select(tx, options.kind, options.key)
    if (!row) throw new AppError('not_found', `No ${t.label} "${options.key}".`)
    await tx.execute(
      `update ${t.table} set name_ko = ?, name_en = ?, sort = ?, updated_at = now() where id = ?`,
      [
        options.input.nameKo ?? row.name_ko,
        options.input.nameEn ?? row.name_en,
        options.input.sort ?? row.sort,
        row.id,
      ],
      'run',
    )
    const terms = await affectedTerms(tx, options.kind, row.id)
    await enqueueIndexMany(
      tx,
      terms.map((x) => ({ sourceType: 'term' as const, sourceId: x.id, revision: x.revision })),
    )
    return toDto((await select(tx, options.kind, options.key))[0]!)
  })
}

/** Deletes an entry: every term carrying it gets a new revision without it (and is queued). */
export async function deleteClassification(options: {
  kind: ClassificationKind
  key: string
  actorId: string
}): Promise<{ affectedTerms: number }> {
  const t = TABLES[options.kind]
  const count = await em().transactional(async (tx) => {
    const version = await bumpGlossaryVersion(tx)
    const [row] = await select(tx, options.kind, options.key)
    if (!row) throw new AppError('not_found', `No ${t.label} "${options.key}".`)
    const terms = await affectedTerms(tx, options.kind, row.id)
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
        [t.field]: head.content[t.field].filter((k) => k !== options.key),
      }
      writes.push({
        id: head.id,
        isNew: false,
        revision: head.revision + 1,
        content,
        hash: contentHash(content),
        note: `classification: ${t.label} ${options.key} removed`,
        authorId: options.actorId,
        mergedIntoId: head.mergedIntoId,
      })
    }
    await writeTerms(tx, writes, ids, version)
    await tx.execute(`delete from ${t.table} where id = ?`, [row.id], 'run')
    await tx.execute(
      `insert into deletions (id, entity_type, entity_id, deleted_at, deleted_by_id) values (?, ?, ?, now(), ?)
       on conflict (entity_type, entity_id) do nothing`,
      [crypto.randomUUID(), options.kind, row.id, options.actorId],
      'run',
    )
    return writes.length
  })
  if (count) notifyGlossaryChanged()
  return { affectedTerms: count }
}
