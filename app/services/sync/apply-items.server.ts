import crypto from 'node:crypto'
import type { SyncItemType } from '#sync/bundle-schema.ts'
import type { ApplyContext } from './apply-context.server.ts'
import { WRITERS, type ItemOf, type ItemWrite, type TypeWriter } from './apply-writers.server.ts'
import { localItems, type LocalItem } from './items.server.ts'
import {
  deleteMappedItems,
  selectExistingIds,
  selectMappedItems,
  selectMappedLocalIds,
  upsertMappedItems,
  type MappedItem,
} from './receiver-store.server.ts'

/**
 * Rules a, b, c and d of offline sync for a batch of items of one type (docs/decisions/031-offline-sync.md),
 * through the map `sync_items` (origin item → local item, the origin's hash last applied, the local copy's hash
 * right after):
 * (a) an unmapped item is created, under the origin's UUID when no local item of its type has it;
 * (b) a mapped item whose hash equals the one last applied is unchanged: nothing is written;
 * (d) a mapped item whose local copy's hash is no longer the one recorded was edited here: kept while the origin
 *     is unchanged (b), overwritten when both changed (the local revision stays in the history) unless the
 *     import keeps local edits;
 * (c) a deleted origin item deletes the mapped local item; an item created here is in no map, so never touched.
 * Each type's writer (apply-writers.server.ts) does the rest. After writing, the map records the local copy's
 * hash as `localItems` computes it, the one function the sender hashes with too.
 */

const OVERWRITTEN = 'changed here too: the origin’s version wins (the local one stays in the history)'
const KEPT = 'changed here: the local version is kept'
const RESTORED = 'gone here (deleted, or no longer approved): the origin changed it, so it comes back'

/** The local copies of `ids` (the carried view), by local id; items gone here are absent. */
async function localCopies<T extends SyncItemType>(
  ctx: ApplyContext,
  type: T,
  ids: readonly string[],
): Promise<Map<string, LocalItem<T>>> {
  const out = new Map<string, LocalItem<T>>()
  if (ids.length === 0) return out
  for await (const batch of localItems(ctx.tx, type, { ids }))
    for (const item of batch) out.set(item.id, item)
  return out
}

/** Local ids for new items: the origin's UUID while no row of the type has it nor any map points to it. */
async function newLocalIds(ctx: ApplyContext, type: SyncItemType, originIds: readonly string[]) {
  const taken = new Set([
    ...(await selectExistingIds(ctx.tx, type, originIds)),
    ...(await selectMappedLocalIds(ctx.tx, type, originIds)),
  ])
  return new Map(originIds.map((id) => [id, taken.has(id) ? crypto.randomUUID() : id]))
}

/** Applies a batch of items of one type (all of the same type, at most one SQL batch). */
export async function applyItems<T extends SyncItemType>(
  ctx: ApplyContext,
  type: T,
  items: readonly ItemOf<T>[],
): Promise<void> {
  if (items.length === 0) return
  const writer = WRITERS[type] as TypeWriter<T>
  const mapped = await selectMappedItems(
    ctx.tx,
    ctx.origin.id,
    type,
    items.map((i) => i.id),
  )
  const changed = items.filter((i) => mapped.has(i.id) && mapped.get(i.id)!.originHash !== i.hash)
  const locals = await localCopies(
    ctx,
    type,
    changed.map((i) => mapped.get(i.id)!.localId),
  )
  const fresh = await newLocalIds(
    ctx,
    type,
    items.filter((i) => !mapped.has(i.id)).map((i) => i.id),
  )
  const titles = await writer.titles(ctx, items)
  const entry = (item: ItemOf<T>, localId: string | null) => ({
    type,
    originId: item.id,
    localId,
    title: titles.get(item.id) ?? item.id,
  })
  const writes: ItemWrite<T>[] = []
  const remembered: MappedItem[] = []
  for (const item of items) {
    const m = mapped.get(item.id)
    if (!m) {
      writes.push({ item, localId: fresh.get(item.id)!, local: undefined })
      continue
    }
    if (m.originHash === item.hash) {
      ctx.report({ ...entry(item, m.localId), action: 'unchanged' })
      continue
    }
    const local = locals.get(m.localId)
    const editedHere = local?.hash !== m.localHash
    if (editedHere && ctx.keepLocalEdits) {
      // The origin's new hash is recorded and the local one kept: the next bundle that changes nothing there
      // is "unchanged", and the local edit stays an edit.
      ctx.report({ ...entry(item, m.localId), action: 'kept_local_edit', reason: KEPT })
      remembered.push({ ...m, originHash: item.hash, originRevision: item.revision })
      continue
    }
    if (local || writer.restoresInPlace) {
      writes.push({
        item,
        localId: m.localId,
        local,
        reason: !local ? RESTORED : editedHere ? OVERWRITTEN : undefined,
      })
    } else {
      const [id] = (await newLocalIds(ctx, type, [item.id])).values()
      writes.push({ item, localId: id!, local: undefined, reason: RESTORED })
    }
  }
  const outcomes = await writer.write(ctx, writes)
  const written = writes.filter((_, i) => outcomes[i]!.action !== 'conflict')
  writes.forEach((w, i) => {
    const outcome = outcomes[i]!
    // A new item skipped as a conflict never got its local id.
    const localId = outcome.action === 'conflict' && !w.local ? null : w.localId
    ctx.report({ ...entry(w.item, localId), ...outcome })
  })
  const after = await localCopies(
    ctx,
    type,
    written.map((w) => w.localId),
  )
  for (const w of written) {
    remembered.push({
      originItemId: w.item.id,
      localId: w.localId,
      originHash: w.item.hash,
      originRevision: w.item.revision,
      localHash: after.get(w.localId)?.hash ?? '',
    })
  }
  await upsertMappedItems(ctx.tx, ctx.origin.id, type, remembered)
}

/**
 * Rule c for origin items of one type that are gone at the origin (tombstones, or mapped items a full bundle
 * no longer lists): the mapped local item is deleted, unless it changed here and local edits are kept (it then
 * stays, as a local item: its map row goes either way). Items never mapped, or already gone here, need nothing.
 */
export async function deleteItems<T extends SyncItemType>(
  ctx: ApplyContext,
  type: T,
  originIds: readonly string[],
): Promise<void> {
  if (originIds.length === 0) return
  const writer = WRITERS[type] as TypeWriter<T>
  const mapped = [...(await selectMappedItems(ctx.tx, ctx.origin.id, type, originIds)).values()]
  const locals = await localCopies(
    ctx,
    type,
    mapped.map((m) => m.localId),
  )
  const doomed: LocalItem<T>[] = []
  for (const m of mapped) {
    const local = locals.get(m.localId)
    if (!local) continue
    const title = titleOfLocal(local)
    const line = { type, originId: m.originItemId, localId: m.localId, title }
    if (local.hash !== m.localHash && ctx.keepLocalEdits) {
      ctx.report({ ...line, action: 'kept_local_edit', reason: KEPT })
    } else {
      ctx.report({ ...line, action: 'delete', reason: local.hash !== m.localHash ? OVERWRITTEN : undefined })
      doomed.push(local)
    }
  }
  await writer.remove(ctx, doomed)
  await deleteMappedItems(
    ctx.tx,
    ctx.origin.id,
    type,
    mapped.map((m) => m.originItemId),
  )
}

/** A local item's name in a report: a term's name, a page's title, an entry's key. */
function titleOfLocal(local: { type: SyncItemType; id: string; content: unknown }): string {
  const c = local.content as Record<string, unknown>
  if (local.type === 'relation') return `${String(c.relationType)} (${local.id})`
  return String(c.name ?? c.title ?? c.key ?? local.id)
}
