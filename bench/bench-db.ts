import crypto from 'node:crypto'

/**
 * A migrated database with one admin agent and its API key, as the HTTP benchmarks need: in memory, or on
 * disk in `dataDir` (kept between runs, so a benchmark can reuse data it loaded before). Imports the app
 * lazily: a benchmark sets its configuration first (`setConfig(parseConfig(benchEnv()))`).
 */
export async function openBenchDatabase(
  options: { dataDir?: string } = {},
): Promise<{ userId: string; auth: Record<string, string> }> {
  const { applyMigrations } = await import('../db/migrator.ts')
  const { em, initDb } = await import('../db/orm.ts')
  const { issueApiKey } = await import('../app/services/auth/api-keys.server.ts')
  await initDb({ dataDir: options.dataDir })
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
