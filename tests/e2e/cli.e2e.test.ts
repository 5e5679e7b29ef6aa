import fs from 'node:fs'
import path from 'node:path'
import { Worker } from 'node:worker_threads'
import { describe, expect, it } from 'vitest'
import { ROOT, runCli, startService, tempDataDir } from './harness.ts'

const version = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')).version

describe('glossary CLI', () => {
  it('prints its version and help for every command', () => {
    expect(runCli(['version'], { GLOSSARY_DATA_DIR: tempDataDir() }).stdout).toContain(
      `code: release ${version}`,
    )
    const help = runCli(['--help'])
    expect(help.code).toBe(0)
    for (const command of ['start', 'migrate', 'web', 'worker', 'seed-admin', 'version']) {
      expect(help.stdout).toContain(command)
      const sub = runCli([command, '--help'])
      expect(sub.code, command).toBe(0)
      expect(sub.stdout).toContain(`glossary ${command}`)
    }
  })

  it('rejects an unknown command with exit code 2', () => {
    const result = runCli(['frobnicate'])
    expect(result.code).toBe(2)
    expect(result.stderr).toMatch(/unknown command/)
  })

  it('stops on a bad variable, naming every bad one', () => {
    const result = runCli(['migrate'], {
      PORT: 'abc',
      GLOSSARY_ENCRYPTION_KEY: 'short',
      GLOSSARY_DATA_DIR: tempDataDir(),
    })
    expect(result.code).toBe(1)
    expect(result.stderr).toMatch(/PORT/)
    expect(result.stderr).toMatch(/GLOSSARY_ENCRYPTION_KEY/)
    expect(result.stderr).not.toMatch(/at .*\.js:\d+/)
  })

  it('refuses to start in production without allowed origins', () => {
    const result = runCli(['web'], { NODE_ENV: 'production', GLOSSARY_ENCRYPTION_KEY: 'k'.repeat(40) })
    expect(result.code).toBe(1)
    expect(result.stderr).toMatch(/GLOSSARY_ALLOWED_ORIGINS/)
  })

  it('web and worker refuse to start while a migration is pending; migrate fixes it', () => {
    const dataDir = tempDataDir()
    for (const command of ['web', 'worker']) {
      const result = runCli([command], { GLOSSARY_DATA_DIR: dataDir })
      expect(result.code, command).toBe(1)
      expect(result.stderr).toMatch(/migration\(s\) pending/)
      expect(result.stderr).toMatch(/glossary migrate/)
    }
    const migrate = runCli(['migrate'], { GLOSSARY_DATA_DIR: dataDir })
    expect(migrate.code).toBe(0)
    expect(migrate.stdout).toMatch(/applied: Migration/)
    expect(runCli(['migrate'], { GLOSSARY_DATA_DIR: dataDir }).stdout).toMatch(/up to date/)
  })

  it('seed-admin refuses a password on the command line and takes it from the environment', () => {
    const dataDir = tempDataDir()
    const refused = runCli(['seed-admin', '--password', 'hunter2hunter2'], { GLOSSARY_DATA_DIR: dataDir })
    expect(refused.code).toBe(2)
    expect(refused.stderr).toMatch(/never on the command line/)
    expect(runCli(['migrate'], { GLOSSARY_DATA_DIR: dataDir }).code).toBe(0)
    const missing = runCli(['seed-admin'], { GLOSSARY_DATA_DIR: dataDir })
    expect(missing.code).toBe(1)
    expect(missing.stderr).toMatch(/GLOSSARY_ADMIN_PASSWORD/)
    const env = {
      GLOSSARY_DATA_DIR: dataDir,
      GLOSSARY_ADMIN_EMAIL: 'Root@Example.test',
      GLOSSARY_ADMIN_PASSWORD: 'a-long-password',
    }
    const created = runCli(['seed-admin'], env)
    expect(created.code).toBe(0)
    expect(created.stdout).toMatch(/created admin root@example.test/)
    expect(created.stdout + created.stderr).not.toContain('a-long-password')
    expect(runCli(['seed-admin'], env).stdout).toMatch(/exists/)
  })

  it('start works with nothing configured, survives SIGTERM and keeps its data on restart', async () => {
    const dataDir = tempDataDir()
    const first = await startService('start', { dataDir })
    const home = await fetch(`${first.url}/`)
    expect(home.status).toBe(200)
    expect(await home.text()).toContain('<html')
    const openapi = await fetch(`${first.url}/api/v1/openapi`)
    expect((await openapi.json()).openapi).toBe('3.1.0')
    // The embedded default generated its key outside the database folder.
    expect(fs.existsSync(path.join(dataDir, 'keys', 'encryption.key'))).toBe(true)
    expect((fs.statSync(path.join(dataDir, 'keys', 'encryption.key')).mode & 0o777).toString(8)).toBe('600')
    expect(await first.stop('SIGTERM')).toBe(0)
    expect(first.output()).toMatch(/stopped cleanly/)

    // Data written by an admin seed while stopped, then a second start on the same folder.
    const seeded = runCli(['seed-admin'], {
      GLOSSARY_DATA_DIR: dataDir,
      GLOSSARY_ADMIN_EMAIL: 'keep@example.test',
      GLOSSARY_ADMIN_PASSWORD: 'a-long-password',
    })
    expect(seeded.code).toBe(0)
    const second = await startService('start', { dataDir })
    expect(second.output()).not.toMatch(/recover/i)
    // A second process on the same embedded database is refused while the service holds it.
    const locked = runCli(['migrate'], { GLOSSARY_DATA_DIR: dataDir })
    expect(locked.code).toBe(1)
    expect(locked.stderr).toMatch(/in use by another glossary process/)
    // The operator's situation, said without a stack trace.
    expect(locked.stderr).not.toMatch(/\n\s+at /)
    expect(await second.stop('SIGINT')).toBe(0)
    expect(
      runCli(['seed-admin'], {
        GLOSSARY_DATA_DIR: dataDir,
        GLOSSARY_ADMIN_EMAIL: 'keep@example.test',
        GLOSSARY_ADMIN_PASSWORD: 'a-long-password',
      }).stdout,
    ).toMatch(/exists/)
  })

  it('builds the matcher compiler thread its own small file, which compiles on its own', async () => {
    const file = path.join(ROOT, 'build', 'server', 'matcher-compiler.js')
    // The matching modules only: the server build is ~1.5 MB, and a thread started from it loads the whole app.
    expect(fs.statSync(file).size).toBeLessThan(100_000)
    const thread = new Worker(file, { workerData: { role: 'glossary-matcher-compiler' } })
    try {
      const reply = await new Promise<{ id: number; compiled?: { groupOf: Int32Array } }>(
        (resolve, reject) => {
          thread.once('message', resolve)
          thread.once('error', reject)
          thread.postMessage({ id: 7, texts: ['API', '용어'] })
        },
      )
      expect(reply.id).toBe(7)
      expect(reply.compiled?.groupOf).toHaveLength(2)
    } finally {
      await thread.terminate()
    }
  })
})
