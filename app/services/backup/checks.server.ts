import { decryptSecret, UndecryptableSecretError } from '#app/lib/secrets.server.ts'
import { RELEASE } from '#domain/release.ts'
import { MIGRATIONS } from '../../../migrations/index.ts'
import { encryptionKeyLocation } from './key.server.ts'
import { totalRows, type Manifest } from './manifest.ts'
import { appliedMigrations, publicTables, tableStats, type SqlSession } from './table-stats.server.ts'

/**
 * What `verify-backup` and `restore` check on a restored database against the manifest of its backup: the
 * migrator's check, every table's row count and digest, a sample of terms with their latest revision, and every
 * stored secret decrypted with this installation's key. Each difference is one line in `problems`.
 */

export interface SecretCheck {
  /** Table, column and (for a header) its name: where the secret is stored, never its value. */
  location: string
  readable: boolean
}

export interface RestoredChecks {
  tables: number
  rows: number
  /** Migrations this code has that the backup had not applied yet (a backup taken before an upgrade). */
  pendingMigrations: number
  sampledTerms: number
  secrets: SecretCheck[]
  problems: string[]
}

const TERM_SAMPLE = 20

/**
 * The migrator's check: the backup's migrations are this code's, in its order (a prefix: the rest is pending).
 * A migration this code does not know means a backup of a newer release.
 */
export function checkMigrations(
  applied: readonly string[],
  manifest: Manifest,
): { pending: number; problems: string[] } {
  const problems: string[] = []
  if (applied.join('\n') !== manifest.migrations.join('\n')) {
    problems.push(
      `migrations: the restored database applied ${applied.length}, the manifest lists ${manifest.migrations.length}`,
    )
  }
  const known = MIGRATIONS.map((m) => m.name)
  const unknown = applied.filter((name) => !known.includes(name))
  if (unknown.length) {
    problems.push(
      `migrations: the backup comes from a newer release (${manifest.release}; this is ${RELEASE}): it applied ` +
        `${unknown.length} migration(s) this release does not know (${unknown.join(', ')}); verify or restore it ` +
        `with release ${manifest.release} or later`,
    )
    return { pending: 0, problems }
  }
  const misplaced = applied.findIndex((name, i) => known[i] !== name)
  if (misplaced >= 0) {
    problems.push(`migrations: ${applied[misplaced]} was applied out of this release's order`)
  }
  return { pending: Math.max(0, known.length - applied.length), problems }
}

async function checkTerms(
  session: SqlSession,
  tables: readonly string[],
): Promise<{ sampled: number; problems: string[] }> {
  if (!tables.includes('terms') || !tables.includes('term_revisions')) return { sampled: 0, problems: [] }
  const rows = await session.query<{
    id: string
    name: string
    revision: number
    content_hash: string
    content: unknown
    revision_hash: string | null
  }>(
    `select t.id, t.name, t.revision, t.content_hash, r.content, r.content_hash as revision_hash
       from terms t left join term_revisions r on r.term_id = t.id and r.revision = t.revision
      order by t.updated_at desc, t.id limit ${TERM_SAMPLE}`,
  )
  const problems: string[] = []
  for (const row of rows) {
    if (row.revision_hash === null) {
      problems.push(`term ${row.id}: its revision ${row.revision} is missing`)
      continue
    }
    let content: unknown = row.content
    try {
      if (typeof content === 'string') content = JSON.parse(content)
    } catch {
      content = undefined
    }
    const name = (content as { name?: unknown } | undefined)?.name
    if (typeof content !== 'object' || content === null || typeof name !== 'string') {
      problems.push(`term ${row.id}: its revision ${row.revision} does not parse as a term`)
    } else if (name !== row.name || row.revision_hash !== row.content_hash) {
      problems.push(`term ${row.id}: its revision ${row.revision} does not match the term row`)
    }
  }
  return { sampled: rows.length, problems }
}

interface StoredSecret {
  location: string
  value: string
}

function headerSecrets(location: string, headers: unknown): StoredSecret[] {
  const list = typeof headers === 'string' ? (JSON.parse(headers) as unknown) : headers
  if (!Array.isArray(list)) return []
  return list
    .filter((h): h is { name: string; value: string } => typeof h?.value === 'string' && h.value !== '')
    .map((h) => ({ location: `${location} "${h.name}"`, value: h.value }))
}

function keySecret(location: string, value: unknown): StoredSecret[] {
  return typeof value === 'string' && value !== '' ? [{ location, value }] : []
}

/**
 * Every column that stores a secret encrypted with the installation's key (app/lib/secrets.server.ts's
 * `encryptSecret`): the search settings' embedding and reranker endpoints, the chat's AI provider, the SSO
 * client secret, and the serving settings a running full reindex keeps. A new encrypted column is added here.
 */
const SECRET_SOURCES: { table: string; read: (session: SqlSession) => Promise<StoredSecret[]> }[] = [
  {
    table: 'rag_config',
    read: async (session) =>
      (
        await session.query<Record<string, unknown>>(
          'select embedding_api_key, embedding_headers, reranker_api_key, reranker_headers from rag_config',
        )
      ).flatMap((r) => [
        ...keySecret('search settings: embedding API key', r.embedding_api_key),
        ...headerSecrets('search settings: embedding header', r.embedding_headers),
        ...keySecret('search settings: reranker API key', r.reranker_api_key),
        ...headerSecrets('search settings: reranker header', r.reranker_headers),
      ]),
  },
  {
    table: 'ai_provider_config',
    read: async (session) =>
      (
        await session.query<Record<string, unknown>>('select api_key, headers from ai_provider_config')
      ).flatMap((r) => [
        ...keySecret('AI provider: API key', r.api_key),
        ...headerSecrets('AI provider: header', r.headers),
      ]),
  },
  {
    table: 'sso_config',
    read: async (session) =>
      (
        await session.query<Record<string, unknown>>('select client_secret_encrypted from sso_config')
      ).flatMap((r) => keySecret('SSO: client secret', r.client_secret_encrypted)),
  },
  {
    table: 'rag_reindex_runs',
    read: async (session) =>
      (
        await session.query<{ id: string; serving: unknown }>(
          'select id, serving from rag_reindex_runs where serving is not null order by created_at, id',
        )
      ).flatMap((r) => {
        const serving = (typeof r.serving === 'string' ? JSON.parse(r.serving) : r.serving) as {
          apiKey?: unknown
          headers?: unknown
        }
        return [
          ...keySecret(`full reindex ${r.id}: serving API key`, serving?.apiKey),
          ...headerSecrets(`full reindex ${r.id}: serving header`, serving?.headers),
        ]
      }),
  },
]

async function checkSecrets(session: SqlSession, tables: readonly string[]): Promise<SecretCheck[]> {
  const stored: StoredSecret[] = []
  for (const source of SECRET_SOURCES)
    if (tables.includes(source.table)) stored.push(...(await source.read(session)))
  // Without any key here, decrypting would create one (the embedded default's first start): none is readable.
  const keyPresent = encryptionKeyLocation().present
  return stored.map(({ location, value }) => {
    if (!keyPresent) return { location, readable: false }
    try {
      decryptSecret(value)
      return { location, readable: true }
    } catch (error) {
      if (error instanceof UndecryptableSecretError) return { location, readable: false }
      throw error
    }
  })
}

/** Every check of a restored database against its manifest; the caller has opened a transaction. */
export async function checkRestored(session: SqlSession, manifest: Manifest): Promise<RestoredChecks> {
  const problems: string[] = []
  const migrations = checkMigrations(await appliedMigrations(session), manifest)
  problems.push(...migrations.problems)

  const actual = new Map((await tableStats(session)).map((t) => [t.name, t]))
  for (const expected of manifest.tables) {
    const found = actual.get(expected.name)
    if (!found) problems.push(`table ${expected.name}: missing from the restored database`)
    else if (found.rows !== expected.rows)
      problems.push(`table ${expected.name}: ${found.rows} rows restored, the manifest says ${expected.rows}`)
    else if (found.digest !== expected.digest)
      problems.push(`table ${expected.name}: its content digest differs from the manifest's (same row count)`)
  }
  const listed = new Set(manifest.tables.map((t) => t.name))
  for (const name of actual.keys()) if (!listed.has(name)) problems.push(`table ${name}: not in the manifest`)

  const tables = await publicTables(session)
  const terms = await checkTerms(session, tables)
  problems.push(...terms.problems)
  const secrets = await checkSecrets(session, tables)
  const unreadable = secrets.filter((s) => !s.readable)
  if (unreadable.length) {
    const key = encryptionKeyLocation()
    problems.push(
      `secrets: ${unreadable.length} of ${secrets.length} cannot be decrypted with the current key ` +
        `(${key.where}${key.present ? '' : ', which does not exist'}): ${unreadable.map((s) => s.location).join('; ')}`,
    )
  }
  return {
    tables: actual.size,
    rows: totalRows([...actual.values()]),
    pendingMigrations: migrations.pending,
    sampledTerms: terms.sampled,
    secrets,
    problems,
  }
}
