import crypto from 'node:crypto'

/**
 * A migrated in-memory database with one admin agent and its API key, as the HTTP benchmarks need. Imports
 * the app lazily: a benchmark sets its configuration first (`setConfig(parseConfig(benchEnv()))`).
 */
export async function openBenchDatabase(): Promise<{ userId: string; auth: Record<string, string> }> {
  const { applyMigrations } = await import('../db/migrator.ts')
  const { em, initDb, openPglite } = await import('../db/orm.ts')
  const { issueApiKey } = await import('../app/services/auth/api-keys.server.ts')
  await initDb({ pglite: await openPglite() })
  await applyMigrations()
  const userId = crypto.randomUUID()
  await em().execute(
    `insert into users (id, email, name, role, auth_type) values (?, 'bench@example.test', 'Bench', 'admin', 'agent')`,
    [userId],
  )
  const { token } = await issueApiKey({ userId, name: 'bench', scopes: ['read', 'write', 'validate'] })
  return { userId, auth: { authorization: `Bearer ${token}`, 'content-type': 'application/json' } }
}
