import { describe, expect, it } from 'vitest'
import { authenticateApiKey } from '#app/services/auth/authenticate.server.ts'
import { sha256 } from '#app/services/auth/tokens.server.ts'
import { ApiKey } from '#db/entities/api-key.entity.ts'
import { em } from '#db/orm.ts'
import { createApiKey, createUser } from '#tests/factories.ts'
import { useTestDb } from '#tests/setup/db.ts'
import { api } from './helpers.ts'

useTestDb()

const TOKEN = /^glk_([0-9a-f]{8})_([A-Za-z0-9_-]+)$/

describe('POST /keys', () => {
  it('issues a key (201) whose token is shown once and stored only as a hash', async () => {
    const { user, sessionHeaders } = await createUser({ role: 'editor' })
    const res = await api('/keys', {
      method: 'POST',
      headers: sessionHeaders,
      body: { name: 'CI lint', scopes: ['read', 'validate', 'read'] },
    })
    expect(res.status).toBe(201)
    const body = await res.json()
    expect(body).toEqual({
      key: {
        id: expect.any(String),
        name: 'CI lint',
        prefix: expect.stringMatching(/^[0-9a-f]{8}$/),
        scopes: ['read', 'validate'],
      },
      token: expect.stringMatching(TOKEN),
    })
    const [, prefix, secret] = TOKEN.exec(body.token)!
    expect(prefix).toBe(body.key.prefix)
    const rows = await em().execute(`select * from api_keys where user_id = ?`, [user.id])
    expect(JSON.stringify(rows)).not.toContain(secret)
    expect(rows[0].secret_hash).toBe(sha256(secret!))
    // The token works as a bearer key with exactly those scopes.
    const actor = await authenticateApiKey(`Bearer ${body.token}`)
    expect(actor).toMatchObject({ via: 'key', user: { id: user.id }, scopes: ['read', 'validate'] })
  })

  it('a viewer may not ask for write (403); an editor may', async () => {
    const viewer = await createUser({ role: 'viewer' })
    const res = await api('/keys', {
      method: 'POST',
      headers: viewer.sessionHeaders,
      body: { name: 'k', scopes: ['write'] },
    })
    expect(res.status).toBe(403)
    expect(await em().count(ApiKey, { user: viewer.user.id })).toBe(0)
    const ok = await api('/keys', {
      method: 'POST',
      headers: viewer.sessionHeaders,
      body: { name: 'k', scopes: ['read'] },
    })
    expect(ok.status).toBe(201)
  })

  it('validates name and scopes', async () => {
    const { sessionHeaders } = await createUser()
    for (const body of [
      { name: '', scopes: ['read'] },
      { name: 'x', scopes: [] },
      { name: 'x', scopes: ['admin'] },
      { name: 'x' },
    ]) {
      expect((await api('/keys', { method: 'POST', headers: sessionHeaders, body })).status).toBe(400)
    }
  })

  it('is a session-only write: refused with an API key, and without an allowed origin nothing is issued', async () => {
    const { user, sessionHeaders } = await createUser({ role: 'editor' })
    const key = await createApiKey(user.id, ['read', 'write', 'validate'])
    const body = { name: 'k', scopes: ['read'] }
    expect((await api('/keys', { method: 'POST', headers: key, body })).status).toBe(403)
    expect(
      (await api('/keys', { method: 'POST', headers: { cookie: sessionHeaders.cookie! }, body })).status,
    ).toBe(403)
    const foreign = { cookie: sessionHeaders.cookie!, origin: 'https://evil.example' }
    expect((await api('/keys', { method: 'POST', headers: foreign, body })).status).toBe(403)
    expect(await em().count(ApiKey, { user: user.id })).toBe(1) // only the factory's key
  })
})

describe('GET /keys', () => {
  it('lists only the caller\u2019s keys, revoked ones with revokedAt, and never a secret', async () => {
    const me = await createUser({ role: 'editor' })
    const other = await createUser({ role: 'editor' })
    const tokens: string[] = []
    for (const name of ['first', 'second']) {
      const res = await api('/keys', {
        method: 'POST',
        headers: me.sessionHeaders,
        body: { name, scopes: ['read'] },
      })
      tokens.push((await res.json()).token)
    }
    const theirs = await createApiKey(other.user.id, ['read'])
    const firstId = (await em().findOneOrFail(ApiKey, { name: 'first', user: me.user.id })).id
    expect((await api(`/keys/${firstId}`, { method: 'DELETE', headers: me.sessionHeaders })).status).toBe(204)

    const res = await api('/keys', { headers: { cookie: me.sessionHeaders.cookie! } }) // a GET needs no Origin
    expect(res.status).toBe(200)
    const text = await res.text()
    const { keys } = JSON.parse(text)
    expect(keys.map((k: { name: string }) => k.name)).toEqual(['second', 'first'])
    for (const key of keys) {
      expect(Object.keys(key).sort()).toEqual([
        'createdAt',
        'id',
        'lastUsedAt',
        'name',
        'prefix',
        'revokedAt',
        'scopes',
      ])
    }
    expect(keys[1].revokedAt).toEqual(expect.any(String))
    expect(keys[0].revokedAt).toBeNull()
    for (const token of [...tokens, theirs.authorization!.slice(7)]) {
      expect(text).not.toContain(token.split('_').slice(2).join('_'))
    }
    expect(text).not.toMatch(/secret|hash/i)
  })

  it('shows lastUsedAt once a key was used', async () => {
    const { user, sessionHeaders } = await createUser()
    const key = await createApiKey(user.id, ['read'])
    await authenticateApiKey(key.authorization!)
    const { keys } = await (await api('/keys', { headers: sessionHeaders })).json()
    expect(keys[0].lastUsedAt).toEqual(expect.any(String))
  })
})

describe('DELETE /keys/{id}', () => {
  it('revokes an own key (204): it is rejected afterwards; revoking again is harmless', async () => {
    const { user, sessionHeaders } = await createUser()
    const key = await createApiKey(user.id, ['read'])
    const row = await em().findOneOrFail(ApiKey, { user: user.id })
    expect((await api(`/keys/${row.id}`, { method: 'DELETE', headers: sessionHeaders })).status).toBe(204)
    expect(await authenticateApiKey(key.authorization!)).toBeNull()
    expect((await api(`/keys/${row.id}`, { method: 'DELETE', headers: sessionHeaders })).status).toBe(204)
  })

  it('another user\u2019s key, an unknown id and a malformed id all answer 404; the key keeps working', async () => {
    const me = await createUser()
    const other = await createUser()
    const theirs = await createApiKey(other.user.id, ['read'])
    const theirRow = await em().findOneOrFail(ApiKey, { user: other.user.id })
    for (const id of [theirRow.id, '00000000-0000-4000-8000-000000000000', 'not-a-uuid']) {
      const res = await api(`/keys/${id}`, { method: 'DELETE', headers: me.sessionHeaders })
      expect(res.status, id).toBe(404)
      expect((await res.json()).error.code).toBe('not_found')
    }
    expect(await authenticateApiKey(theirs.authorization!)).not.toBeNull()
  })

  it('a cross-site DELETE is refused and the key stays active', async () => {
    const { user, sessionHeaders } = await createUser()
    const key = await createApiKey(user.id, ['read'])
    const row = await em().findOneOrFail(ApiKey, { user: user.id })
    const res = await api(`/keys/${row.id}`, {
      method: 'DELETE',
      headers: { cookie: sessionHeaders.cookie!, origin: 'https://evil.example' },
    })
    expect(res.status).toBe(403)
    expect(await authenticateApiKey(key.authorization!)).not.toBeNull()
  })
})
