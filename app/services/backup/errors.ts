/**
 * A backup command's failure that its operator fixes or must know about (a file that is not a backup, a target
 * that is not empty, a PostgreSQL client missing): its message is one line saying what is wrong and what to do,
 * and `glossary backup|verify-backup|restore` prints it alone and exits 1 (app/server/backup-cli.server.ts).
 */
export class BackupError extends Error {
  override name = 'BackupError'
}

/**
 * A dump that does not restore (PGlite cannot load it, pg_restore fails on it): for `verify-backup` that is a
 * finding of the report, not the end of the command.
 */
export class DumpUnreadableError extends BackupError {}
