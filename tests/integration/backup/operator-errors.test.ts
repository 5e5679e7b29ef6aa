import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { backupCli, parseBackupArgs } from '#app/server/backup-cli.server.ts'
import { checkMigrations } from '#app/services/backup/checks.server.ts'
import { createBackup } from '#app/services/backup/create.server.ts'
import { BackupError } from '#app/services/backup/errors.ts'
import type { Manifest } from '#app/services/backup/manifest.ts'
import { connectionFor } from '#app/services/backup/pg-tools.server.ts'
import { restoreBackup } from '#app/services/backup/restore.server.ts'
import { verifyBackup } from '#app/services/backup/verify.server.ts'
import { getDb } from '#db/orm.ts'
import { RELEASE } from '#domain/release.ts'
import { MIGRATIONS } from '../../../migrations/index.ts'
import { testEngine, useTestDb } from '#tests/setup/db.ts'

/**
 * The operator's situations of the backup commands (issue 31), each one clear line: the migrator's check of a
 * backup taken before an upgrade or by a newer release, the PostgreSQL client missing, a role that may not
 * create the scratch database, and the password of DATABASE_URL kept off the client's command line.
 */

useTestDb()

const engine = testEngine()
let work: string

beforeAll(() => {
  work = fs.mkdtempSync(path.join(os.tmpdir(), 'glossary-backup-errors-'))
})

afterAll(() => {
  vi.unstubAllEnvs()
  fs.rmSync(work, { recursive: true, force: true })
})

const names = MIGRATIONS.map((m) => m.name)
const manifestWith = (migrations: string[], release = RELEASE) => ({ migrations, release }) as Manifest

describe('the migrator check of a restored backup', () => {
  it('accepts a backup taken before an upgrade and says how many migrations are pending', () => {
    const applied = names.slice(0, -2)
    expect(checkMigrations(applied, manifestWith(applied))).toEqual({ pending: 2, problems: [] })
    expect(checkMigrations(names, manifestWith(names))).toEqual({ pending: 0, problems: [] })
  })

  it('reports a backup of a newer release as such', () => {
    const applied = [...names, 'Migration20991231000000_future']
    const { problems } = checkMigrations(applied, manifestWith(applied, '9.0.0'))
    expect(problems).toEqual([
      expect.stringMatching(/comes from a newer release \(9\.0\.0; this is .*_future/),
    ])
  })

  it('reports migrations that differ from the manifest or from this release order', () => {
    const swapped = [names[1]!, names[0]!, ...names.slice(2)]
    expect(checkMigrations(swapped, manifestWith(swapped)).problems).toEqual([
      expect.stringMatching(/applied out of this release's order/),
    ])
    expect(checkMigrations(names.slice(0, 3), manifestWith(names.slice(0, 4))).problems[0]).toMatch(
      /restored database applied 3, the manifest lists 4/,
    )
  })
})

describe('the PostgreSQL client', () => {
  it('keeps the password of DATABASE_URL off the command line, in a passfile it removes', () => {
    const { conninfo, dispose } = connectionFor(
      'postgres://app:s3cr%3At@db.example:6543/glossary?sslmode=require',
    )
    expect(conninfo).not.toContain('s3cr')
    expect(conninfo).toMatch(
      /host='db\.example' port='6543' dbname='glossary' user='app' sslmode='require' passfile='/,
    )
    const passfile = /passfile='([^']+)'/.exec(conninfo)![1]!
    expect(fs.readFileSync(passfile, 'utf8')).toBe('*:*:*:*:s3cr\\:t\n')
    expect(fs.statSync(passfile).mode & 0o777).toBe(0o600)
    dispose()
    expect(fs.existsSync(passfile)).toBe(false)
  })

  it.runIf(engine === 'postgres')(
    'names the Debian package when pg_dump is not on PATH, and leaves no file',
    async () => {
      vi.stubEnv('PATH', '/nonexistent')
      try {
        const out = path.join(work, 'no-client.backup')
        const error = await createBackup(out).catch((e: unknown) => e)
        expect(error).toBeInstanceOf(BackupError)
        expect((error as Error).message).toMatch(/^pg_dump was not found on PATH: .*postgresql-client-15/)
        expect(fs.readdirSync(work)).toEqual([])
      } finally {
        vi.unstubAllEnvs()
      }
    },
  )

  it.runIf(engine === 'postgres')(
    'says in one line that the role may not create the scratch database, or pgvector in it',
    async () => {
      const out = path.join(work, 'ok.backup')
      await createBackup(out)
      const url = new URL(getDb().orm.config.get('clientUrl')!)
      const role = `glossary_nocreatedb_${process.pid}`
      const admin = new pg.Client({ connectionString: url.toString() })
      await admin.connect()
      try {
        await admin.query(`create role ${role} login nocreatedb`)
        url.username = role
        const error = await verifyBackup(out, { databaseUrl: url.toString() }).catch((e: unknown) => e)
        expect(error).toBeInstanceOf(BackupError)
        expect((error as Error).message).toMatch(
          new RegExp(`the role "${role}" of DATABASE_URL may not create databases`),
        )
        // With CREATEDB but not a superuser: the scratch database, but not pgvector in it.
        await admin.query(`alter role ${role} createdb`)
        const noVector = await verifyBackup(out, { databaseUrl: url.toString() }).catch((e: unknown) => e)
        expect(noVector).toBeInstanceOf(BackupError)
        expect((noVector as Error).message).toMatch(
          /^verify-backup needs the extension "vector" in the scratch database glossary_verify_\w+, .*superuser/,
        )
        // Restore into an empty database the role owns, where no superuser created the extensions yet.
        await admin.query(`create database ${role} owner ${role}`)
        url.pathname = `/${role}`
        const restore = await restoreBackup(out, { dataDir: work, databaseUrl: url.toString() }).catch(
          (e: unknown) => e,
        )
        expect(restore).toBeInstanceOf(BackupError)
        expect((restore as Error).message).toContain(
          'a PostgreSQL superuser must run, once, in that database: create extension if not exists vector;',
        )
      } finally {
        await admin.query(`drop database if exists ${role} with (force)`)
        const [{ n }] = (
          await admin.query<{ n: number }>(
            `select count(*)::int as n from pg_database where datname like 'glossary_verify_%'`,
          )
        ).rows
        expect(n).toBe(0)
        await admin.query(`drop role if exists ${role}`)
        await admin.end()
        fs.rmSync(out, { force: true })
      }
    },
  )
})

describe('the command line', () => {
  it('parses its arguments, and answers bad usage with exit code 2 without opening the database', async () => {
    expect(parseBackupArgs('backup', ['--out', 'x.backup'])).toEqual({ file: 'x.backup', json: false })
    expect(parseBackupArgs('backup', ['--out=x.backup', '--json'])).toEqual({ file: 'x.backup', json: true })
    expect(parseBackupArgs('verify-backup', ['x.backup', '--json'])).toEqual({ file: 'x.backup', json: true })
    expect(parseBackupArgs('backup', ['x.backup'])).toEqual({ usage: 'unexpected argument "x.backup"' })
    expect(parseBackupArgs('restore', [])).toEqual({ usage: 'the backup file is required' })
    expect(parseBackupArgs('restore', ['a', 'b'])).toEqual({ usage: 'unexpected argument "b"' })
    const host = { openDatabase: vi.fn(async () => undefined), closeDatabase: vi.fn(async () => undefined) }
    const stderr = vi.spyOn(process.stderr, 'write').mockImplementation(() => true)
    try {
      expect(await backupCli('backup', ['--out'], host)).toBe(2)
    } finally {
      stderr.mockRestore()
    }
    expect(host.openDatabase).not.toHaveBeenCalled()
  })

  it('prints the result of `backup --json` as JSON, and closes the database it opened', async () => {
    const host = { openDatabase: vi.fn(async () => undefined), closeDatabase: vi.fn(async () => undefined) }
    const out = path.join(work, 'json.backup')
    let printed = ''
    const stdout = vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => {
      printed += String(chunk)
      return true
    })
    try {
      expect(await backupCli('backup', ['--out', out, '--json'], host)).toBe(0)
    } finally {
      stdout.mockRestore()
      fs.rmSync(out, { force: true })
    }
    const result = JSON.parse(printed) as { file: string; bytes: number; manifest: { engine: string } }
    expect(result).toMatchObject({ file: out, manifest: { engine } })
    expect(host.closeDatabase).toHaveBeenCalledTimes(1)
  })
})
