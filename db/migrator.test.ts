import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { Migration } from '@mikro-orm/migrations'
import { afterEach, describe, expect, it } from 'vitest'
import { MIGRATIONS } from '../migrations/index.ts'
import {
  applyMigrations,
  assertNoPendingMigrations,
  pendingMigrations,
  PendingMigrationsError,
} from './migrator.ts'
import { closeDb, getDb, initDb, openPglite } from './orm.ts'

class Migration29990101000000_broken extends Migration {
  override async up(): Promise<void> {
    this.addSql('create table half_done (id int primary key);')
    this.addSql('select this_function_does_not_exist();')
  }
}

async function tableNames(): Promise<string[]> {
  const rows = await getDb()
    .em.getConnection()
    .execute<{ table_name: string }[]>(
      "select table_name from information_schema.tables where table_schema = 'public' order by table_name",
    )
  // The migrator's own bookkeeping table is created before the migrations run; it is not part of the schema.
  return rows.map((r) => r.table_name).filter((name) => name !== 'mikro_orm_migrations')
}

afterEach(async () => {
  await closeDb()
})

describe('migrations', () => {
  it('an empty database has every migration pending, and refuses to serve', async () => {
    await initDb({ pglite: await openPglite() })
    expect(await pendingMigrations()).toEqual(MIGRATIONS.map((m) => m.name))
    await expect(assertNoPendingMigrations()).rejects.toBeInstanceOf(PendingMigrationsError)
    await expect(assertNoPendingMigrations()).rejects.toThrow(/glossary migrate/)
  })

  it('applies all migrations, after which none is pending', async () => {
    await initDb({ pglite: await openPglite() })
    expect(await applyMigrations()).toEqual(MIGRATIONS.map((m) => m.name))
    expect(await pendingMigrations()).toEqual([])
    await expect(assertNoPendingMigrations()).resolves.toBeUndefined()
    const extensions = await getDb()
      .em.getConnection()
      .execute("select extname from pg_extension where extname = 'vector'")
    expect(extensions).toHaveLength(1)
  })

  it('a failing migration leaves the schema exactly as it was', async () => {
    const migrations = [
      ...MIGRATIONS,
      { name: 'Migration29990101000000_broken', class: Migration29990101000000_broken },
    ]
    await initDb({ pglite: await openPglite(), migrations })
    const before = await tableNames()
    await expect(applyMigrations()).rejects.toThrow()
    expect(await tableNames()).toEqual(before)
    expect(await pendingMigrations()).toEqual(migrations.map((m) => m.name))
  })

  it('a failing migration on a migrated (on-disk) database adds nothing and stays pending', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'glossary-migrate-'))
    await initDb({ pglite: await openPglite(dir), migrations: MIGRATIONS })
    await applyMigrations()
    const before = await tableNames()
    await closeDb()
    const migrations = [
      ...MIGRATIONS,
      { name: 'Migration29990101000000_broken', class: Migration29990101000000_broken },
    ]
    await initDb({ pglite: await openPglite(dir), migrations })
    expect(await pendingMigrations()).toEqual(['Migration29990101000000_broken'])
    await expect(applyMigrations()).rejects.toThrow()
    expect(await tableNames()).toEqual(before)
    expect(await pendingMigrations()).toEqual(['Migration29990101000000_broken'])
    await closeDb()
    fs.rmSync(dir, { recursive: true, force: true })
  })
})
