import fs from 'node:fs'
import path from 'node:path'
import { log } from '#app/lib/logger.server.ts'
import { executedMigrations, pendingMigrations } from '#db/migrator.ts'
import { createBackup, type BackupResult } from './create.server.ts'

/**
 * The automatic backup of `glossary start` on the embedded default (issue 31): taken before it applies a pending
 * migration to a database that holds one already, so an upgrade is always reversible (`glossary restore` of the
 * file into an empty data directory, with the release that wrote it). Kept in `<dataDir>/backups`, the newest
 * `keep` of them (GLOSSARY_BACKUP_KEEP); older automatic backups are deleted, files of other names never.
 */

/** `before-migration-<UTC time>.glossary-backup`: sortable by name, recognised when pruning. */
const AUTOMATIC = /^before-migration-\d{8}T\d{6}Z\.glossary-backup$/

export function automaticBackupName(at: Date): string {
  const stamp = at
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d+Z$/, 'Z')
  return `before-migration-${stamp}.glossary-backup`
}

/**
 * Backs the open database up into `dir` when a migration is pending and the database is not new (nothing to
 * lose in an empty one); answers the backup, or undefined when none was needed. A failed backup stops the
 * upgrade: the migration is not applied without one.
 */
export async function backupBeforeMigration(options: {
  dir: string
  keep: number
}): Promise<BackupResult | undefined> {
  const pending = await pendingMigrations()
  if (pending.length === 0 || (await executedMigrations()).length === 0) return undefined
  fs.mkdirSync(options.dir, { recursive: true, mode: 0o700 })
  const result = await createBackup(path.join(options.dir, automaticBackupName(new Date())))
  log().info(
    { file: result.file, bytes: result.bytes, pending: pending.length },
    `backup taken before applying ${pending.length} migration(s): ${result.file}`,
  )
  pruneAutomaticBackups(options.dir, options.keep)
  return result
}

/** Deletes all but the newest `keep` automatic backups in `dir`; answers the names deleted. */
export function pruneAutomaticBackups(dir: string, keep: number): string[] {
  const names = fs
    .readdirSync(dir)
    .filter((name) => AUTOMATIC.test(name))
    .sort()
  const removed = names.slice(0, Math.max(0, names.length - keep))
  for (const name of removed) fs.rmSync(path.join(dir, name), { force: true })
  return removed
}
