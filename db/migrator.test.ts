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

  it('adds the forms that differ only by letter case, which the old rules folded away', async () => {
    await initDb({ pglite: await openPglite() })
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
