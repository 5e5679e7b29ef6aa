import fs from 'node:fs'
import { afterEach, describe, expect, it } from 'vitest'
import { liveWorkers, WORKER_LIVENESS } from '#app/services/index-queue/health.server.ts'
import {
  applyMigrations,
  assertSameRelease,
  databaseRelease,
  releaseMismatch,
  ReleaseMismatchError,
} from '#db/migrator.ts'
import { em } from '#db/orm.ts'
import { RELEASE } from '#domain/release.ts'
import { MIGRATIONS } from '../../../migrations/index.ts'
import { closeJobs } from '#pipeline/jobs/client.ts'
import { startWorker } from '#pipeline/worker.ts'
import { useApiServer } from '#tests/http.ts'
import { useTestDb } from '#tests/setup/db.ts'

/**
 * One release across processes (issue 31, spec "Versioning"): the migrator records the release, web and worker
 * refuse a database of another one, older or newer, `/readyz` answers 503 while it differs, and a running worker
 * stops taking jobs when an upgrade migrated the database under it. On both engines.
 */
useTestDb()
const server = useApiServer()

const setDatabaseRelease = (release: string) =>
  em().execute('update glossary_release set release = ?', [release])

afterEach(async () => {
  await setDatabaseRelease(RELEASE)
})

describe('the release of the code', () => {
  it('is the version package.json gives (what `glossary version`, the migrator and the bundles report)', () => {
    expect(RELEASE).toBe(JSON.parse(fs.readFileSync('package.json', 'utf8')).version)
  })
})

describe('the release of the database', () => {
  it('is recorded by the migrator: this release, every migration, the last one by name', async () => {
    const recorded = await databaseRelease()
    expect(recorded).toMatchObject({
      release: RELEASE,
      migrations: MIGRATIONS.length,
      lastMigration: MIGRATIONS.at(-1)!.name,
    })
    expect(await releaseMismatch()).toBeUndefined()
    await expect(assertSameRelease()).resolves.toBeUndefined()
  })

  it.each([
    ['older', '0.3.2', /Run `glossary migrate` of this release/],
    ['newer', '9.9.9', /run the newer release everywhere/],
  ])('%s than the code: web and worker refuse, naming both releases', async (_, release, advice) => {
    await setDatabaseRelease(release)
    const refused = await assertSameRelease().catch((error: unknown) => error)
    expect(refused).toBeInstanceOf(ReleaseMismatchError)
    const message = (refused as Error).message
    expect(message).toContain(`release ${release}`)
    expect(message).toContain(`release ${RELEASE}`)
    expect(message).toMatch(advice)
    expect(await releaseMismatch()).toBe(message)
  })

  it('an older code never migrates a newer database; migrating an older one records this release', async () => {
    await setDatabaseRelease('9.9.9')
    await expect(applyMigrations()).rejects.toThrow(/newer than this glossary \(release 0\.3\.3\)/)
    expect((await databaseRelease())?.release).toBe('9.9.9')
    await setDatabaseRelease('0.3.2')
    await expect(applyMigrations()).resolves.toEqual([])
    expect((await databaseRelease())?.release).toBe(RELEASE)
  })

  it('/readyz answers 503 with the reason while the releases differ, and 200 again once they agree', async () => {
    await setDatabaseRelease('0.3.4')
    const refused = await fetch(`${server.url()}/readyz`)
    expect(refused.status).toBe(503)
    const report = (await refused.json()) as { ready: boolean; checks: { release: string } }
    expect(report.ready).toBe(false)
    expect(report.checks.release).toMatch(
      /database is at release 0\.3\.4 and this glossary is release 0\.3\.3/,
    )
    await setDatabaseRelease(RELEASE)
    const ok = await fetch(`${server.url()}/readyz`)
    expect(ok.status).toBe(200)
    expect(((await ok.json()) as { checks: { release: string } }).checks.release).toBe('ok')
  })

  it('a running worker stops taking jobs when the database moves to another release, and leaves the live list', async () => {
    const beatEvery = WORKER_LIVENESS.beatEveryMs
    WORKER_LIVENESS.beatEveryMs = 50
    try {
      const worker = await startWorker()
      expect((await liveWorkers()).map((w) => w.id)).toContain(worker.id)
      await setDatabaseRelease('0.4.0')
      await expect
        .poll(async () => (await liveWorkers()).map((w) => w.id), { timeout: 10_000 })
        .not.toContain(worker.id)
      await worker.stop()
    } finally {
      WORKER_LIVENESS.beatEveryMs = beatEvery
      await closeJobs()
    }
  })
})
