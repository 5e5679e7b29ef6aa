import fs from 'node:fs'
import path from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { openPglite } from '#db/orm.ts'
import { RELEASE } from '#domain/release.ts'
import { MIGRATIONS } from '../../migrations/index.ts'
import { createScratchDatabase, type ScratchDatabase } from './cluster.ts'
import { runCli, startService, tempDataDir } from './harness.ts'

/**
 * One release across processes, through the real command line (issue 31, spec "Versioning"): `glossary version`
 * names the code's and the database's release; `glossary web` and `glossary worker` refuse a database of another
 * release, older or newer, in one line naming both; a running web's `/readyz` answers 503 once the database
 * moved to another release. On the embedded engine and on the machine's PostgreSQL.
 */

/** Sets the recorded release of an embedded data directory (no glossary process holds it). */
async function setEmbeddedRelease(dataDir: string, release: string): Promise<void> {
  const pglite = await openPglite(path.join(dataDir, 'db'))
  try {
    await pglite.query('update glossary_release set release = $1', [release])
  } finally {
    await pglite.close()
    fs.rmSync(path.join(dataDir, 'db.lock')) // the lock openPglite took for this process
  }
}

/**
 * `/readyz` of a running web. Seconds pass between calls here (each refused command starts a process), so a
 * kept-alive socket may be closing as it is reused: such a request is made again, once.
 */
async function readyz(url: string): Promise<Response> {
  try {
    return await fetch(`${url}/readyz`)
  } catch {
    return fetch(`${url}/readyz`)
  }
}

function expectRefusal(result: ReturnType<typeof runCli>, databaseRelease: string): void {
  expect(result.code).toBe(1)
  expect(result.stderr).toContain(
    `The database is at release ${databaseRelease} and this glossary is release ${RELEASE}`,
  )
  expect(result.stderr).not.toMatch(/\n\s+at /) // one line, no stack
}

describe('the release check on the embedded engine', () => {
  const dataDir = tempDataDir()
  const env = { GLOSSARY_DATA_DIR: dataDir }

  it('glossary version names the code release, and the database release once migrated', () => {
    const before = runCli(['version'], env)
    expect(before.code).toBe(0)
    expect(before.stdout).toContain(`code: release ${RELEASE}`)
    expect(before.stdout).toMatch(/database: none yet in .*db \(`glossary start` creates it\)/)
    expect(runCli(['migrate'], env).code).toBe(0)
    const after = runCli(['version'], env)
    expect(after.stdout).toContain(
      `database: release ${RELEASE} (${MIGRATIONS.length} migrations, the last ${MIGRATIONS.at(-1)!.name}; migrated `,
    )
    expect(after.stdout).not.toContain('pending')
  })

  it.each(['0.3.2', '0.4.0'])('web and worker refuse a database at release %s', async (release) => {
    await setEmbeddedRelease(dataDir, release)
    expectRefusal(runCli(['web'], env), release)
    expectRefusal(runCli(['worker'], env), release)
    expect(runCli(['version'], env).stdout).toContain('the releases differ: web and worker refuse to start')
  })

  it('migrate of this release records it over an older one; it never migrates a newer one', async () => {
    await setEmbeddedRelease(dataDir, '9.0.0')
    const refused = runCli(['migrate'], env)
    expect(refused.code).toBe(1)
    expect(refused.stderr).toContain('The database is at release 9.0.0, newer than this glossary')
    await setEmbeddedRelease(dataDir, '0.3.2')
    expect(runCli(['migrate'], env).code).toBe(0)
    expect(runCli(['version'], env).stdout).toContain(`database: release ${RELEASE} `)
  })
})

describe('the release check on PostgreSQL', () => {
  let database: ScratchDatabase
  afterAll(async () => {
    await database?.drop()
  })

  it('web and worker refuse another release; a running web turns unready when the database moves on', async () => {
    database = await createScratchDatabase()
    const env = { DATABASE_URL: database.url, GLOSSARY_DATA_DIR: tempDataDir() }
    expect(runCli(['migrate'], env).code).toBe(0)
    const web = await startService('web', { env })
    try {
      expect((await readyz(web.url)).status).toBe(200)
      for (const release of ['0.3.1', '1.0.0']) {
        await database.sql('update glossary_release set release = $1', [release])
        expectRefusal(runCli(['web'], env), release)
        expectRefusal(runCli(['worker'], env), release)
        const report = await readyz(web.url)
        expect(report.status).toBe(503)
        expect(((await report.json()) as { checks: { release: string } }).checks.release).toContain(
          `release ${release}`,
        )
      }
    } finally {
      await web.stop()
    }
  })
})
