import { spawn } from 'node:child_process'
import crypto from 'node:crypto'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { BackupError, DumpUnreadableError } from './errors.ts'

/**
 * The PostgreSQL client programs a PostgreSQL backup runs (`pg_dump`, `pg_restore`, found on PATH). The password
 * of DATABASE_URL never goes on their command line (the process list shows it) nor into a log: it is written to
 * a passfile of this process only (mode 0600, removed afterwards), which the connection string names.
 */

export type PgTool = 'pg_dump' | 'pg_restore'

/** The Debian package that provides the client of a server's major version (these machines run Debian). */
function clientPackage(serverMajor: number): string {
  return `postgresql-client-${serverMajor}`
}

function missing(tool: PgTool, serverMajor: number): BackupError {
  return new BackupError(
    `${tool} was not found on PATH: a PostgreSQL backup needs the PostgreSQL client programs of the server's ` +
      `version or newer; install the Debian package ${clientPackage(serverMajor)} ` +
      `(apt-get install ${clientPackage(serverMajor)}) or put its bin folder on PATH, then run the command again.`,
  )
}

/** Runs a program to completion; answers its exit code and what it wrote. ENOENT (not on PATH) is thrown. */
function run(
  file: string,
  args: readonly string[],
  options: { stdout?: 'capture' | 'ignore' } = {},
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, {
      stdio: ['ignore', options.stdout === 'ignore' ? 'ignore' : 'pipe', 'pipe'],
    })
    let stdout = ''
    let stderr = ''
    child.stdout?.on('data', (d: Buffer) => (stdout += d.toString('utf8')))
    child.stderr?.on('data', (d: Buffer) => (stderr += d.toString('utf8')))
    child.once('error', reject)
    child.once('close', (code) => resolve({ code, stdout, stderr }))
  })
}

/** The major version of a client program; throws the one-line `BackupError` when it is not on PATH. */
export async function toolMajor(tool: PgTool, serverMajor: number): Promise<number> {
  let result
  try {
    result = await run(tool, ['--version'])
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') throw missing(tool, serverMajor)
    throw error
  }
  const major = /\b(\d+)(?:\.\d+)?/.exec(result.stdout)
  if (result.code !== 0 || !major) throw missing(tool, serverMajor)
  return Number(major[1])
}

/** Refuses a client older than the server (pg_dump would refuse too, in a longer message). */
export async function assertToolFits(tool: PgTool, serverMajor: number): Promise<void> {
  const major = await toolMajor(tool, serverMajor)
  if (major < serverMajor) {
    throw new BackupError(
      `${tool} ${major} is older than the PostgreSQL ${serverMajor} server of DATABASE_URL: install the Debian ` +
        `package ${clientPackage(serverMajor)} (or newer) and put it first on PATH, then run the command again.`,
    )
  }
}

/** libpq's quoting of a connection-string value. */
function conninfoValue(value: string): string {
  return `'${value.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`
}

/** A passfile line's quoting (`:` and `\` escaped). */
function passfileField(value: string): string {
  return value.replace(/\\/g, '\\\\').replace(/:/g, '\\:')
}

/**
 * A libpq connection string for `databaseUrl` without its password (`dbname=` overrides the URL's database),
 * and a passfile holding the password when there is one. Call `dispose` when the program has ended.
 */
export function connectionFor(
  databaseUrl: string,
  database?: string,
): { conninfo: string; dispose: () => void } {
  const url = new URL(databaseUrl)
  const fields: Record<string, string> = {
    host: decodeURIComponent(url.hostname.replace(/^\[|\]$/g, '')) || 'localhost',
    port: url.port || '5432',
    dbname: database ?? (decodeURIComponent(url.pathname.slice(1)) || decodeURIComponent(url.username)),
  }
  if (url.username) fields.user = decodeURIComponent(url.username)
  // libpq's own parameters in the URL's query (sslmode, sslrootcert, …) keep their meaning.
  for (const [key, value] of url.searchParams) if (/^[a-z_]+$/.test(key)) fields[key] = value
  let dir: string | undefined
  if (url.password) {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'glossary-pgpass-'))
    const file = path.join(dir, 'pgpass')
    const line = ['*', '*', '*', '*', decodeURIComponent(url.password)].map(passfileField).join(':')
    fs.writeFileSync(file, line + '\n', { mode: 0o600 })
    fields.passfile = file
  }
  const conninfo = Object.entries(fields)
    .map(([key, value]) => `${key}=${conninfoValue(value)}`)
    .join(' ')
  return { conninfo, dispose: () => dir && fs.rmSync(dir, { recursive: true, force: true }) }
}

/** The lines of a program's stderr that say what went wrong (never the connection string: it is not echoed). */
function firstError(stderr: string): string {
  const lines = stderr.split('\n').filter((l) => l.trim() !== '')
  return (lines.find((l) => /error/i.test(l)) ?? lines[0] ?? 'no message').trim()
}

/**
 * `pg_dump --format=custom` of the database into `outFile`, reading the exported snapshot `snapshot` (the
 * transaction that exported it must stay open until this resolves).
 */
export async function pgDump(
  databaseUrl: string,
  outFile: string,
  snapshot: string,
  serverMajor: number,
): Promise<void> {
  await assertToolFits('pg_dump', serverMajor)
  const { conninfo, dispose } = connectionFor(databaseUrl)
  try {
    const result = await run('pg_dump', [
      '--format=custom',
      `--snapshot=${snapshot}`,
      '--no-password',
      `--file=${outFile}`,
      `--dbname=${conninfo}`,
    ])
    if (result.code !== 0) throw new BackupError(`pg_dump failed: ${firstError(result.stderr)}`)
  } finally {
    dispose()
  }
}

/**
 * `pg_restore` of a custom-format dump into `database` of the server of `databaseUrl`, without owners and
 * privileges (the target's role owns what it restores). The extensions' comments are left out: only their owner,
 * a superuser, may set them, and they are not the glossary's data.
 */
export async function pgRestore(
  databaseUrl: string,
  database: string,
  dumpFile: string,
  serverMajor: number,
): Promise<void> {
  await assertToolFits('pg_restore', serverMajor)
  const listed = await run('pg_restore', ['--list', dumpFile])
  if (listed.code !== 0)
    throw new BackupError(`pg_restore cannot read the dump: ${firstError(listed.stderr)}`)
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'glossary-restore-list-'))
  const listFile = path.join(dir, 'list')
  fs.writeFileSync(
    listFile,
    listed.stdout
      .split('\n')
      .filter((line) => !/ COMMENT - EXTENSION /.test(line))
      .join('\n'),
  )
  const { conninfo, dispose } = connectionFor(databaseUrl, database)
  try {
    const result = await run(
      'pg_restore',
      [
        '--no-owner',
        '--no-privileges',
        '--exit-on-error',
        '--single-transaction',
        '--no-password',
        `--use-list=${listFile}`,
        `--dbname=${conninfo}`,
        dumpFile,
      ],
      { stdout: 'ignore' },
    )
    if (result.code !== 0) throw new DumpUnreadableError(`pg_restore failed: ${firstError(result.stderr)}`)
  } finally {
    dispose()
    fs.rmSync(dir, { recursive: true, force: true })
  }
}

/** A name for a scratch database that no one else uses. */
export function scratchDatabaseName(): string {
  return `glossary_verify_${crypto.randomBytes(6).toString('hex')}`
}
