import crypto from 'node:crypto'
import pg from 'pg'
import type { TermContent } from '../app/services/terms/content.server.ts'

/**
 * A database of its own for a benchmark on the PostgreSQL server `serverUrl` points at (its DATABASE_URL:
 * only the server and the role are used), with the extensions the schema needs (a superuser's job, as in the
 * README's production recipe). Named `name` when given, and then kept by `drop()` and reused by the next run
 * (so loaded data survives, like RAG_BENCH_DIR on the embedded engine); otherwise a throwaway one that `drop()`
 * removes. Close the app's database before `drop()`.
 */
export async function createBenchPostgres(
  serverUrl: string,
  name?: string,
): Promise<{ url: string; name: string; drop: () => Promise<void> }> {
  const database = name ?? `glossary_bench_${process.pid}`
  if (!/^[a-z_][a-z0-9_]*$/.test(database)) throw new Error(`Not a plain database name: ${database}`)
  const url = new URL(serverUrl)
  url.pathname = `/${database}`
  const server = new URL(serverUrl)
  server.pathname = '/postgres'
  const admin = async (sql: string, values: unknown[] = []) => {
    const client = new pg.Client({ connectionString: server.toString() })
    await client.connect()
    try {
      return await client.query(sql, values)
    } finally {
      await client.end()
    }
  }
  const { rowCount } = await admin('select 1 from pg_database where datname = $1', [database])
  if (!rowCount) await admin(`create database ${database}`)
  const client = new pg.Client({ connectionString: url.toString() })
  await client.connect()
  await client.query('create extension if not exists vector; create extension if not exists pg_trgm')
  await client.end()
  return {
    url: url.toString(),
    name: database,
    drop: async () => {
      if (!name) await admin(`drop database if exists ${database} with (force)`)
    },
  }
}

/**
 * A migrated database with one admin agent and its API key, as the HTTP benchmarks need: on PostgreSQL at
 * `databaseUrl` (see createBenchPostgres), or embedded, in memory or on disk in `dataDir` (kept between runs,
 * so a benchmark can reuse data it loaded before). Imports the app lazily: a benchmark sets its configuration
 * first (`setConfig(parseConfig(benchEnv()))`).
 */
export async function openBenchDatabase(
  options: { dataDir?: string; databaseUrl?: string } = {},
): Promise<{ userId: string; auth: Record<string, string> }> {
  const { applyMigrations } = await import('../db/migrator.ts')
  const { em, initDb } = await import('../db/orm.ts')
  const { issueApiKey } = await import('../app/services/auth/api-keys.server.ts')
  await initDb(options.databaseUrl ? { databaseUrl: options.databaseUrl } : { dataDir: options.dataDir })
  await applyMigrations()
  const [existing] = await em().execute<{ id: string }[]>(
    `select id from users where email = 'bench@example.test'`,
  )
  const userId = existing?.id ?? crypto.randomUUID()
  if (!existing) {
    await em().execute(
      `insert into users (id, email, name, role, auth_type) values (?, 'bench@example.test', 'Bench', 'admin', 'agent')`,
      [userId],
    )
  }
  const { token } = await issueApiKey({ userId, name: 'bench', scopes: ['read', 'write', 'validate'] })
  return { userId, auth: { authorization: `Bearer ${token}`, 'content-type': 'application/json' } }
}

/** What a generated term brings; the rest of its content is empty. */
export interface BenchTerm {
  name: string
  notations: { text: string; kind: 'preferred' | 'admitted' | 'deprecated'; lang: string | null }[]
  definition: string
}

/**
 * Writes `terms` as new terms (slugs `t-0`, `t-1`, …) in one transaction through the term store's own bulk
 * writer, as an import does, without the import's checks (the benchmarks' data is made valid).
 */
export async function insertBenchTerms(terms: readonly BenchTerm[], userId: string): Promise<void> {
  await insertTermContents(
    terms.map((term, i) => ({
      slug: `t-${i}`,
      name: term.name,
      fullName: null,
      nameEn: null,
      nameKo: null,
      notations: term.notations,
      domains: [],
      categories: [],
      tags: [],
      status: 'active' as const,
      definition: term.definition,
      body: '',
    })),
    userId,
  )
}

/**
 * Writes whole term contents as new terms (revision 1, by `userId`) in one transaction through the term store's
 * bulk writer; answers their ids in order.
 */
export async function insertTermContents(
  contents: readonly TermContent[],
  userId: string,
): Promise<string[]> {
  const { em } = await import('../db/orm.ts')
  const { contentHash } = await import('../app/services/terms/content.server.ts')
  const { bumpGlossaryVersion, loadClassificationIds, writeTerms } =
    await import('../app/services/terms/store.server.ts')
  const writes = contents.map((content) => ({
    id: crypto.randomUUID(),
    isNew: true,
    revision: 1,
    content,
    hash: contentHash(content),
    note: '',
    authorId: userId,
  }))
  await em().transactional(async (tx) => {
    const version = await bumpGlossaryVersion(tx)
    await writeTerms(tx, writes, await loadClassificationIds(tx), version)
  })
  return writes.map((w) => w.id)
}
