import { z } from 'zod'

/**
 * The manifest of a `glossary backup` file (issue 31): the first entry of the tar, beside the dump. It says what
 * the dump must hold, so `glossary verify-backup` can prove a restore equal to the database it came from: the
 * applied migrations, and per table of the public schema its row count and a content digest (table-stats.ts).
 * The encryption key is never in it. A change of its shape is a new `formatVersion`.
 */

export const MANIFEST_FILE = 'manifest.json'

/** The dump's name inside the tar, by engine. */
export const DUMP_FILES = { pglite: 'database.tar.gz', postgres: 'database.pgdump' } as const

export type BackupEngine = keyof typeof DUMP_FILES

export const TableStatsSchema = z.object({
  name: z.string().min(1),
  rows: z.number().int().nonnegative(),
  /**
   * Decimal: the sum over the rows of the first 60 bits of md5 of the row's text (a vector column as the md5 of
   * its binary form), so row order does not matter (table-stats.server.ts).
   */
  digest: z.string().regex(/^\d+$/),
})

export type TableStats = z.infer<typeof TableStatsSchema>

export const ManifestSchema = z.object({
  format: z.literal('glossary-backup'),
  formatVersion: z.literal(1),
  /** The release of the code that took it (domain/release.ts). */
  release: z.string().min(1),
  /**
   * The release the database itself was at (`glossary_release`, written by the migrator); null for a database
   * migrated before the release was recorded. `glossary start` backs up before it migrates, so this is the
   * release to run again after restoring such a backup.
   */
  databaseRelease: z.string().min(1).nullable(),
  createdAt: z.iso.datetime(),
  engine: z.enum(['pglite', 'postgres']),
  /** `show server_version` of the database it was taken from. */
  serverVersion: z.string(),
  /** Names from mikro_orm_migrations, in the order they were applied. */
  migrations: z.array(z.string()),
  tables: z.array(TableStatsSchema),
  dump: z.object({
    file: z.enum([DUMP_FILES.pglite, DUMP_FILES.postgres]),
    bytes: z.number().int().nonnegative(),
    sha256: z.string().regex(/^[0-9a-f]{64}$/),
  }),
})

export type Manifest = z.infer<typeof ManifestSchema>

/** The rows of every table, as the command prints them. */
export function totalRows(tables: readonly TableStats[]): number {
  return tables.reduce((sum, t) => sum + t.rows, 0)
}
