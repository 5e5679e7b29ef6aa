import path from 'node:path'
import { getConfig } from '#app/lib/config.server.ts'
import { createBackup, type BackupResult } from '#app/services/backup/create.server.ts'
import { BackupError } from '#app/services/backup/errors.ts'
import { totalRows } from '#app/services/backup/manifest.ts'
import { restoreBackup } from '#app/services/backup/restore.server.ts'
import { verifyBackup, type VerifyReport } from '#app/services/backup/verify.server.ts'
import { DataDirInUseError, embeddedDataPath } from '#db/orm.ts'

/**
 * `glossary backup --out <file>`, `glossary verify-backup <file> [--json]`, `glossary restore <file> [--json]`
 * (issue 31): their arguments, what they print and their exit codes. The work is app/services/backup/'s; the
 * database `backup` reads is opened and closed by the runtime (app/server/runtime.server.ts), which hands the
 * hooks in, as for `glossary sync`.
 */

export const EXIT_OK = 0
/** A failed backup, a verification that found a difference, a file that is not a backup, a refused target. */
export const EXIT_FAILED = 1
export const EXIT_USAGE = 2

export type BackupCommand = 'backup' | 'verify-backup' | 'restore'

export interface BackupCliHost {
  openDatabase(): Promise<void>
  closeDatabase(): Promise<void>
}

const USAGE: Record<BackupCommand, string> = {
  backup: 'Usage: glossary backup --out <file> [--json]',
  'verify-backup': 'Usage: glossary verify-backup <file> [--json]',
  restore: 'Usage: glossary restore <file> [--json]',
}

type Parsed = { file: string; json: boolean } | { usage: string }

export function parseBackupArgs(command: BackupCommand, args: readonly string[]): Parsed {
  let file: string | undefined
  let json = false
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!
    if (command === 'backup' && (arg === '--out' || arg === '-o')) {
      const value = args[++i]
      if (!value || value.startsWith('-')) return { usage: '--out needs a file name' }
      if (file) return { usage: '--out is given twice' }
      file = value
    } else if (command === 'backup' && arg.startsWith('--out=')) {
      if (file) return { usage: '--out is given twice' }
      file = arg.slice('--out='.length)
      if (!file) return { usage: '--out needs a file name' }
    } else if (arg === '--json') {
      json = true
    } else if (arg.startsWith('-')) {
      return { usage: `unknown option ${arg}` }
    } else if (command !== 'backup' && !file) {
      file = arg
    } else {
      return { usage: `unexpected argument "${arg}"` }
    }
  }
  if (!file)
    return { usage: command === 'backup' ? '--out <file> is required' : 'the backup file is required' }
  return { file, json }
}

function out(text: string): void {
  process.stdout.write(text.endsWith('\n') ? text : `${text}\n`)
}

function fail(command: BackupCommand, message: string): void {
  process.stderr.write(`glossary ${command}: ${message}\n`)
}

function megabytes(bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(1)} MB (${bytes} bytes)`
}

function backupText(result: BackupResult): string {
  const m = result.manifest
  return [
    `backup written: ${result.file}`,
    `  size: ${megabytes(result.bytes)}`,
    `  release ${m.release}, ${m.engine} ${m.serverVersion}, ${m.migrations.length} migrations applied`,
    `  ${m.tables.length} tables, ${totalRows(m.tables)} rows`,
    `The encryption key is NOT in the backup: it is ${result.key}. Keep a copy of it separately (not next to ` +
      'the backup): without it the stored secrets of a restored database (provider API keys, SSO client ' +
      'secret) cannot be read.',
  ].join('\n')
}

function reportText(report: VerifyReport, command: BackupCommand): string {
  const lines = [
    `${report.file}: backup of release ${report.release}, taken ${report.createdAt} (${report.engine} ${report.serverVersion})`,
    `  dump ${report.dump.file}: ${megabytes(report.dump.bytes)}, SHA-256 ${report.dump.matchesManifest ? 'matches' : 'DIFFERS FROM'} the manifest`,
    `  ${report.tables} tables, ${report.rows} rows restored; ${report.sampledTerms} terms read with their latest revision`,
    report.pendingMigrations
      ? `  ${report.pendingMigrations} migration(s) of this release are pending for it (a backup taken before an upgrade): \`glossary migrate\` applies them after a restore`
      : '  its migrations are those of this release',
    `  stored secrets: ${report.secrets.length}, ${report.secrets.filter((s) => s.readable).length} readable with the current key`,
    ...report.secrets.map((s) => `    ${s.readable ? 'readable' : 'NOT READABLE'}: ${s.location}`),
  ]
  if (report.restoredInto) lines.push(`  restored into ${report.restoredInto}`)
  if (report.ok) {
    lines.push(
      command === 'restore'
        ? 'restore verified: everything matches the manifest'
        : 'backup verified: everything matches the manifest',
    )
  } else {
    lines.push(`${report.problems.length} problem(s):`, ...report.problems.map((p) => `  - ${p}`))
    if (report.restoredInto) {
      lines.push(`The restored data is left in ${report.restoredInto} for inspection.`)
    }
  }
  return lines.join('\n')
}

/** Runs one of the three commands; resolves with its exit code. Usage errors never open the database. */
export async function backupCli(
  command: BackupCommand,
  args: readonly string[],
  host: BackupCliHost,
): Promise<number> {
  const parsed = parseBackupArgs(command, args)
  if ('usage' in parsed) {
    fail(command, `${parsed.usage}\n\n${USAGE[command]}`)
    return EXIT_USAGE
  }
  const config = getConfig()
  try {
    if (command === 'backup') {
      try {
        await host.openDatabase()
      } catch (error) {
        if (!(error instanceof DataDirInUseError)) throw error
        throw new BackupError(
          `The embedded database in ${path.resolve(embeddedDataPath(config.dataDir))} is held by a running ` +
            'glossary service: stop it first (the upgrade procedure stops the service, then backs up), then ' +
            'run `glossary backup` again.',
        )
      }
      try {
        const result = await createBackup(parsed.file)
        out(parsed.json ? JSON.stringify(result, null, 2) : backupText(result))
      } finally {
        await host.closeDatabase()
      }
      return EXIT_OK
    }
    const report =
      command === 'verify-backup'
        ? await verifyBackup(parsed.file, { databaseUrl: config.databaseUrl })
        : await restoreBackup(parsed.file, { dataDir: config.dataDir, databaseUrl: config.databaseUrl })
    out(parsed.json ? JSON.stringify(report, null, 2) : reportText(report, command))
    return report.ok ? EXIT_OK : EXIT_FAILED
  } catch (error) {
    if (!(error instanceof BackupError || error instanceof DataDirInUseError)) throw error
    fail(command, (error as Error).message)
    return EXIT_FAILED
  }
}
