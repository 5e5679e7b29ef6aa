import type { EntityManager } from '@mikro-orm/postgresql'
import { iso, uuidArray } from '#db/sql.ts'
import type { SyncItemType, SyncKind } from '#sync/bundle-schema.ts'

/**
 * The data access of the receiving side of offline sync (docs/decisions/031-offline-sync.md): every SQL
 * statement on `sync_origins` (the last bundle applied per origin: rules f and g), `sync_applied_bundles` (the
 * history) and `sync_items` (origin item → local item, with the origin's hash last applied and the local copy's
 * hash right after: rules a and d). The rules are in import.server.ts and apply-items.server.ts.
 */

/** What the receiver remembers of an origin: the last bundle it applied. */
export interface KnownOrigin {
  id: string
  name: string
  lastSequence: number
  lastExportedAt: string
}

export async function selectKnownOrigin(tx: EntityManager, id: string): Promise<KnownOrigin | undefined> {
  const rows = await tx.execute<
    { id: string; name: string; last_sequence: number; last_exported_at: Date | string }[]
  >('select id, name, last_sequence, last_exported_at from sync_origins where id = ?', [id])
  const r = rows[0]
  return (
    r && { id: r.id, name: r.name, lastSequence: r.last_sequence, lastExportedAt: iso(r.last_exported_at) }
  )
}

/** Records a bundle applied from an origin: its name, sequence and export time become the origin's last. */
export async function upsertOrigin(
  tx: EntityManager,
  origin: { id: string; name: string; sequence: number; exportedAt: string },
): Promise<void> {
  await tx.execute(
    `insert into sync_origins (id, name, last_sequence, last_exported_at, last_applied_at)
     values (?, ?, ?, ?, now())
     on conflict (id) do update set name = excluded.name, last_sequence = excluded.last_sequence,
        last_exported_at = excluded.last_exported_at, last_applied_at = excluded.last_applied_at`,
    [origin.id, origin.name, origin.sequence, origin.exportedAt],
    'run',
  )
}

export async function insertAppliedBundle(
  tx: EntityManager,
  bundle: {
    originId: string
    originName: string
    sequence: number
    kind: SyncKind
    exportedAt: string
    fileName: string
    counts: Record<string, number>
    appliedById: string | null
    appliedByLabel: string
  },
): Promise<void> {
  await tx.execute(
    `insert into sync_applied_bundles (id, origin_id, origin_name, sequence, kind, exported_at, file_name, counts,
                                       applied_by_id, applied_by_label, applied_at)
     values (gen_random_uuid(), ?, ?, ?, ?, ?, ?, ?::jsonb, ?, ?, now())`,
    [
      bundle.originId,
      bundle.originName,
      bundle.sequence,
      bundle.kind,
      bundle.exportedAt,
      bundle.fileName,
      JSON.stringify(bundle.counts),
      bundle.appliedById,
      bundle.appliedByLabel.slice(0, 320),
    ],
    'run',
  )
}

/** One row of the item map. */
export interface MappedItem {
  originItemId: string
  localId: string
  originHash: string
  originRevision: number
  localHash: string
}

interface MapRow {
  origin_item_id: string
  local_id: string
  origin_hash: string
  origin_revision: number
  local_hash: string
}

const toMapped = (r: MapRow): MappedItem => ({
  originItemId: r.origin_item_id,
  localId: r.local_id,
  originHash: r.origin_hash,
  originRevision: r.origin_revision,
  localHash: r.local_hash,
})

/** The map rows of these origin items of one type, by origin item id. */
export async function selectMappedItems(
  tx: EntityManager,
  originId: string,
  type: SyncItemType,
  originItemIds: readonly string[],
): Promise<Map<string, MappedItem>> {
  if (originItemIds.length === 0) return new Map()
  const rows = await tx.execute<MapRow[]>(
    `select origin_item_id, local_id, origin_hash, origin_revision, local_hash from sync_items
      where origin_id = ? and item_type = ? and origin_item_id = any(?::uuid[])`,
    [originId, type, uuidArray(originItemIds)],
  )
  return new Map(rows.map((r) => [r.origin_item_id, toMapped(r)]))
}

/**
 * The mapped items of an origin that are not in `keep` (a full bundle's manifest), type by type: what a full
 * bundle deletes. The manifest travels as one JSON parameter, so its size meets no bind limit.
 */
export async function selectMappedItemsNotIn(
  tx: EntityManager,
  originId: string,
  keep: readonly { type: SyncItemType; id: string }[],
): Promise<{ type: SyncItemType; originItemId: string }[]> {
  // EXCEPT: one hashed set operation, where a correlated NOT EXISTS would scan the manifest per map row.
  const rows = await tx.execute<{ item_type: SyncItemType; origin_item_id: string }[]>(
    `select item_type, origin_item_id from sync_items where origin_id = ?
     except
     select k.type, k.id from jsonb_to_recordset(?::jsonb) as k(type text, id uuid)
     order by 1, 2`,
    [originId, JSON.stringify(keep.map((k) => ({ type: k.type, id: k.id })))],
  )
  return rows.map((r) => ({ type: r.item_type, originItemId: r.origin_item_id }))
}

/** Local ids of `type` that some origin's item already maps to (a local id belongs to one origin item). */
export async function selectMappedLocalIds(
  tx: EntityManager,
  type: SyncItemType,
  localIds: readonly string[],
): Promise<Set<string>> {
  if (localIds.length === 0) return new Set()
  const rows = await tx.execute<{ local_id: string }[]>(
    'select local_id from sync_items where item_type = ? and local_id = any(?::uuid[])',
    [type, uuidArray(localIds)],
  )
  return new Set(rows.map((r) => r.local_id))
}

/** Writes map rows (one statement): the origin item, the local item it became, and both hashes. */
export async function upsertMappedItems(
  tx: EntityManager,
  originId: string,
  type: SyncItemType,
  items: readonly MappedItem[],
): Promise<void> {
  if (items.length === 0) return
  await tx.execute(
    `insert into sync_items (origin_id, item_type, origin_item_id, local_id, origin_hash, origin_revision, local_hash)
     select ?, ?, x.origin_item_id, x.local_id, x.origin_hash, x.origin_revision, x.local_hash
       from jsonb_to_recordset(?::jsonb) as x(origin_item_id uuid, local_id uuid, origin_hash text,
            origin_revision integer, local_hash text)
     on conflict (origin_id, item_type, origin_item_id) do update set local_id = excluded.local_id,
        origin_hash = excluded.origin_hash, origin_revision = excluded.origin_revision,
        local_hash = excluded.local_hash`,
    [
      originId,
      type,
      JSON.stringify(
        items.map((i) => ({
          origin_item_id: i.originItemId,
          local_id: i.localId,
          origin_hash: i.originHash,
          origin_revision: i.originRevision,
          local_hash: i.localHash,
        })),
      ),
    ],
    'run',
  )
}

/** Forgets map rows: the origin deleted the items (the local ones were deleted with them). */
export async function deleteMappedItems(
  tx: EntityManager,
  originId: string,
  type: SyncItemType,
  originItemIds: readonly string[],
): Promise<void> {
  if (originItemIds.length === 0) return
  await tx.execute(
    'delete from sync_items where origin_id = ? and item_type = ? and origin_item_id = any(?::uuid[])',
    [originId, type, uuidArray(originItemIds)],
    'run',
  )
}

/** The table of each type's rows, for `selectExistingIds`. */
const TABLES: Record<SyncItemType, string> = {
  domain: 'domains',
  category: 'business_categories',
  term: 'terms',
  relation: 'relations',
  wiki: 'wiki_pages',
}

/**
 * The ids among `ids` that a row of `type` already has here, deleted ones included (a deleted term or page
 * keeps its row): a new item takes the origin's UUID only when it is free.
 */
export async function selectExistingIds(
  tx: EntityManager,
  type: SyncItemType,
  ids: readonly string[],
): Promise<Set<string>> {
  if (ids.length === 0) return new Set()
  const rows = await tx.execute<{ id: string }[]>(
    `select id from ${TABLES[type]} where id = any(?::uuid[])`,
    [uuidArray(ids)],
  )
  return new Set(rows.map((r) => r.id))
}
