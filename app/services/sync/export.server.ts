import fs from 'node:fs/promises'
import path from 'node:path'
import { IsolationLevel } from '@mikro-orm/core'
import type { EntityManager } from '@mikro-orm/postgresql'
import { RELEASE } from '#domain/release.ts'
import { selectImage } from '#app/services/attachments/store.server.ts'
import { refreshExportStatistics } from '#app/services/terms/store.server.ts'
import { em } from '#db/orm.ts'
import {
  BUNDLE_FORMAT,
  BUNDLE_FORMAT_BASE_VERSION,
  BUNDLE_FORMAT_VERSION,
  bundleFileName,
  SYNC_ITEM_TYPES,
  type BundleHeader,
  type BundleItem,
  type BundleTombstone,
  type ManifestEntry,
  type SyncItemType,
  type SyncKind,
} from '#sync/bundle-schema.ts'
import { createBundleWriter, type BundleWriter } from '#sync/bundle-io.ts'
import {
  manifestKey,
  recordExport,
  selectDeletionTimes,
  selectExistingAttachmentIds,
  selectLastExport,
  selectStoredManifest,
} from './export-store.server.ts'
import { attachmentRefs, localItems, type LocalItem } from './items.server.ts'
import { syncOrigin } from './origin.server.ts'

/**
 * Writing a bundle (decision 031, "Increments and deletions"). Two passes over the carried items, both in one
 * REPEATABLE READ transaction so they see one snapshot (on the embedded engine the transaction holds its one
 * connection, which serialises the same way): the first builds the full manifest and finds what changed since
 * the last export's manifest, and the images the changed items reference, so the header (which precedes
 * everything and holds the counts) can be written; the second streams the changed items, the images one at a
 * time, then the tombstones. Memory stays bounded by one batch of items or one image, plus the manifest.
 */

export interface ExportResult {
  file: string
  bytes: number
  sequence: number
  kind: SyncKind
  exportedAt: string
  counts: BundleHeader['counts']
}

/** What the first pass learns: the full manifest, the changed ids by type, the images they reference. */
interface Scan {
  manifest: ManifestEntry[]
  present: Set<string>
  changed: Record<SyncItemType, string[]>
  attachmentRefs: Set<string>
  /** The bundle format its items need (`BUNDLE_FORMAT_VERSION`: 2 when a page carries its term links switch). */
  formatVersion: number
}

/** The text of a changed item whose image references travel with it. */
function bodyOf(item: LocalItem): string | null {
  if (item.type === 'term') return (item as LocalItem<'term'>).content.body
  if (item.type === 'wiki') return (item as LocalItem<'wiki'>).content.content
  return null
}

/** Pass 1: the current manifest; changed = every item (full) or those whose hash differs from `stored`. */
async function scanItems(tx: EntityManager, stored: Map<string, ManifestEntry> | null): Promise<Scan> {
  const scan: Scan = {
    manifest: [],
    present: new Set(),
    changed: { domain: [], category: [], term: [], relation: [], wiki: [] },
    attachmentRefs: new Set(),
    formatVersion: BUNDLE_FORMAT_BASE_VERSION,
  }
  for (const type of SYNC_ITEM_TYPES) {
    for await (const batch of localItems(tx, type)) {
      for (const item of batch) {
        const key = manifestKey(type, item.id)
        scan.manifest.push({ type, id: item.id, hash: item.hash, revision: item.revision })
        scan.present.add(key)
        if (stored && stored.get(key)?.hash === item.hash) continue
        scan.changed[type].push(item.id)
        for (const id of attachmentRefs(bodyOf(item) ?? '')) scan.attachmentRefs.add(id)
        if (type === 'wiki' && 'termLinks' in item.content) scan.formatVersion = BUNDLE_FORMAT_VERSION
      }
    }
  }
  return scan
}

/** Items of the last manifest that are carried no more, with when they were deleted where that is recorded. */
async function tombstonesFor(
  tx: EntityManager,
  stored: Map<string, ManifestEntry>,
  present: Set<string>,
  exportedAt: string,
): Promise<BundleTombstone[]> {
  const gone = [...stored.entries()]
    .filter(([key]) => !present.has(key))
    .map(([, entry]) => entry)
    .sort((a, b) => typeOrder(a.type) - typeOrder(b.type) || (a.id < b.id ? -1 : 1))
  // A relation no longer approved or a page gone leaves no `deletions` row: it left at this export, as far as we know.
  const times = await selectDeletionTimes(tx, gone)
  return gone.map((entry) => ({
    record: 'tombstone',
    type: entry.type,
    id: entry.id,
    deletedAt: times.get(manifestKey(entry.type, entry.id)) ?? exportedAt,
  }))
}

const typeOrder = (type: SyncItemType) => SYNC_ITEM_TYPES.indexOf(type)

/** Pass 2: the changed items in the order they are applied, the images one at a time, the tombstones. */
async function writeBody(
  tx: EntityManager,
  writer: BundleWriter,
  body: {
    /** The changed ids by type, or null for all (a full bundle: a range scan reads them faster than by ids). */
    changed: Scan['changed'] | null
    attachmentIds: readonly string[]
    tombstones: readonly BundleTombstone[]
  },
): Promise<void> {
  for (const type of SYNC_ITEM_TYPES) {
    for await (const batch of localItems(tx, type, body.changed ? { ids: body.changed[type] } : {})) {
      for (const item of batch) await writer.item({ record: 'item', ...item } as BundleItem)
    }
  }
  for (const id of body.attachmentIds) {
    const image = await selectImage(tx, id)
    if (!image) continue
    await writer.attachment({
      record: 'attachment',
      id,
      sha256: image.sha256,
      contentType: image.contentType,
      size: image.bytes.length,
      data: image.bytes.toString('base64'),
    })
  }
  for (const tombstone of body.tombstones) await writer.tombstone(tombstone)
}

/**
 * Writes one bundle into `outDir` and records it: a full one, or with `incremental` (and an earlier export) the
 * items changed since the last export, tombstones for those gone, and always the full manifest. The file is
 * removed again when it cannot be recorded, so a bundle on disk always has its sequence.
 */
export async function exportBundle(options: {
  incremental: boolean
  outDir: string
  label?: string | null
  actorId: string | null
}): Promise<ExportResult> {
  const origin = await syncOrigin()
  // Without planner statistics (the embedded engine runs no autovacuum) every keyset batch below is planned as
  // a scan of every following row plus a sort: 10,000 terms and 20,000 relations took 15 s instead of 3.
  await refreshExportStatistics(em())
  let writer: BundleWriter | undefined
  /** The bundle once complete on disk: from then on a failure must remove it. */
  let finished: string | undefined
  try {
    return await em().transactional(
      async (tx) => {
        const previous = await selectLastExport(tx)
        const kind: SyncKind = options.incremental && previous ? 'incremental' : 'full'
        const stored = kind === 'incremental' ? await selectStoredManifest(tx) : null
        const exportedAt = new Date().toISOString()
        const scan = await scanItems(tx, stored)
        const attachmentIds = await selectExistingAttachmentIds(tx, [...scan.attachmentRefs])
        const tombstones = stored ? await tombstonesFor(tx, stored, scan.present, exportedAt) : []
        const header: BundleHeader = {
          record: 'header',
          format: BUNDLE_FORMAT,
          formatVersion: scan.formatVersion,
          release: RELEASE,
          origin,
          label: options.label?.trim() || null,
          exportedAt,
          sequence: (previous?.sequence ?? 0) + 1,
          kind,
          previous: previous ? { sequence: previous.sequence, exportedAt: previous.exportedAt } : null,
          counts: {
            items: Object.fromEntries(
              SYNC_ITEM_TYPES.map((type) => [type, scan.changed[type].length]),
            ) as BundleHeader['counts']['items'],
            attachments: attachmentIds.length,
            tombstones: tombstones.length,
          },
          manifest: scan.manifest,
        }
        writer = await createBundleWriter(path.join(options.outDir, bundleFileName(header)), header)
        await writeBody(tx, writer, {
          changed: kind === 'full' ? null : scan.changed,
          attachmentIds,
          tombstones,
        })
        const written = await writer.finish()
        finished = written.file
        await recordExport(
          tx,
          {
            sequence: header.sequence,
            kind,
            exportedAt,
            previousSequence: previous?.sequence ?? null,
            label: header.label,
            fileName: path.basename(written.file),
            counts: header.counts,
            createdById: options.actorId,
          },
          scan.manifest,
        )
        return {
          file: written.file,
          bytes: written.bytes,
          sequence: header.sequence,
          kind,
          exportedAt,
          counts: header.counts,
        }
      },
      { isolationLevel: IsolationLevel.REPEATABLE_READ },
    )
  } catch (error) {
    // Nothing recorded (the transaction rolled back), so no bundle of this sequence may stay on disk.
    if (finished) await fs.rm(finished, { force: true })
    else await writer?.abort()
    throw error
  }
}
