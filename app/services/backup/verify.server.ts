import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { Writable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import zlib from 'node:zlib'
import { createExtensionStatements, REQUIRED_EXTENSIONS } from '#db/migrator.ts'
import { openPglite } from '#db/orm.ts'
import { openArchive, type OpenedArchive } from './archive.server.ts'
import { checkRestored, type RestoredChecks } from './checks.server.ts'
import { BackupError, DumpUnreadableError } from './errors.ts'
import type { BackupEngine } from './manifest.ts'
import { pgRestore, scratchDatabaseName } from './pg-tools.server.ts'
import { inPgliteTransaction, inPostgresTransaction, onServer, withDatabase } from './sessions.server.ts'

/**
 * `glossary verify-backup` (issue 31): restores a backup into a scratch location — a new in-memory PGlite for
 * the embedded engine, a scratch database `glossary_verify_<random>` on the PostgreSQL server of DATABASE_URL,
 * always dropped afterwards — and checks it against its manifest (checks.server.ts). Nothing it does touches
 * the installation's own database.
 */

/** What verify-backup and restore answer: the restored database's checks (`problems`: one line each, empty when `ok`). */
export interface VerifyReport extends RestoredChecks {
  file: string
  ok: boolean
  release: string
  createdAt: string
  engine: BackupEngine
  serverVersion: string
  dump: { file: string; bytes: number; sha256: string; matchesManifest: boolean }
  /** `restore` only: where the restored data is. */
  restoredInto?: string
}

export function dumpMatches(opened: OpenedArchive): boolean {
  return (
    opened.dump.sha256 === opened.manifest.dump.sha256 && opened.dump.bytes === opened.manifest.dump.bytes
  )
}

/** The report of a restored database (or of one that could not be restored: `checks` undefined). */
export function report(
  file: string,
  opened: OpenedArchive,
  checks: RestoredChecks | undefined,
  problems: string[],
): VerifyReport {
  const all = [...problems, ...(checks?.problems ?? [])]
  return {
    file,
    ok: all.length === 0,
    release: opened.manifest.release,
    createdAt: opened.manifest.createdAt,
    engine: opened.manifest.engine,
    serverVersion: opened.manifest.serverVersion,
    dump: { file: opened.manifest.dump.file, ...opened.dump, matchesManifest: dumpMatches(opened) },
    tables: checks?.tables ?? 0,
    rows: checks?.rows ?? 0,
    pendingMigrations: checks?.pendingMigrations ?? 0,
    sampledTerms: checks?.sampledTerms ?? 0,
    secrets: checks?.secrets ?? [],
    problems: all,
  }
}

export function checksumProblem(opened: OpenedArchive): string[] {
  return dumpMatches(opened)
    ? []
    : [
        `dump: ${opened.manifest.dump.file} has SHA-256 ${opened.dump.sha256} (${opened.dump.bytes} bytes), the ` +
          `manifest says ${opened.manifest.dump.sha256} (${opened.manifest.dump.bytes} bytes): the file is corrupted`,
      ]
}

/**
 * The PGlite dump as PGlite loads it, its gzip checked whole first: PGlite reports a damaged stream as an
 * unhandled rejection of its own rather than a failed load.
 */
export async function dumpBlob(opened: OpenedArchive): Promise<Blob> {
  try {
    await pipeline(
      fs.createReadStream(opened.dumpPath),
      zlib.createGunzip(),
      new Writable({ write: (_chunk, _encoding, done) => done() }),
    )
  } catch (error) {
    throw new DumpUnreadableError(
      `${opened.manifest.dump.file} is not a valid gzip stream (${firstLine(error)})`,
    )
  }
  return fs.openAsBlob(opened.dumpPath)
}

async function verifyPglite(opened: OpenedArchive): Promise<RestoredChecks> {
  const scratch = await openPglite(undefined, await dumpBlob(opened))
  try {
    return await inPgliteTransaction(scratch, (session) => checkRestored(session, opened.manifest))
  } finally {
    await scratch.close()
  }
}

/** The server's major version (server_version_num 150020 → 15). */
export async function serverMajor(databaseUrl: string): Promise<number> {
  const result = (await onServer(databaseUrl, (c) => c.raw('show server_version_num'))) as {
    rows: { server_version_num: string }[]
  }
  return Math.floor(Number(result.rows[0]!.server_version_num) / 10000)
}

function roleOf(databaseUrl: string): string {
  return decodeURIComponent(new URL(databaseUrl).username) || 'postgres'
}

async function verifyPostgres(opened: OpenedArchive, databaseUrl: string): Promise<RestoredChecks> {
  const major = await serverMajor(databaseUrl)
  const name = scratchDatabaseName()
  try {
    await onServer(databaseUrl, (c) => c.raw(`create database "${name}"`))
  } catch (error) {
    if ((error as { code?: string }).code === '42501') {
      throw new BackupError(
        `verify-backup restores into a scratch database, and the role "${roleOf(databaseUrl)}" of DATABASE_URL may ` +
          'not create databases: grant it CREATEDB (alter role … createdb) or run verify-backup with a ' +
          'DATABASE_URL of a role that has it.',
      )
    }
    throw error
  }
  try {
    await ensureExtensions(withDatabase(databaseUrl, name), `the scratch database ${name}`, 'verify-backup')
    await pgRestore(databaseUrl, name, opened.dumpPath, major)
    return await inPostgresTransaction(withDatabase(databaseUrl, name), (session) =>
      checkRestored(session, opened.manifest),
    )
  } finally {
    await onServer(databaseUrl, (c) => c.raw(`drop database if exists "${name}" with (force)`))
  }
}

/**
 * Creates the extensions the schema needs in a database before pg_restore does (its `create extension if not
 * exists` is then a no-op). pgvector is not a trusted extension: when the role may not create it, that is the
 * operator's one line, naming who can.
 */
export async function ensureExtensions(databaseUrl: string, where: string, command: string): Promise<void> {
  for (const extension of REQUIRED_EXTENSIONS) {
    try {
      await onServer(databaseUrl, (c) => c.raw(`create extension if not exists ${extension}`))
    } catch (error) {
      if ((error as { code?: string }).code !== '42501') throw error
      throw new BackupError(
        `${command} needs the extension "${extension}" in ${where}, and the role "${roleOf(databaseUrl)}" of ` +
          `DATABASE_URL may not create it (pgvector is not a trusted extension): ` +
          (command === 'restore'
            ? `a PostgreSQL superuser must run, once, in that database: ${createExtensionStatements()} Then run restore again.`
            : 'run verify-backup with a DATABASE_URL of a superuser role (e.g. postgres) on the same server.'),
      )
    }
  }
}

export interface VerifyOptions {
  /** The PostgreSQL server a PostgreSQL backup is verified on (DATABASE_URL). */
  databaseUrl?: string
}

/**
 * Verifies `file`; resolves with the report (`ok` only when everything matches and every secret is readable).
 * A file that is not a backup, and an operator's situation (no server for a PostgreSQL backup, no client
 * program, no right to create the scratch database), throw a one-line `BackupError`.
 */
export async function verifyBackup(file: string, options: VerifyOptions = {}): Promise<VerifyReport> {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'glossary-verify-'))
  try {
    const opened = await openArchive(file, work)
    if (opened.manifest.engine === 'postgres' && !options.databaseUrl) {
      throw new BackupError(
        `${file} is a backup of a PostgreSQL database: it is verified on a PostgreSQL server, so set DATABASE_URL ` +
          '(a scratch database is created there and dropped afterwards).',
      )
    }
    // A dump that is not the one the manifest describes is the finding: it is not loaded anywhere.
    const problems = checksumProblem(opened)
    if (problems.length) return report(path.resolve(file), opened, undefined, problems)
    let checks: RestoredChecks | undefined
    try {
      checks =
        opened.manifest.engine === 'pglite'
          ? await verifyPglite(opened)
          : await verifyPostgres(opened, options.databaseUrl!)
    } catch (error) {
      // The operator's situations (no client, no CREATEDB) are their own line; a dump that fails to load is
      // the finding.
      if (error instanceof BackupError && !(error instanceof DumpUnreadableError)) throw error
      problems.push(`restore: the dump could not be restored into a scratch database (${firstLine(error)})`)
    }
    return report(path.resolve(file), opened, checks, problems)
  } finally {
    fs.rmSync(work, { recursive: true, force: true })
  }
}

export function firstLine(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error)
  return message.split('\n')[0]!.trim()
}
