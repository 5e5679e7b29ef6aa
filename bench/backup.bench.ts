/**
 * `glossary backup`, `verify-backup` and `restore` (issue 31) on a database the issue's size: TERMS terms (default
 * 10,000) with full history (REVISIONS revisions each, default 3, ~1.5 KB bodies), WIKI wiki pages (2,000, two
 * revisions each) and CHUNKS term chunks with 1536-d vectors (100,000). Prints the seeding time, then backup
 * time and file size, the cost of the manifest's digests alone on the chunk table (md5 of every row's text,
 * vectors included), verify time and restore time (into a fresh data directory, or a fresh database).
 *
 * Embedded PGlite in a data directory on disk by default (as `glossary start` keeps it); with
 * DATABASE_URL=postgres://… throwaway databases on that server (pg_dump/pg_restore on PATH), dropped at the end.
 * Run: `npx tsx bench/backup.bench.ts`; a quick look: `TERMS=1000 WIKI=200 CHUNKS=10000 npx tsx …`.
 */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import pg from 'pg'
import { parseConfig, setConfig } from '../app/lib/config.server.ts'
import type { TermContent } from '../app/services/terms/content.server.ts'
import { createBenchPostgres, insertTermContents, openBenchDatabase } from './bench-db.ts'
import { DIM, loadTermChunks, vectorStream, type BenchChunk } from './rag-data.ts'
import { benchEnv, loadAverage, prng, syntheticWords } from './support.ts'

const TERMS = Number(process.env.TERMS ?? 10_000)
const REVISIONS = Number(process.env.REVISIONS ?? 3)
const WIKI = Number(process.env.WIKI ?? 2_000)
const CHUNKS = Number(process.env.CHUNKS ?? 100_000)
const serverUrl = process.env.DATABASE_URL
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'backup-bench-'))
setConfig(parseConfig(benchEnv({ GLOSSARY_DATA_DIR: path.join(work, 'source') })))

const { em, closeDb, getDb } = await import('../db/orm.ts')
const { contentHash } = await import('../app/services/terms/content.server.ts')
const { bumpGlossaryVersion, loadClassificationIds, writeTerms } =
  await import('../app/services/terms/store.server.ts')
const { createBackup } = await import('../app/services/backup/create.server.ts')
const { verifyBackup } = await import('../app/services/backup/verify.server.ts')
const { restoreBackup } = await import('../app/services/backup/restore.server.ts')
const { tableStats } = await import('../app/services/backup/table-stats.server.ts')
const { ormSession } = await import('../app/services/backup/sessions.server.ts')

const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`
const seconds = (ms: number) => `${(ms / 1000).toFixed(2)} s`
async function timed<T>(
  label: string,
  run: () => Promise<T>,
  extra: (value: T) => string = () => '',
): Promise<T> {
  const started = performance.now()
  const value = await run()
  console.log(`${label.padEnd(26)} ${seconds(performance.now() - started).padStart(9)}   ${extra(value)}`)
  return value
}

console.log(
  `${serverUrl ? 'PostgreSQL' : 'embedded PGlite (data directory on disk)'}; cpus ${os.cpus().length}, load average at start ${loadAverage()}`,
)
console.log(
  `${TERMS.toLocaleString('en')} terms × ${REVISIONS} revisions, ${WIKI.toLocaleString('en')} wiki pages × 2 revisions, ${CHUNKS.toLocaleString('en')} chunks of ${DIM} dimensions`,
)

async function seed(userId: string): Promise<void> {
  const { enWord, koWord } = syntheticWords(prng(31))
  const paragraph = (n: number) => Array.from({ length: n }, () => enWord(2 + (n % 3))).join(' ')
  const contents: TermContent[] = Array.from({ length: TERMS }, (_, i) => {
    const name = `${enWord(3)}${i}`
    return {
      slug: `t-${i}`,
      name,
      fullName: null,
      nameEn: name,
      nameKo: `${koWord(3)}${i}`,
      notations: [{ text: `${enWord(4)}${i}`, kind: 'admitted', lang: null }],
      domains: [],
      categories: [],
      tags: ['bench'],
      status: 'active',
      definition: `Definition of ${name}: ${paragraph(12)}.`,
      body: `## ${name}\n\n${paragraph(90)}.\n\n${paragraph(90)}.`,
    }
  })
  const ids = await insertTermContents(contents, userId)
  for (let revision = 2; revision <= REVISIONS; revision++) {
    await em().transactional(async (tx) => {
      const version = await bumpGlossaryVersion(tx)
      const writes = contents.map((content, i) => {
        const next = { ...content, definition: `${content.definition} Revision ${revision}.` }
        contents[i] = next
        return {
          id: ids[i]!,
          isNew: false,
          revision,
          content: next,
          hash: contentHash(next),
          note: 'bench',
          authorId: userId,
        }
      })
      await writeTerms(tx, writes, await loadClassificationIds(tx), version)
    })
  }
  await em().execute(
    `insert into wiki_pages (id, slug, title, content, summary, domain, status, revision, created_by_id, updated_by_id)
     select gen_random_uuid(), 'page-' || g, 'Ledger page ' || g,
            'Ledger page ' || g || E'.\\n\\n' || repeat('The ledger closes at night and the settlement batch runs. ', 25),
            'How page ' || g || ' closes the ledger.', array['ledger'], 'published', 2, ?, ?
       from generate_series(1, ?) g`,
    [userId, userId, WIKI],
  )
  await em().execute(
    `insert into wiki_page_revisions (id, page_id, revision, slug, title, content, summary, domain, status, author_id,
                                      author_label)
     select gen_random_uuid(), p.id, r, p.slug, p.title, case when r = 1 then 'First draft.' else p.content end,
            p.summary, p.domain, p.status, ?, 'Bench'
       from wiki_pages p cross join generate_series(1, 2) r`,
    [userId],
  )
  // The model column of a chunk names its embedding space; any text does for a backup.
  const space = 'alpha_compatible|http://127.0.0.1:9/v1|bench-embed'
  const vector = vectorStream(7)
  const perTerm = Math.max(1, Math.ceil(CHUNKS / TERMS))
  // Loaded without the HNSW index and the index built after, as a full reindex builds it: inserting into the
  // index row by row is what made seeding take 20 minutes on the embedded engine.
  await em().execute('drop index if exists term_chunks_embedding_idx')
  for (let start = 0; start < CHUNKS; start += 5_000) {
    const batch: BenchChunk[] = []
    for (let k = start; k < Math.min(CHUNKS, start + 5_000); k++) {
      batch.push({
        termId: ids[Math.floor(k / perTerm) % ids.length]!,
        chunkIndex: k % perTerm,
        vector: vector(),
      })
    }
    await loadTermChunks(space, batch)
  }
  // The embedded engine's tables have no HNSW index (decision 035).
  if (!getDb().pglite) {
    await em().transactional(async (tx) => {
      await tx.execute("set local maintenance_work_mem = '1GB'")
      await tx.execute(
        'create index term_chunks_embedding_idx on term_chunks using hnsw (embedding vector_cosine_ops) with (m = 16, ef_construction = 64)',
      )
    })
  }
}

const drops: (() => Promise<void>)[] = []
async function throwawayDatabase(name: string): Promise<string> {
  const created = await createBenchPostgres(serverUrl!, `glossary_bench_${process.pid}_${name}`)
  drops.push(async () => {
    const admin = new pg.Client({
      connectionString: Object.assign(new URL(serverUrl!), { pathname: '/postgres' }).toString(),
    })
    await admin.connect()
    try {
      await admin.query(`drop database if exists ${created.name} with (force)`)
    } finally {
      await admin.end()
    }
  })
  return created.url
}

try {
  const sourceUrl = serverUrl ? await throwawayDatabase('source') : undefined
  const { userId } = await openBenchDatabase(
    sourceUrl ? { databaseUrl: sourceUrl } : { dataDir: path.join(work, 'source') },
  )
  await timed('seeding', () => seed(userId))
  // PGlite's first reads after a bulk load set hint bits; count once so the backup is not charged for it.
  await em().execute('select count(*) from term_chunks')

  await timed(
    'digests of every table',
    () =>
      getDb()
        .em.fork()
        .transactional(async (tx) => {
          const stats = await tableStats(ormSession(tx))
          return stats
        }),
    (stats) => {
      const chunks = stats.find((t) => t.name === 'term_chunks')
      return `${stats.length} tables; term_chunks ${chunks?.rows} rows (alone: next line)`
    },
  )
  await timed('md5(row::text) term_chunks', () =>
    getDb()
      .em.fork()
      .transactional(async (tx) => {
        await tx.execute("set local timezone = 'UTC'")
        return tx.execute(
          `select count(*), sum(('x' || substr(md5(t::text), 1, 15))::bit(60)::bigint) from term_chunks t`,
        )
      }),
  )

  const file = path.join(work, 'glossary.backup')
  const backup = await timed(
    'backup',
    () => createBackup(file),
    (r) =>
      `file ${mb(r.bytes)}, ${r.manifest.tables.reduce((n, t) => n + t.rows, 0).toLocaleString('en')} rows in ${r.manifest.tables.length} tables`,
  )
  await closeDb()

  await timed(
    'verify-backup',
    () => verifyBackup(backup.file, { databaseUrl: serverUrl ? sourceUrl : undefined }),
    (r) => `ok ${r.ok}${r.problems.length ? `: ${r.problems.join('; ')}` : ''}`,
  )
  const targetUrl = serverUrl ? await throwawayDatabase('restored') : undefined
  await timed(
    'restore (with verification)',
    () => restoreBackup(backup.file, { dataDir: path.join(work, 'restored'), databaseUrl: targetUrl }),
    (r) => `ok ${r.ok} into ${r.restoredInto}${r.problems.length ? `: ${r.problems.join('; ')}` : ''}`,
  )
} finally {
  await closeDb()
  for (const drop of drops) await drop()
  fs.rmSync(work, { recursive: true, force: true })
}
