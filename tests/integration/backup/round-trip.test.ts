import crypto from 'node:crypto'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import * as tar from 'tar'
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { getConfig, setConfig } from '#app/lib/config.server.ts'
import { encryptSecret, ensureEncryptionKey } from '#app/lib/secrets.server.ts'
import { createBackup } from '#app/services/backup/create.server.ts'
import { BackupError } from '#app/services/backup/errors.ts'
import { ManifestSchema, type Manifest } from '#app/services/backup/manifest.ts'
import { restoreBackup } from '#app/services/backup/restore.server.ts'
import { verifyBackup } from '#app/services/backup/verify.server.ts'
import { ormSession } from '#app/services/backup/sessions.server.ts'
import { tableStats } from '#app/services/backup/table-stats.server.ts'
import { em, getDb, openPglite } from '#db/orm.ts'
import { createTerm, createUser, type TestUser } from '#tests/factories.ts'
import { call, editTermDefinition } from '#tests/integration/content/helpers.ts'
import { createEmptyPostgresDb } from '#tests/setup/postgres.ts'
import { testEngine, useTestDb } from '#tests/setup/db.ts'

/**
 * `glossary backup` → `verify-backup` → `restore` on the engine of the run (issue 31): a database with terms
 * (several revisions), a wiki page, a relation, an attachment and encrypted provider secrets comes back equal
 * (every table's content hash, computed here independently of the backup's own digests); a corrupted backup is
 * refused; a restore never writes into a non-empty target; a secret another key encrypted is reported.
 */

useTestDb()

const engine = testEngine()
let work: string
let editor: TestUser
let backupFile: string
const drops: (() => Promise<void>)[] = []

/** Every public table's rows hashed in a fixed order: what "equal afterwards" means here. */
const HASH_TABLES = `select c.relname as name from pg_class c join pg_namespace n on n.oid = c.relnamespace
  where n.nspname = 'public' and c.relkind = 'r' order by c.relname collate "C"`
const hashOf = (table: string) =>
  `select count(*)::int as n, md5(coalesce(string_agg(md5(t::text), ',' order by md5(t::text)), '')) as h from "${table}" t`

async function hashesOf(
  query: (sql: string) => Promise<Record<string, unknown>[]>,
): Promise<Record<string, string>> {
  await query('begin')
  await query("set local timezone = 'UTC'")
  const out: Record<string, string> = {}
  for (const { name } of (await query(HASH_TABLES)) as { name: string }[]) {
    const [row] = (await query(hashOf(name))) as { n: number; h: string }[]
    out[name] = `${row!.n}:${row!.h}`
  }
  await query('commit')
  return out
}

const sourceHashes = () => hashesOf((sql) => em().execute(sql))

function sourceUrl(): string {
  return getDb().orm.config.get('clientUrl')!
}

async function withClient<T>(url: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    return await work(client)
  } finally {
    await client.end()
  }
}

const verifyOptions = () => (engine === 'postgres' ? { databaseUrl: sourceUrl() } : {})

beforeAll(async () => {
  work = fs.mkdtempSync(path.join(os.tmpdir(), 'glossary-backup-test-'))
  editor = await createUser({ role: 'editor' })
  const terms = []
  for (let i = 0; i < 3; i++) {
    const term = await createTerm({ name: `Backup term ${i}`, actorId: editor.user.id })
    await editTermDefinition(term.id, 1, `Second definition ${i}.`, editor.user.id)
    await editTermDefinition(term.id, 2, `Third definition ${i}, with 'quotes' and ünïcode.`, editor.user.id)
    terms.push(term)
  }
  const wiki = await call('/wiki', {
    method: 'POST',
    headers: editor.sessionHeaders,
    body: { title: 'Backup page', content: '# Restore\n\nsteps', summary: 'how to restore' },
  })
  expect(wiki.status, await wiki.clone().text()).toBe(201)
  const relation = await call('/relations', {
    method: 'POST',
    headers: editor.sessionHeaders,
    body: {
      sourceTermId: terms[0]!.id,
      targetTermId: terms[1]!.id,
      relationType: 'part_of',
      evidenceMd: 'both in the spec',
      sourceRevision: 3,
      targetRevision: 3,
    },
  })
  expect(relation.status, await relation.clone().text()).toBe(201)
  const png = crypto.randomBytes(256)
  await em().execute(
    `insert into attachments (id, sha256, content_type, size, bytes) values (gen_random_uuid(), ?, 'image/png', ?, ?)`,
    [crypto.createHash('sha256').update(png).digest('hex'), png.length, png],
  )
  await em().execute(`update rag_config set embedding_api_key = ?, embedding_headers = ?::jsonb`, [
    encryptSecret('sk-backup-test'),
    JSON.stringify([{ name: 'X-Tenant', value: encryptSecret('tenant-1') }]),
  ])
  // Chunks with vectors: the digest reads a vector column through its binary form (table-stats.server.ts).
  await em().execute(
    `insert into term_chunks (id, term_id, revision, source_field, chunk_index, content, content_hash, model, embedding)
     select gen_random_uuid(), ?, 3, 'definition', g, 'chunk ' || g, md5(g::text), 'bench|model',
            (select array_agg(((g * 1536 + i) % 997) / 997.0)::real[] from generate_series(1, 1536) i)::vector
       from generate_series(0, 4) g`,
    [terms[0]!.id],
  )
  backupFile = path.join(work, 'glossary.backup')
})

afterAll(async () => {
  for (const drop of drops) await drop()
  fs.rmSync(work, { recursive: true, force: true })
})

async function readManifest(file: string): Promise<Manifest> {
  const dir = fs.mkdtempSync(path.join(work, 'm-'))
  await tar.x({ file, cwd: dir })
  return ManifestSchema.parse(JSON.parse(fs.readFileSync(path.join(dir, 'manifest.json'), 'utf8')))
}

/** Rewrites a backup with its dump or manifest changed by `change` (same tar layout). */
async function tampered(name: string, change: (dir: string) => void): Promise<string> {
  const dir = fs.mkdtempSync(path.join(work, 't-'))
  await tar.x({ file: backupFile, cwd: dir })
  change(dir)
  const out = path.join(work, name)
  const dump = engine === 'pglite' ? 'database.tar.gz' : 'database.pgdump'
  await tar.c({ file: out, cwd: dir, portable: true }, ['manifest.json', dump])
  return out
}

describe(`backup and verified restore (${engine})`, () => {
  it('writes one file with the manifest first, every public table in it, and no key', async () => {
    const result = await createBackup(backupFile)
    expect(result.file).toBe(backupFile)
    expect(fs.statSync(backupFile).size).toBe(result.bytes)
    const entries: string[] = []
    await tar.t({ file: backupFile, onReadEntry: (e) => void entries.push(e.path) })
    expect(entries).toEqual(['manifest.json', engine === 'pglite' ? 'database.tar.gz' : 'database.pgdump'])

    const manifest = await readManifest(backupFile)
    expect(manifest.engine).toBe(engine)
    const hashes = await sourceHashes()
    // Every table of the public schema, whatever migration added it (no list kept by hand).
    expect(manifest.tables.map((t) => t.name)).toEqual(Object.keys(hashes))
    for (const table of manifest.tables) expect(String(table.rows)).toBe(hashes[table.name]!.split(':')[0])
    expect(manifest.tables.find((t) => t.name === 'term_revisions')!.rows).toBeGreaterThanOrEqual(9)
    const [{ n }] = await em().execute<{ n: number }[]>('select count(*)::int as n from mikro_orm_migrations')
    expect(manifest.migrations).toHaveLength(n)
    expect(result.key).toContain('GLOSSARY_ENCRYPTION_KEY')
    // The key material never travels with the data.
    const bytes = fs.readFileSync(backupFile)
    expect(bytes.includes(Buffer.from(getConfig().encryptionKey!))).toBe(false)
  })

  it('digests a vector column by its value', async () => {
    const digest = () =>
      getDb()
        .em.fork()
        .transactional(async (tx) =>
          (await tableStats(ormSession(tx))).find((t) => t.name === 'term_chunks')!,
        )
    const before = await digest()
    expect(before.rows).toBe(5)
    // Changed in a transaction that is rolled back: one component of one vector.
    let changed = ''
    const rollback = new Error('roll back')
    await em()
      .transactional(async (tx) => {
        await tx.execute(
          `update term_chunks set embedding = (select array_agg(case when i = 7 then 0.5 else v end)::real[]::vector
           from unnest(embedding::real[]) with ordinality as x(v, i)) where chunk_index = 2`,
        )
        changed = (await tableStats(ormSession(tx))).find((t) => t.name === 'term_chunks')!.digest
        throw rollback
      })
      .catch((error: unknown) => {
        if (error !== rollback) throw error
      })
    expect(changed).toMatch(/^\d+$/)
    expect(changed).not.toBe(before.digest)
    expect(await digest()).toEqual(before)
  })

  it.skipIf(engine !== 'pglite')('leaves out the WAL the embedded database no longer needs', async () => {
    // About 60 MB of WAL: without the checkpoint's removal, its segments would be most of a dump.
    await em().execute('create table wal_churn (v text)')
    await em().execute(
      `insert into wal_churn select repeat(md5(g::text), 60) from generate_series(1, 30000) g`,
    )
    await em().execute('drop table wal_churn')
    const [{ before }] = await em().execute<{ before: number }[]>(
      `select count(*)::int as before from pg_ls_waldir() where name ~ '^[0-9A-F]{24}$'`,
    )
    expect(before).toBeGreaterThan(2)
    const file = path.join(work, 'wal.backup')
    await createBackup(file)
    const dir = fs.mkdtempSync(path.join(work, 'w-'))
    await tar.x({ file, cwd: dir })
    const segments: string[] = []
    await tar.t({
      file: path.join(dir, 'database.tar.gz'),
      onReadEntry: (e) => {
        if (/pg_wal\/[0-9A-F]{24}$/.test(e.path)) segments.push(e.path)
      },
    })
    expect(segments.length).toBeLessThanOrEqual(2)
  })

  it('refuses to overwrite an existing file', async () => {
    await expect(createBackup(backupFile)).rejects.toThrow(BackupError)
  })

  it('verifies: every table, the sample of terms and every secret', async () => {
    const report = await verifyBackup(backupFile, verifyOptions())
    expect(report.problems).toEqual([])
    expect(report.ok).toBe(true)
    expect(report.dump.matchesManifest).toBe(true)
    expect(report.pendingMigrations).toBe(0)
    expect(report.sampledTerms).toBeGreaterThanOrEqual(3)
    expect(report.secrets).toEqual([
      { location: 'search settings: embedding API key', readable: true },
      { location: 'search settings: embedding header "X-Tenant"', readable: true },
    ])
  })

  it('reports a secret the current key cannot read, and fails', async () => {
    const config = getConfig()
    setConfig({ ...config, encryptionKey: 'another-key-that-is-long-enough-0123456789' })
    ensureEncryptionKey()
    try {
      const report = await verifyBackup(backupFile, verifyOptions())
      expect(report.ok).toBe(false)
      expect(report.secrets.every((s) => !s.readable)).toBe(true)
      expect(report.problems.join('\n')).toContain('cannot be decrypted with the current key')
    } finally {
      setConfig(config)
      ensureEncryptionKey()
    }
  })

  it('refuses a dump with one byte flipped', async () => {
    const file = await tampered('flipped.backup', (dir) => {
      const dump = path.join(dir, engine === 'pglite' ? 'database.tar.gz' : 'database.pgdump')
      const bytes = fs.readFileSync(dump)
      const at = Math.floor(bytes.length / 2)
      bytes[at] = bytes[at]! ^ 0xff
      fs.writeFileSync(dump, bytes)
    })
    const report = await verifyBackup(file, verifyOptions())
    expect(report.ok).toBe(false)
    expect(report.dump.matchesManifest).toBe(false)
    expect(report.problems[0]).toMatch(/SHA-256 .* the file is corrupted/)
    // Nor is it restored anywhere.
    await expect(restoreBackup(file, { dataDir: path.join(work, 'never') })).rejects.toThrow(/corrupted/)
    expect(fs.existsSync(path.join(work, 'never'))).toBe(false)
  })

  it('reports a dump that does not load even when the manifest was changed to match it', async () => {
    const file = await tampered('rewritten.backup', (dir) => {
      const name = engine === 'pglite' ? 'database.tar.gz' : 'database.pgdump'
      const dump = path.join(dir, name)
      const bytes = fs.readFileSync(dump)
      const at = Math.floor(bytes.length / 2)
      bytes[at] = bytes[at]! ^ 0xff
      fs.writeFileSync(dump, bytes)
      const manifest = JSON.parse(fs.readFileSync(path.join(dir, 'manifest.json'), 'utf8')) as Manifest
      manifest.dump.sha256 = crypto.createHash('sha256').update(bytes).digest('hex')
      fs.writeFileSync(path.join(dir, 'manifest.json'), JSON.stringify(manifest))
    })
    const report = await verifyBackup(file, verifyOptions())
    expect(report.ok).toBe(false)
    expect(report.dump.matchesManifest).toBe(true)
    expect(report.problems.length).toBeGreaterThan(0)
  })

  it('refuses a manifest whose row count was changed', async () => {
    const file = await tampered('count.backup', (dir) => {
      const manifest = JSON.parse(fs.readFileSync(path.join(dir, 'manifest.json'), 'utf8')) as Manifest
      manifest.tables.find((t) => t.name === 'terms')!.rows += 1
      fs.writeFileSync(path.join(dir, 'manifest.json'), JSON.stringify(manifest))
    })
    const report = await verifyBackup(file, verifyOptions())
    expect(report.ok).toBe(false)
    expect(report.problems).toEqual([
      expect.stringMatching(/^table terms: 3 rows restored, the manifest says 4$/),
    ])
  })

  it('refuses a truncated file and a file that is not a backup, in one line', async () => {
    const truncated = path.join(work, 'truncated.backup')
    const bytes = fs.readFileSync(backupFile)
    fs.writeFileSync(truncated, bytes.subarray(0, Math.floor(bytes.length / 2)))
    await expect(verifyBackup(truncated, verifyOptions())).rejects.toThrow(BackupError)
    const text = path.join(work, 'notes.txt')
    fs.writeFileSync(text, 'not a backup at all\n')
    const error = await verifyBackup(text, verifyOptions()).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(BackupError)
    expect((error as Error).message).toMatch(/is not a readable glossary backup/)
    expect((error as Error).message).not.toContain('\n')
    const future = await tampered('future.backup', (dir) => {
      const manifest = JSON.parse(fs.readFileSync(path.join(dir, 'manifest.json'), 'utf8')) as Manifest
      fs.writeFileSync(
        path.join(dir, 'manifest.json'),
        JSON.stringify({ ...manifest, formatVersion: 2, release: '9.0.0' }),
      )
    })
    await expect(verifyBackup(future, verifyOptions())).rejects.toThrow(
      /is a backup of format version 2, which this release does not read \(it reads 1\): use release 9\.0\.0 or later/,
    )
  })

  it('restores into an empty target, equal to the source, and refuses a target that is not empty', async () => {
    const before = await sourceHashes()
    if (engine === 'pglite') {
      const dataDir = path.join(work, 'restored')
      const report = await restoreBackup(backupFile, { dataDir })
      expect(report.problems).toEqual([])
      expect(report.ok).toBe(true)
      expect(report.restoredInto).toBe(path.join(dataDir, 'db'))
      const restored = await openPglite(path.join(dataDir, 'db'))
      try {
        const after = await hashesOf(async (sql) => (await restored.query<Record<string, unknown>>(sql)).rows)
        expect(after).toEqual(before)
      } finally {
        await restored.close()
      }
      await expect(restoreBackup(backupFile, { dataDir })).rejects.toThrow(
        /is not empty: restore writes only/,
      )
    } else {
      const target = await createEmptyPostgresDb()
      drops.push(target.drop)
      await withClient(target.url, (c) => c.query('create extension vector; create extension pg_trgm'))
      const report = await restoreBackup(backupFile, { dataDir: work, databaseUrl: target.url })
      expect(report.problems).toEqual([])
      expect(report.ok).toBe(true)
      const after = await withClient(target.url, (c) =>
        hashesOf(async (sql) => (await c.query(sql)).rows as Record<string, unknown>[]),
      )
      expect(after).toEqual(before)
      await expect(restoreBackup(backupFile, { dataDir: work, databaseUrl: target.url })).rejects.toThrow(
        /is not empty: restore writes only/,
      )
      // The scratch databases of verify-backup are gone.
      const [{ n }] = await withClient(
        sourceUrl(),
        async (c) =>
          (await c.query(`select count(*)::int as n from pg_database where datname like 'glossary_verify_%'`))
            .rows,
      )
      expect(n).toBe(0)
    }
    // The source did not change.
    expect(await sourceHashes()).toEqual(before)
  })
})
