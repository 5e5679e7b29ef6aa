import fs from 'node:fs'
import path from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { callApi, createScratchDatabase, expectJson, sessionCookieOf } from './cluster.ts'
import { runCli, startService, tempDataDir, type RunningService } from './harness.ts'

/**
 * `glossary backup`, `verify-backup` and `restore` as an operator runs them on the embedded default (issue 31):
 * a backup refused while the service holds the database, taken once it is stopped, verified, restored into a
 * fresh data folder that `glossary start` then serves with the same term; and the one line an operator reads
 * when PostgreSQL's pg_dump is not installed.
 */

// Both installations read their stored secrets with the same key, as an operator restoring elsewhere sets it.
const KEY = { GLOSSARY_ENCRYPTION_KEY: 'backup-e2e-encryption-key-0123456789abcdef' }
const source = tempDataDir()
const target = tempDataDir()
const outDir = tempDataDir()
const backupFile = path.join(outDir, 'glossary.backup')
const services: RunningService[] = []

afterAll(async () => {
  for (const service of services) await service.stop()
  for (const dir of [source, target, outDir]) fs.rmSync(dir, { recursive: true, force: true })
})

function expectOneLine(result: { stderr: string }, pattern: RegExp) {
  expect(result.stderr).toMatch(pattern)
  expect(result.stderr.trim().split('\n')).toHaveLength(1)
  expect(result.stderr).not.toMatch(/\n\s+at /)
}

describe('backup, verify-backup and restore of the embedded database', () => {
  let cookie = ''
  let slug = ''

  it('takes a backup only once the running service is stopped, without the key in it', async () => {
    const service = await startService('start', { dataDir: source, env: KEY })
    services.push(service)
    const setup = await callApi(service.url, '/setup', {
      method: 'POST',
      body: { email: 'admin@example.test', password: 'admin password 1', name: 'Ada Admin' },
    })
    cookie = sessionCookieOf(setup)
    await expectJson(setup)
    const created = await expectJson<{ slug: string }>(
      await callApi(service.url, '/terms', {
        method: 'POST',
        cookie,
        body: { name: 'Backup Ledger', definition: 'The book a restore brings back.' },
      }),
      201,
    )
    slug = created.slug
    await expectJson(
      await callApi(service.url, '/admin/rag-config', {
        method: 'PATCH',
        cookie,
        body: { embeddingBaseUrl: 'http://127.0.0.1:9/v1', embeddingApiKey: 'sk-e2e-backup' },
      }),
    )

    const held = runCli(['backup', '--out', backupFile], { GLOSSARY_DATA_DIR: source, ...KEY })
    expect(held.code).toBe(1)
    expectOneLine(held, /held by a running glossary service: stop it first \(the upgrade procedure/)
    expect(fs.existsSync(backupFile)).toBe(false)

    await service.stop()
    const done = runCli(['backup', '--out', backupFile], { GLOSSARY_DATA_DIR: source, ...KEY })
    expect(done.code, done.stderr).toBe(0)
    expect(done.stdout).toContain(`backup written: ${backupFile}`)
    expect(done.stdout).toMatch(
      /The encryption key is NOT in the backup: it is the environment variable GLOSSARY_ENCRYPTION_KEY/,
    )
    expect(fs.readFileSync(backupFile).includes(Buffer.from(KEY.GLOSSARY_ENCRYPTION_KEY))).toBe(false)
  })

  it('verifies the backup, in text and as JSON', () => {
    const text = runCli(['verify-backup', backupFile], { GLOSSARY_DATA_DIR: tempDataDir(), ...KEY })
    expect(text.code, text.stdout + text.stderr).toBe(0)
    expect(text.stdout).toContain('backup verified: everything matches the manifest')
    expect(text.stdout).toContain('readable: search settings: embedding API key')
    const json = runCli(['verify-backup', backupFile, '--json'], { GLOSSARY_DATA_DIR: tempDataDir(), ...KEY })
    expect(json.code).toBe(0)
    const report = JSON.parse(json.stdout) as {
      ok: boolean
      secrets: { readable: boolean }[]
      problems: string[]
    }
    expect(report).toMatchObject({ ok: true, problems: [] })
    expect(report.secrets).toEqual([{ location: 'search settings: embedding API key', readable: true }])
    // Another key: the secret is reported unreadable and the exit code says so.
    const otherKey = runCli(['verify-backup', backupFile], {
      GLOSSARY_DATA_DIR: tempDataDir(),
      GLOSSARY_ENCRYPTION_KEY: 'another-key-0123456789abcdef0123456789',
    })
    expect(otherKey.code).toBe(1)
    expect(otherKey.stdout).toContain('NOT READABLE: search settings: embedding API key')
  })

  it('restores into an empty data folder only, and `glossary start` serves the same term from it', async () => {
    const restored = runCli(['restore', backupFile], { GLOSSARY_DATA_DIR: target, ...KEY })
    expect(restored.code, restored.stdout + restored.stderr).toBe(0)
    expect(restored.stdout).toContain('restore verified: everything matches the manifest')
    const again = runCli(['restore', backupFile], { GLOSSARY_DATA_DIR: target, ...KEY })
    expect(again.code).toBe(1)
    expectOneLine(again, /db is not empty: restore writes only into a missing or empty data directory/)

    const service = await startService('start', { dataDir: target, env: KEY })
    services.push(service)
    // The session made at the source is a row of the restored database too.
    const term = await expectJson<{ slug: string; definition: string }>(
      await callApi(service.url, `/terms/${slug}`, { cookie }),
    )
    expect(term).toMatchObject({ slug, definition: 'The book a restore brings back.' })
    await service.stop()
  })

  it('refuses bad usage with exit code 2 and a file that is not a backup with one line', () => {
    for (const command of ['backup', 'verify-backup', 'restore']) {
      const help = runCli([command, '--help'])
      expect(help.code, command).toBe(0)
      expect(help.stdout).toContain(`glossary ${command}`)
      expect(runCli(['--help']).stdout).toContain(`  ${command} `)
    }
    const usage = runCli(['backup'], { GLOSSARY_DATA_DIR: source })
    expect(usage.code).toBe(2)
    expect(usage.stderr).toContain('--out <file> is required')
    const notes = path.join(outDir, 'notes.txt')
    fs.writeFileSync(notes, 'hello\n')
    const bad = runCli(['verify-backup', notes], { GLOSSARY_DATA_DIR: tempDataDir(), ...KEY })
    expect(bad.code).toBe(1)
    expectOneLine(bad, /is not a readable glossary backup/)
  })
})

describe('backup of a PostgreSQL database', () => {
  it('names the Debian package in one line when pg_dump is not on PATH, and leaves no file', async () => {
    const database = await createScratchDatabase()
    try {
      const out = path.join(outDir, 'pg.backup')
      const result = runCli(['backup', '--out', out], {
        DATABASE_URL: database.url,
        GLOSSARY_DATA_DIR: tempDataDir(),
        PATH: '/nonexistent',
      })
      expect(result.code).toBe(1)
      expectOneLine(
        result,
        /pg_dump was not found on PATH: .*install the Debian package postgresql-client-15/,
      )
      expect(fs.existsSync(out)).toBe(false)
      expect(fs.readdirSync(outDir).filter((name) => name.startsWith('.glossary-backup-'))).toEqual([])
    } finally {
      await database.drop()
    }
  })
})
