import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import {
  automaticBackupName,
  backupBeforeMigration,
  pruneAutomaticBackups,
} from '#app/services/backup/automatic.server.ts'
import { em } from '#db/orm.ts'
import { RELEASE } from '#domain/release.ts'
import { useTestDb } from '#tests/setup/db.ts'
import { MIGRATIONS } from '../../../migrations/index.ts'

/**
 * `glossary start`'s backup before a pending migration (issue 31): taken only when a migration is pending on a
 * database that holds one already, into the given folder, the newest N kept. (`tests/e2e/upgrade.e2e.test.ts`
 * runs it through `glossary start` on a real data directory.)
 */
useTestDb()
const dirs: string[] = []
const tempDir = () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'glossary-auto-backup-'))
  dirs.push(dir)
  return dir
}
afterAll(() => {
  for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true })
})

describe('the automatic backup before a migration', () => {
  it('is not taken when nothing is pending', async () => {
    const dir = tempDir()
    expect(await backupBeforeMigration({ dir, keep: 5 })).toBeUndefined()
    expect(fs.readdirSync(dir)).toEqual([])
  })

  it('is taken when a migration is pending on a database that holds data', async () => {
    const last = MIGRATIONS.at(-1)!.name
    // The last migration looks pending to the migrator (its record is put back afterwards, nothing is applied).
    const [record] = await em().execute<{ name: string; executed_at: Date }[]>(
      'select name, executed_at from mikro_orm_migrations where name = ?',
      [last],
    )
    await em().execute('delete from mikro_orm_migrations where name = ?', [last])
    const dir = path.join(tempDir(), 'backups')
    try {
      const result = await backupBeforeMigration({ dir, keep: 5 })
      expect(result).toBeDefined()
      expect(path.dirname(result!.file)).toBe(dir)
      expect(path.basename(result!.file)).toMatch(/^before-migration-\d{8}T\d{6}Z\.glossary-backup$/)
      expect(fs.statSync(result!.file).size).toBe(result!.bytes)
      expect(result!.manifest.migrations).not.toContain(last)
      // The release the database was at (what to run again after restoring it), beside the code's.
      expect(result!.manifest).toMatchObject({ release: RELEASE, databaseRelease: RELEASE })
    } finally {
      await em().execute('insert into mikro_orm_migrations (name, executed_at) values (?, ?)', [
        record!.name,
        record!.executed_at,
      ])
    }
  })

  it('keeps the newest N automatic backups and never deletes other files', () => {
    const dir = tempDir()
    const names = [0, 1, 2, 3].map((day) => automaticBackupName(new Date(Date.UTC(2026, 10, 20 + day, 8))))
    for (const name of [...names, 'mine.glossary-backup', 'notes.txt'])
      fs.writeFileSync(path.join(dir, name), 'x')
    expect(pruneAutomaticBackups(dir, 2)).toEqual(names.slice(0, 2))
    expect(fs.readdirSync(dir).sort()).toEqual(
      [...names.slice(2), 'mine.glossary-backup', 'notes.txt'].sort(),
    )
    expect(pruneAutomaticBackups(dir, 2)).toEqual([])
  })
})
