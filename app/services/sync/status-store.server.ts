import type { EntityManager } from '@mikro-orm/postgresql'
import type { SyncKind } from '#sync/bundle-schema.ts'
import { iso, parseJson } from '#db/sql.ts'

/**
 * What `syncStatus` reads of the receiver's sync tables (migration …_sync): the origins this installation has
 * applied bundles from, and the newest applied bundles. Reads only: the import owns the writes, and this
 * installation's last export is read by the export's store (`selectLastExport`).
 */

export interface KnownOriginRow {
  id: string
  name: string
  lastSequence: number
  lastExportedAt: string
  lastAppliedAt: string
}

/** Every installation a bundle has been applied from, by name. */
export async function selectKnownOrigins(manager: EntityManager): Promise<KnownOriginRow[]> {
  const rows = await manager.execute<
    {
      id: string
      name: string
      last_sequence: number
      last_exported_at: Date | string
      last_applied_at: Date | string
    }[]
  >(
    `select id, name, last_sequence, last_exported_at, last_applied_at
       from sync_origins order by name, id`,
  )
  return rows.map((row) => ({
    id: row.id,
    name: row.name,
    lastSequence: row.last_sequence,
    lastExportedAt: iso(row.last_exported_at),
    lastAppliedAt: iso(row.last_applied_at),
  }))
}

export interface AppliedBundleRow {
  originName: string
  sequence: number
  kind: SyncKind
  exportedAt: string
  appliedAt: string
  /** The applying user's current name, else the label recorded with the bundle (the command line's). */
  appliedBy: string | null
  file: string
  counts: Record<string, number>
}

/** The `limit` bundles applied last, newest first. */
export async function selectAppliedBundles(
  manager: EntityManager,
  limit: number,
): Promise<AppliedBundleRow[]> {
  const rows = await manager.execute<
    {
      origin_name: string
      sequence: number
      kind: SyncKind
      exported_at: Date | string
      applied_at: Date | string
      applied_by: string | null
      file_name: string
      counts: unknown
    }[]
  >(
    `select b.origin_name, b.sequence, b.kind, b.exported_at, b.applied_at,
            coalesce(u.name, b.applied_by_label) as applied_by, b.file_name, b.counts
       from sync_applied_bundles b left join users u on u.id = b.applied_by_id
      order by b.applied_at desc, b.exported_at desc, b.id limit ?`,
    [limit],
  )
  return rows.map((row) => ({
    originName: row.origin_name,
    sequence: row.sequence,
    kind: row.kind,
    exportedAt: iso(row.exported_at),
    appliedAt: iso(row.applied_at),
    appliedBy: row.applied_by,
    file: row.file_name,
    counts: parseJson<Record<string, number>>(row.counts),
  }))
}
