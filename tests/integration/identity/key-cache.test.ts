import { describe, expect, it } from 'vitest'
import { authenticateApiKey } from '#app/services/auth/authenticate.server.ts'
import { cachedKey, flushKeyUses } from '#app/services/auth/key-cache.server.ts'
import { em, observesCommittedChanges } from '#db/orm.ts'
import { createApiKey, createUser } from '#tests/factories.ts'
import { useTestDb } from '#tests/setup/db.ts'
import { api } from './helpers.ts'

useTestDb()

/**
 * The embedded database serves verified keys from memory (key-cache.server.ts). What must hold: any change
 * to a key or its owner counts from the very next request, made through the API or straight in SQL.
 */
describe('the API-key check on the embedded database', () => {
  const prefixOf = (headers: Record<string, string>) => headers.authorization!.slice(11, 19)

  async function usedKey(role: 'viewer' | 'editor' = 'editor') {
    const { user, sessionHeaders } = await createUser({ role })
    const key = await createApiKey(user.id, ['read'])
    expect((await api('/terms', { headers: key })).status).toBe(200)
    expect(cachedKey(prefixOf(key))).toBeDefined()
    return { user, key, sessionHeaders }
  }

  it('observes committed changes here, so verified keys are kept', () => {
    expect(observesCommittedChanges()).toBe(true)
  })

  it('a revoked key fails on the next request', async () => {
    const { key, sessionHeaders } = await usedKey()
    const { keys } = await (await api('/keys', { headers: sessionHeaders })).json()
    expect((await api(`/keys/${keys[0].id}`, { method: 'DELETE', headers: sessionHeaders })).status).toBe(204)
    expect(cachedKey(prefixOf(key))).toBeUndefined()
    expect((await api('/terms', { headers: key })).status).toBe(401)
  })

  it('a change made in SQL (another tool, a migration) drops the cache at commit', async () => {
    const { user, key } = await usedKey()
    await em().execute(`update users set role = 'viewer' where id = ?`, [user.id])
    expect(cachedKey(prefixOf(key))).toBeUndefined()
    const actor = await authenticateApiKey(key.authorization!)
    expect(actor?.user.role).toBe('viewer')
    await em().execute(`delete from api_keys where user_id = ?`, [user.id])
    expect(await authenticateApiKey(key.authorization!)).toBeNull()
  })

  it('a change inside a transaction that rolls back keeps the key', async () => {
    const { key } = await usedKey()
    await em()
      .transactional(async (tx) => {
        await tx.execute(`update api_keys set revoked_at = now()`)
        throw new Error('rolled back')
      })
      .catch(() => undefined)
    expect((await api('/terms', { headers: key })).status).toBe(200)
  })

  it('an expired key fails without asking the database', async () => {
    const { key } = await usedKey()
    const cached = cachedKey(prefixOf(key))!
    cached.expiresAt = Date.now() - 1
    expect(cachedKey(prefixOf(key))).toBeUndefined()
  })

  it('a wrong secret with a cached prefix is refused', async () => {
    const { key } = await usedKey()
    const wrong = key.authorization!.slice(0, -4) + 'AAAA'
    expect(await authenticateApiKey(wrong)).toBeNull()
    expect((await api('/terms', { headers: { authorization: wrong } })).status).toBe(401)
  })

  it('records the latest use, after the answer, and never moves it backwards', async () => {
    const { user, key, sessionHeaders } = await usedKey()
    await flushKeyUses()
    const [first] = await em().execute(`select last_used_at from api_keys where user_id = ?`, [user.id])
    expect(first.last_used_at).not.toBeNull()
    await api('/terms', { headers: key })
    // The key list flushes pending uses before it reads.
    const { keys } = await (await api('/keys', { headers: sessionHeaders })).json()
    expect(Date.parse(keys[0].lastUsedAt)).toBeGreaterThanOrEqual(new Date(first.last_used_at).getTime())
  })
})
