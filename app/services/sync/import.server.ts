import fsp from 'node:fs/promises'
import path from 'node:path'
import type { EntityManager } from '@mikro-orm/postgresql'
import { insertOrFindImage } from '#app/services/attachments/store.server.ts'
import { recordAudit } from '#app/services/audit/audit.server.ts'
import { notifyGlossaryChanged } from '#app/services/terms/events.server.ts'
import { bumpGlossaryVersion } from '#app/services/terms/store.server.ts'
import { em } from '#db/orm.ts'
import { BundleError, readBundleHeader, readBundleRecords, verifyBundle } from '#sync/bundle-io.ts'
import {
  BUNDLE_SUFFIX,
  SYNC_ITEM_TYPES,
  type BundleHeader,
  type SyncItemType,
  type SyncKind,
} from '#sync/bundle-schema.ts'
import {
  ITEM_ACTIONS,
  type ApplyContext,
  type ItemAction,
  type PlanEntry,
  type SyncActor,
} from './apply-context.server.ts'
import { applyItems, deleteItems } from './apply-items.server.ts'
import type { ItemOf } from './apply-writers.server.ts'
import { syncOrigin } from './origin.server.ts'
import {
  insertAppliedBundle,
  selectKnownOrigin,
  selectMappedItemsNotIn,
  upsertOrigin,
  type KnownOrigin,
} from './receiver-store.server.ts'

export { ITEM_ACTIONS, type ItemAction, type PlanEntry }

/**
 * Previewing and applying bundles at the receiver (issue 30, spec 8; docs/decisions/031-offline-sync.md).
 * All the files of one import are ONE transaction (rule h): a failure anywhere applies nothing. Per origin,
 * bundles apply in export order: an older bundle than the last applied is skipped (rule g); an incremental one
 * applies only right after the bundle it follows, else it and every later one of its origin are reported
 * missing (rule f), while a full one applies after anything and deletes what its manifest no longer lists.
 * The per-item rules (a–e) are in apply-items.server.ts.
 */

export type BundleOutcome = 'applied' | 'previewed' | 'skipped_older' | 'missing' | 'own_bundle'

export interface BundleReport {
  file: string
  origin: { id: string; name: string }
  sequence: number
  kind: SyncKind
  exportedAt: string
  outcome: BundleOutcome
  message?: string
  entries: PlanEntry[]
  counts: Record<ItemAction, number>
}

export interface ImportReport {
  /** Whether the import was written (false for a preview). */
  applied: boolean
  /** A bundle is missing from an origin's chain (the command exits with code 2). */
  missing: boolean
  bundles: BundleReport[]
}

/** Items read and written per batch, inside the one transaction. */
const BATCH = 500

/**
 * Lets the process answer what waits on it between two batches: the embedded engine's statements resolve one
 * after another without giving timers and sockets a turn, so a whole apply blocked the event loop for seconds
 * (bench/sync.bench.ts), even for requests that need no database.
 */
const yieldToOthers = () => new Promise<void>((resolve) => setImmediate(resolve))

/**
 * Deletions of terms go before the items (they free the addresses an incoming term may take), the others
 * after them (a domain or category leaves once the terms carrying it were rewritten without it).
 */
const DELETED_FIRST: readonly SyncItemType[] = ['term']
const DELETED_LAST: readonly SyncItemType[] = ['relation', 'wiki', 'category', 'domain']

/** Bundles in export order: grouped by origin (by name, then id), each origin's by sequence. */
function inExportOrder<B extends { header: BundleHeader }>(bundles: readonly B[]): B[] {
  return [...bundles].sort(
    (a, b) =>
      a.header.origin.name.localeCompare(b.header.origin.name) ||
      a.header.origin.id.localeCompare(b.header.origin.id) ||
      a.header.sequence - b.header.sequence,
  )
}

/**
 * A bundle file, or the `*.glossary-sync.json.gz` files of a folder, each verified whole (`verifyBundle`), in
 * export order. Throws a `BundleError` naming the first file refused.
 */
export async function bundleFiles(fileOrFolder: string): Promise<string[]> {
  const stat = await fsp.stat(fileOrFolder).catch(() => undefined)
  if (!stat) throw new BundleError('not_a_bundle', fileOrFolder, `${fileOrFolder}: no such file or folder.`)
  const files = stat.isDirectory()
    ? (await fsp.readdir(fileOrFolder))
        .filter((name) => name.endsWith(BUNDLE_SUFFIX))
        .sort()
        .map((name) => path.join(fileOrFolder, name))
    : [fileOrFolder]
  const verified = []
  for (const file of files) verified.push(await verifyBundle(file))
  return inExportOrder(verified).map((bundle) => bundle.file)
}

/** Ends a preview's transaction: the preview ran the whole import, and nothing of it may stay. */
class PreviewRollback extends Error {}

const noCounts = (): Record<ItemAction, number> =>
  Object.fromEntries(ITEM_ACTIONS.map((action) => [action, 0])) as Record<ItemAction, number>

/** Records a bundle holds, as progress counts them. */
const recordsOf = (h: BundleHeader) =>
  Object.values(h.counts.items).reduce((sum, n) => sum + n, 0) + h.counts.attachments + h.counts.tombstones

/**
 * Previews (`apply: false`) or applies bundles, in one transaction for all of them (rule h). A preview runs
 * exactly the same code and rolls the transaction back at the end, so what it reports — a chain of bundles
 * included — is what applying would do, and it writes nothing. `onProgress` hears (records done, records in
 * all) after each batch. Throws (nothing applied) on any failure, a `BundleError` for a bad file.
 */
export async function importBundles(
  files: readonly string[],
  options: {
    apply: boolean
    keepLocalEdits: boolean
    actor: SyncActor
    onProgress?: (done: number, total: number) => void
  },
): Promise<ImportReport> {
  const bundles = []
  for (const file of files) bundles.push({ file, header: await readBundleHeader(file) })
  const ordered = inExportOrder(bundles)
  const total = ordered.reduce((sum, b) => sum + recordsOf(b.header), 0)
  let done = 0
  const progress = (records: number) => {
    done += records
    options.onProgress?.(Math.min(done, total), total)
  }
  let termsChanged = false
  const reports: BundleReport[] = []
  try {
    await em().transactional(async (tx) => {
      // The glossary version first, as every transaction that changes terms takes it (lock order).
      const version = await bumpGlossaryVersion(tx)
      const own = await syncOrigin(tx)
      const chain = new Chain(tx)
      for (const { file, header } of ordered) {
        const skip = header.origin.id === own.id ? ownBundle() : await chain.refusal(header)
        const report = newReport(file, header, skip ?? { outcome: options.apply ? 'applied' : 'previewed' })
        reports.push(report)
        if (skip) {
          progress(recordsOf(header))
          continue
        }
        const ctx: ApplyContext = {
          tx,
          origin: header.origin,
          keepLocalEdits: options.keepLocalEdits,
          actor: options.actor,
          version,
          images: new Map(),
          mergedInto: new Map(),
          skippedTerms: new Set(),
          termsChanged: false,
          report(entry) {
            report.entries.push(entry)
            report.counts[entry.action] += 1
          },
        }
        // The origin's row first: the item map refers to it.
        await upsertOrigin(tx, {
          id: header.origin.id,
          name: header.origin.name,
          sequence: header.sequence,
          exportedAt: header.exportedAt,
        })
        await applyBundle(ctx, file, header, progress)
        termsChanged ||= ctx.termsChanged
        await recordApplied(ctx, file, header, report.counts)
        chain.applied(header)
      }
      if (!options.apply) throw new PreviewRollback()
    })
  } catch (error) {
    if (!(error instanceof PreviewRollback)) throw error
  }
  if (options.apply && termsChanged) notifyGlossaryChanged()
  return { applied: options.apply, missing: reports.some((r) => r.outcome === 'missing'), bundles: reports }
}

function newReport(
  file: string,
  header: BundleHeader,
  outcome: Pick<BundleReport, 'outcome' | 'message'>,
): BundleReport {
  return {
    file,
    origin: header.origin,
    sequence: header.sequence,
    kind: header.kind,
    exportedAt: header.exportedAt,
    ...outcome,
    entries: [],
    counts: noCounts(),
  }
}

const ownBundle = () => ({
  outcome: 'own_bundle' as const,
  message: 'This bundle was exported by this installation; nothing of it applies here.',
})

/** Rules f and g: what this import knows of each origin's chain, as its bundles apply one after another. */
class Chain {
  private readonly known = new Map<string, KnownOrigin | undefined>()
  private readonly broken = new Set<string>()
  constructor(private readonly tx: EntityManager) {}

  /** Why a bundle does not apply (skipped as older, or missing a bundle before it), or undefined. */
  async refusal(h: BundleHeader): Promise<Pick<BundleReport, 'outcome' | 'message'> | undefined> {
    // A full bundle needs nothing before it; an incremental one after a missing bundle is missing too.
    if (h.kind === 'incremental' && this.broken.has(h.origin.id)) {
      return { outcome: 'missing', message: `A bundle of ${h.origin.name} before this one is missing.` }
    }
    if (!this.known.has(h.origin.id))
      this.known.set(h.origin.id, await selectKnownOrigin(this.tx, h.origin.id))
    const last = this.known.get(h.origin.id)
    if (last && Date.parse(h.exportedAt) <= Date.parse(last.lastExportedAt)) {
      return {
        outcome: 'skipped_older',
        message: `Bundle #${last.lastSequence} of ${h.origin.name}, exported ${last.lastExportedAt}, was applied here already; this one is not newer.`,
      }
    }
    if (h.kind === 'incremental' && (!last || h.previous?.sequence !== last.lastSequence)) {
      this.broken.add(h.origin.id)
      const after = last
        ? `#${last.lastSequence} was the last applied here`
        : 'none of its bundles was applied here'
      return {
        outcome: 'missing',
        message: `This incremental bundle follows #${h.previous?.sequence ?? '?'} of ${h.origin.name}, but ${after}: apply the bundles in between, or a full bundle.`,
      }
    }
    return undefined
  }

  applied(h: BundleHeader): void {
    this.broken.delete(h.origin.id)
    this.known.set(h.origin.id, {
      id: h.origin.id,
      name: h.origin.name,
      lastSequence: h.sequence,
      lastExportedAt: h.exportedAt,
    })
  }
}

/**
 * One bundle, in two passes over its file (both check every record again as they read): first the images
 * (stored by SHA-256, so item texts can point at the local ids) and the tombstones, then the items in type
 * order, a batch at a time. Merged terms go last among terms: the term they were merged into must be there.
 */
async function applyBundle(
  ctx: ApplyContext,
  file: string,
  header: BundleHeader,
  progress: (records: number) => void,
): Promise<void> {
  const gone = new Map<SyncItemType, Set<string>>(SYNC_ITEM_TYPES.map((type) => [type, new Set()]))
  for await (const record of readBundleRecords(file)) {
    if (record.record === 'attachment') {
      const stored = await insertOrFindImage(ctx.tx, {
        sha256: record.sha256,
        contentType: record.contentType,
        bytes: Buffer.from(record.data, 'base64'),
        actorId: ctx.actor.id,
      })
      ctx.images.set(record.id, stored.id)
      progress(1)
      await yieldToOthers()
    } else if (record.record === 'tombstone') {
      gone.get(record.type)!.add(record.id)
    } else if (record.type === 'term' && record.content.mergedInto) {
      ctx.mergedInto.set(record.id, record.content.mergedInto)
    }
  }
  if (header.kind === 'full') {
    for (const absent of await selectMappedItemsNotIn(ctx.tx, ctx.origin.id, header.manifest)) {
      gone.get(absent.type)!.add(absent.originItemId)
    }
  }
  const deleteGone = async (types: readonly SyncItemType[]) => {
    for (const type of types) {
      await deleteItems(ctx, type, [...gone.get(type)!])
      progress(gone.get(type)!.size)
      await yieldToOthers()
    }
  }
  await deleteGone(DELETED_FIRST)
  let pending: ItemOf<SyncItemType>[] = []
  const merged: ItemOf<'term'>[] = []
  const flush = async (items: ItemOf<SyncItemType>[]) => {
    if (items.length === 0) return
    await applyItems(ctx, items[0]!.type, items)
    progress(items.length)
    await yieldToOthers()
  }
  for await (const record of readBundleRecords(file)) {
    if (record.record !== 'item') continue
    if (pending.length && (pending[0]!.type !== record.type || pending.length >= BATCH)) {
      await flush(pending)
      pending = []
    }
    if (record.type !== 'term' && merged.length) await flush(merged.splice(0))
    if (record.type === 'term' && record.content.status === 'merged') merged.push(record)
    else pending.push(record)
  }
  await flush(pending)
  await flush(merged)
  await deleteGone(DELETED_LAST)
}

/** The bundle's trace: the history row and one audit record. */
async function recordApplied(
  ctx: ApplyContext,
  file: string,
  header: BundleHeader,
  counts: Record<ItemAction, number>,
): Promise<void> {
  await insertAppliedBundle(ctx.tx, {
    originId: header.origin.id,
    originName: header.origin.name,
    sequence: header.sequence,
    kind: header.kind,
    exportedAt: header.exportedAt,
    fileName: path.basename(file),
    counts,
    appliedById: ctx.actor.id,
    appliedByLabel: ctx.actor.label,
  })
  await recordAudit(
    {
      action: 'sync.applied',
      actor: { userId: ctx.actor.id, label: ctx.actor.label },
      target: { type: 'sync_origin', id: header.origin.id },
      details: {
        origin: header.origin.name,
        sequence: header.sequence,
        kind: header.kind,
        exportedAt: header.exportedAt,
        counts,
      },
    },
    ctx.tx,
  )
}
