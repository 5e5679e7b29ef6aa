import { em } from '#db/orm.ts'
import type { SyncKind } from '#sync/bundle-schema.ts'
import { selectLastExport } from './export-store.server.ts'
import { syncOrigin } from './origin.server.ts'
import {
  selectAppliedBundles,
  selectKnownOrigins,
  type AppliedBundleRow,
  type KnownOriginRow,
} from './status-store.server.ts'

/**
 * Where this installation stands in offline sync (`glossary sync status`, the admin screen's history): who it is
 * as a sender, what it exported last, and as a receiver what it applied from whom.
 */

export interface SyncStatus {
  /** This installation as a sender: the origin id its bundles carry, and its display name. */
  origin: { id: string; name: string }
  lastExport: { sequence: number; kind: SyncKind; exportedAt: string; file: string } | null
  /** Per installation bundles were applied from: the last bundle applied (rules f and g start from it). */
  origins: KnownOriginRow[]
  /** The newest applied bundles, newest first. */
  applied: AppliedBundleRow[]
}

/** How many applied bundles the status lists when the caller does not say. */
const DEFAULT_HISTORY = 10

/** The sync status of this installation, with the `history` newest applied bundles (10 unless given). */
export async function syncStatus(options: { history?: number } = {}): Promise<SyncStatus> {
  const manager = em()
  const last = await selectLastExport(manager)
  return {
    origin: await syncOrigin(manager),
    lastExport: last
      ? { sequence: last.sequence, kind: last.kind, exportedAt: last.exportedAt, file: last.fileName }
      : null,
    origins: await selectKnownOrigins(manager),
    applied: await selectAppliedBundles(manager, options.history ?? DEFAULT_HISTORY),
  }
}
