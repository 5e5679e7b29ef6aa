/**
 * What one API call costs besides its own work, in-process (no HTTP, no second process): the API-key check as
 * it runs on the embedded database (a verified key from memory, the constant-time comparison, the use noted
 * for a later write), the same check when the key must be read (the joined select: every call on PostgreSQL),
 * the `last_used_at` statement a flush runs, and the whole dispatcher for `POST /terms/lookup` with 500 texts on an empty glossary (key check, text
 * rule, zod, lookup, JSON). Run: `npx tsx bench/api-overhead.bench.ts`.
 */
import { parseConfig, setConfig } from '../app/lib/config.server.ts'
import { benchEnv, percentile } from './support.ts'

setConfig(parseConfig(benchEnv()))
const { em, initDb, openPglite, closeDb } = await import('../db/orm.ts')
const { applyMigrations } = await import('../db/migrator.ts')
const { issueApiKey } = await import('../app/services/auth/api-keys.server.ts')
const { authenticateApiKey } = await import('../app/services/auth/authenticate.server.ts')
const { handleApiRequest } = await import('../app/api/handler.server.ts')
const { insertUser } = await import('../app/services/users/store.server.ts')
const { flushKeyUses, noteKeyUse } = await import('../app/services/auth/key-cache.server.ts')
const { stopCompileWorker } = await import('../app/services/matching/compile-worker.ts')

await initDb({ pglite: await openPglite() })
await applyMigrations()
const user = await insertUser(em(), {
  email: 'bench@example.test',
  name: 'Bench',
  role: 'editor',
  authType: 'agent',
  passwordHash: null,
})
const { token, key } = await issueApiKey({ userId: user.id, name: 'bench', scopes: ['read'] })

/** Times `fn`; when it returns a number, that is the time of the part it measured itself. */
async function time(label: string, fn: () => Promise<unknown>, runs = 500): Promise<void> {
  for (let i = 0; i < 50; i++) await fn() // warm-up
  const times: number[] = []
  for (let i = 0; i < runs; i++) {
    const started = performance.now()
    const own = await fn()
    times.push(typeof own === 'number' ? own : performance.now() - started)
  }
  console.log(
    `${label}: p50 ${percentile(times, 50).toFixed(2)} ms, p99 ${percentile(times, 99).toFixed(2)} ms`,
  )
}

await time('API key check, embedded (verified key kept in memory)', () =>
  authenticateApiKey(`Bearer ${token}`),
)
await time('API key check, key read from the database (PostgreSQL, or a cold cache)', async () => {
  await em().execute(`update api_keys set expires_at = null where id = ?`, [key.id]) // drops the cache
  const started = performance.now()
  await authenticateApiKey(`Bearer ${token}`)
  return performance.now() - started
})
await time('  the select alone', () =>
  em().execute('select k.id from api_keys k join users u on u.id = k.user_id where k.prefix = ?', [
    key.prefix,
  ]),
)
await time('  the last_used_at flush alone (at most once a second per key)', () => {
  noteKeyUse(key.id)
  return flushKeyUses()
})
const body = JSON.stringify({ texts: Array.from({ length: 500 }, (_, i) => `notation ${i}`) })
await time('POST /terms/lookup, 500 texts, through the dispatcher', () =>
  handleApiRequest(
    new Request('http://internal/api/v1/terms/lookup', {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body,
    }),
    { requestId: 'bench', ip: '127.0.0.1', isHttps: false },
  ).then((response) => response.text()),
)
await stopCompileWorker()
await closeDb()
