import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import type { MigrationObject } from '@mikro-orm/core'
import { Migration } from '@mikro-orm/migrations'
import { afterEach, describe, expect, it } from 'vitest'
import { testEngine } from '#tests/setup/db.ts'
import { createEmptyPostgresDb } from '#tests/setup/postgres.ts'
import { MIGRATIONS } from '../migrations/index.ts'
import {
  applyMigrations,
  assertNoPendingMigrations,
  MigrationFailedError,
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

const cleanups: (() => Promise<void>)[] = []

afterEach(async () => {
  await closeDb()
  for (const cleanup of cleanups.splice(0)) await cleanup()
})

/**
 * Opens an empty database on the run's engine (tests/setup/db.ts) with `migrations` in use: an embedded one
 * in memory, or on disk when it must outlive `reopen`, or a new PostgreSQL database. `reopen` closes it and
 * opens the same database again with other migrations, as an upgraded process would.
 */
async function openEmpty(
  migrations: MigrationObject[] = MIGRATIONS,
  embedded: 'memory' | 'disk' = 'memory',
): Promise<{ reopen: (migrations: MigrationObject[]) => Promise<void> }> {
  let open: (migrations: MigrationObject[]) => Promise<unknown>
  if (testEngine() === 'postgres') {
    const { url, drop } = await createEmptyPostgresDb()
    cleanups.push(drop)
    open = (migrations) => initDb({ databaseUrl: url, migrations })
  } else {
    const dir = embedded === 'disk' ? fs.mkdtempSync(path.join(os.tmpdir(), 'glossary-migrate-')) : undefined
    if (dir) cleanups.push(async () => fs.rmSync(dir, { recursive: true, force: true }))
    open = async (migrations) => initDb({ pglite: await openPglite(dir), migrations })
  }
  await open(migrations)
  return {
    reopen: async (migrations) => {
      await closeDb()
      await open(migrations)
    },
  }
}

describe('migrations', () => {
  it('an empty database has every migration pending, and refuses to serve', async () => {
    await openEmpty()
    expect(await pendingMigrations()).toEqual(MIGRATIONS.map((m) => m.name))
    await expect(assertNoPendingMigrations()).rejects.toBeInstanceOf(PendingMigrationsError)
    await expect(assertNoPendingMigrations()).rejects.toThrow(/glossary migrate/)
  })

  it('applies all migrations, after which none is pending', async () => {
    await openEmpty()
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
    await openEmpty(migrations)
    const before = await tableNames()
    const failure = await applyMigrations().catch((error: unknown) => error)
    expect(failure).toBeInstanceOf(MigrationFailedError)
    // One line for the operator: the migration, the database's words, and that nothing was applied.
    const { message } = failure as MigrationFailedError
    expect(message).toMatch(
      /^Migration Migration29990101000000_broken failed: .*this_function_does_not_exist.*No pending migration was applied/,
    )
    expect(message).not.toMatch(/\n|\bat /)
    expect(await tableNames()).toEqual(before)
    expect(await pendingMigrations()).toEqual(migrations.map((m) => m.name))
  })

  it('a failing migration on a migrated (on-disk) database adds nothing and stays pending', async () => {
    const database = await openEmpty(MIGRATIONS, 'disk')
    await applyMigrations()
    const before = await tableNames()
    const migrations = [
      ...MIGRATIONS,
      { name: 'Migration29990101000000_broken', class: Migration29990101000000_broken },
    ]
    await database.reopen(migrations)
    expect(await pendingMigrations()).toEqual(['Migration29990101000000_broken'])
    await expect(applyMigrations()).rejects.toThrow()
    expect(await tableNames()).toEqual(before)
    expect(await pendingMigrations()).toEqual(['Migration29990101000000_broken'])
  })

  it('adds the forms that differ only by letter case, which the old rules folded away', async () => {
    await openEmpty()
    const migrator = getDb().orm.getMigrator() as unknown as { up(o: { to: string }): Promise<unknown> }
    await migrator.up({ to: 'Migration20261121000600_trigram' })
    const sql = getDb().em.getConnection()
    const id = '00000000-0000-4000-8000-000000000001'
    const content = {
      slug: 'api',
      name: 'API',
      fullName: null,
      nameEn: 'Api',
      nameKo: null,
      notations: [
        { text: 'Api', kind: 'preferred', lang: null },
        { text: 'ＡＰＩ', kind: 'preferred', lang: null },
        { text: 'A.P.I.', kind: 'deprecated', lang: null },
      ],
      domains: [],
      categories: [],
      tags: [],
      status: 'active',
      definition: 'x',
      body: '',
    }
    // As the old code stored it: `Api` (name and notation) and `ＡＰＩ` folded into the name `API`.
    await sql.execute(
      `insert into terms (id, slug, name, name_en, status, revision, content_hash, search_text)
       values (?, 'api', 'API', 'Api', 'active', 1, 'h', ?)`,
      [id, '\u0001api\u0001a.p.i.\u0001'],
    )
    await sql.execute(
      `insert into term_revisions (id, term_id, revision, content, content_hash) values (gen_random_uuid(), ?, 1, ?::jsonb, 'h')`,
      [id, JSON.stringify(content)],
    )
    await sql.execute(
      `insert into term_notations (id, term_id, text, normalized, kind, lang, source, position) values
         (gen_random_uuid(), ?, 'API', 'api', 'preferred', null, 'name', 0),
         (gen_random_uuid(), ?, 'A.P.I.', 'a.p.i.', 'deprecated', null, 'notation', 1)`,
      [id, id],
    )
    await applyMigrations()
    const rows = await sql.execute<{ text: string; normalized: string; kind: string; source: string }[]>(
      'select text, normalized, kind, source from term_notations where term_id = ? order by position, text',
      [id],
    )
    // `ＡＰＩ` is `API` once width folds, so it stays folded into the name; `Api` becomes a form of its own.
    expect(rows).toEqual([
      { text: 'API', normalized: 'api', kind: 'preferred', source: 'name' },
      { text: 'A.P.I.', normalized: 'a.p.i.', kind: 'deprecated', source: 'notation' },
      { text: 'Api', normalized: 'api', kind: 'preferred', source: 'name_en' },
    ])
  })
})
