import fs from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { openPglite } from '#db/orm.ts'
import { MIGRATIONS } from '../../migrations/index.ts'
import { runCli, startService, tempDataDir } from './harness.ts'

/**
 * The embedded default's upgrade (issue 31): `glossary start` on a database of the previous release takes a
 * backup before it applies the pending migration, and that backup verifies and restores into an empty data
 * directory, from which the service starts again with the same accounts.
 */

const ADMIN = {
  GLOSSARY_ADMIN_EMAIL: 'upgrade-admin@example.com',
  GLOSSARY_ADMIN_PASSWORD: 'upgrade-pass-1234',
}

/** The last migration of release 0.3.3 before the release check: what came after it is this release's. */
const PREVIOUS_LAST = 'Migration20261202001000_sync'
const NEW_MIGRATIONS = MIGRATIONS.slice(MIGRATIONS.findIndex((m) => m.name === PREVIOUS_LAST) + 1)

/** Turns a migrated data directory into one of the release before the release check (this release's undone). */
async function asPreviousRelease(dataDir: string): Promise<void> {
  const pglite = await openPglite(path.join(dataDir, 'db'))
  try {
    await pglite.exec('drop table glossary_release; alter table wiki_pages drop column term_links')
    for (const table of ['term_chunks', 'wiki_chunks', 'meeting_chunks']) {
      await pglite.exec(
        `alter table ${table} drop column seq;
         create index ${table}_embedding_idx on ${table} using hnsw (embedding vector_cosine_ops) with (m = 16, ef_construction = 64)`,
      )
    }
    for (const { name } of NEW_MIGRATIONS) {
      await pglite.query('delete from mikro_orm_migrations where name = $1', [name])
    }
  } finally {
    await pglite.close()
    fs.rmSync(path.join(dataDir, 'db.lock'))
  }
}

async function signIn(url: string): Promise<number> {
  const res = await fetch(`${url}/api/v1/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: url },
    body: JSON.stringify({ email: ADMIN.GLOSSARY_ADMIN_EMAIL, password: ADMIN.GLOSSARY_ADMIN_PASSWORD }),
  })
  return res.status
}

describe('an upgrade of the embedded default', () => {
  it('glossary start backs up before migrating; the backup verifies and restores into a working service', async () => {
    const dataDir = tempDataDir()
    const env = { GLOSSARY_DATA_DIR: dataDir }
    expect(runCli(['migrate'], env).code).toBe(0)
    expect(runCli(['seed-admin'], { ...env, ...ADMIN }).code).toBe(0)
    await asPreviousRelease(dataDir)

    const service = await startService('start', { dataDir })
    let backups: string[]
    try {
      backups = fs.readdirSync(path.join(dataDir, 'backups'))
      expect(backups).toHaveLength(1)
      expect(backups[0]).toMatch(/^before-migration-\d{8}T\d{6}Z\.glossary-backup$/)
      expect(service.output()).toContain(`backup taken before applying ${NEW_MIGRATIONS.length} migration(s)`)
      expect(await signIn(service.url)).toBe(200)
    } finally {
      await service.stop()
    }
    const file = path.join(dataDir, 'backups', backups[0]!)

    const verified = runCli(['verify-backup', file], env)
    expect(verified.code, verified.stdout + verified.stderr).toBe(0)

    const restoredDir = tempDataDir()
    const restored = runCli(['restore', file], { GLOSSARY_DATA_DIR: restoredDir })
    expect(restored.code, restored.stdout + restored.stderr).toBe(0)
    // The restored database is the one from before the upgrade: its start migrates it again, after a backup.
    const again = await startService('start', { dataDir: restoredDir })
    try {
      expect(await signIn(again.url)).toBe(200)
      expect(fs.readdirSync(path.join(restoredDir, 'backups'))).toHaveLength(1)
    } finally {
      await again.stop()
    }
  })
})
