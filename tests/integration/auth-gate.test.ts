import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { endpoint } from '#app/api/endpoint.server.ts'
import { handleApiRequest } from '#app/api/handler.server.ts'
import { Router } from '#app/api/router.server.ts'
import { parseAuthorization } from '#app/services/auth/api-keys.server.ts'
import { flushKeyUses } from '#app/services/auth/key-cache.server.ts'
import { ApiKey } from '#db/entities/api-key.entity.ts'
import { em } from '#db/orm.ts'
import { createApiKey, createUser, TEST_ORIGIN } from '#tests/factories.ts'
import { useTestDb } from '#tests/setup/db.ts'

useTestDb()

const who = (access: Parameters<typeof endpoint>[0]['access'], method: 'GET' | 'POST' = 'GET') =>
  endpoint({
    method,
    path: `/${access.kind}/${'scope' in access ? access.scope : 'none'}/${access.kind !== 'public' ? (access.minRole ?? 'any') : 'any'}`,
    operationId: Math.random().toString(),
    summary: 'who',
    tag: 'meta',
    access,
    body: method === 'POST' ? z.object({}).optional() : undefined,
    handler: async ({ actor }) => ({ via: actor?.via ?? null, id: actor?.user.id ?? null }),
  })

const routes = new Router([
  who({ kind: 'scoped', scope: 'read' }),
  who({ kind: 'scoped', scope: 'write', minRole: 'editor' }, 'POST'),
  who({ kind: 'session' }),
  who({ kind: 'session', minRole: 'admin' }, 'POST'),
])

function call(path: string, headers: Record<string, string>, method = 'GET') {
  return handleApiRequest(
    new Request(`http://internal/api/v1${path}`, { method, headers }),
    { requestId: 't', ip: '127.0.0.1', isHttps: false },
    routes,
  )
}

describe('API key parsing', () => {
  const secret = 'abcDEF_ghi-jkl_mnopqrstuvwxyz0123'
  it('accepts the Bearer scheme in any case, and underscores inside the secret', () => {
    expect(parseAuthorization(`Bearer glk_0123abcd_${secret}`)).toEqual({ prefix: '0123abcd', secret })
    expect(parseAuthorization(`bearer glk_0123abcd_${secret}`)).toEqual({ prefix: '0123abcd', secret })
    expect(parseAuthorization(`BEARER   glk_0123abcd_${secret}  `)).toEqual({ prefix: '0123abcd', secret })
  })
  it('refuses other schemes, other prefixes and a token in another case', () => {
    expect(parseAuthorization(`Basic glk_0123abcd_${secret}`)).toBeUndefined()
    expect(parseAuthorization(`Bearer GLK_0123abcd_${secret}`)).toBeUndefined()
    expect(parseAuthorization(`Bearer glk_0123ABCD_${secret}`)).toBeUndefined()
    expect(parseAuthorization(`Bearer glk_0123abc_${secret}`)).toBeUndefined()
    expect(parseAuthorization(`Bearer glk_0123abcd_`)).toBeUndefined()
    expect(parseAuthorization(`Bearer`)).toBeUndefined()
    expect(parseAuthorization(`Bearer glk_0123abcd_${secret} extra`)).toBeUndefined()
  })
})

describe('the auth gate', () => {
  it('401 without credentials, with a bad key, or with an unknown session', async () => {
    expect((await call('/scoped/read/any', {})).status).toBe(401)
    expect(
      (await call('/scoped/read/any', { authorization: 'Bearer glk_00000000_xxxxxxxxxxxxxxxxxxxxxxxx' }))
        .status,
    ).toBe(401)
    const res = await call('/scoped/read/any', { cookie: 'glossary_session=nope' })
    expect(res.status).toBe(401)
    expect((await res.json()).error.code).toBe('unauthorized')
  })

  it('a key with the scope passes and updates last_used_at; without it gets 403', async () => {
    const { user } = await createUser()
    const read = await createApiKey(user.id, ['read'])
    const res = await call('/scoped/read/any', read)
    expect(res.status).toBe(200)
    expect(await res.json()).toEqual({ via: 'key', id: user.id })
    const prefix = read.authorization!.slice('Bearer glk_'.length, 'Bearer glk_'.length + 8)
    // The use is written after the answer, within ten seconds; flushing writes it now.
    await flushKeyUses()
    const key = await em().findOneOrFail(ApiKey, { prefix })
    expect(key.lastUsedAt).toBeInstanceOf(Date)
    const validate = await createApiKey(user.id, ['validate'])
    expect((await call('/scoped/read/any', validate)).status).toBe(403)
  })

  it('keys never reach session-only endpoints, whatever their owner', async () => {
    const { user } = await createUser({ role: 'admin' })
    const key = await createApiKey(user.id, ['read', 'write', 'validate'])
    expect((await call('/session/none/any', key)).status).toBe(403)
    expect((await call('/session/none/admin', key, 'POST')).status).toBe(403)
  })

  it('an Authorization header takes the key path even with a valid session cookie', async () => {
    const { sessionHeaders } = await createUser()
    const res = await call('/scoped/read/any', { ...sessionHeaders, authorization: 'Bearer nonsense' })
    expect(res.status).toBe(401)
  })

  it('revoked and expired keys are rejected', async () => {
    const { user } = await createUser()
    const revoked = await createApiKey(user.id, ['read'])
    const expired = await createApiKey(user.id, ['read'])
    const prefixOf = (h: Record<string, string>) => h.authorization!.slice(11, 19)
    await em().nativeUpdate(ApiKey, { prefix: prefixOf(revoked) }, { revokedAt: new Date() })
    await em().nativeUpdate(ApiKey, { prefix: prefixOf(expired) }, { expiresAt: new Date(Date.now() - 1000) })
    expect((await call('/scoped/read/any', revoked)).status).toBe(401)
    expect((await call('/scoped/read/any', expired)).status).toBe(401)
  })

  it('a tampered secret with a valid prefix is rejected', async () => {
    const { user } = await createUser()
    const key = await createApiKey(user.id, ['read'])
    const tampered = key.authorization!.slice(0, -1) + (key.authorization!.endsWith('A') ? 'B' : 'A')
    expect((await call('/scoped/read/any', { authorization: tampered })).status).toBe(401)
  })

  it('sessions need the minimum role', async () => {
    const viewer = await createUser({ role: 'viewer' })
    const editor = await createUser({ role: 'editor' })
    const admin = await createUser({ role: 'admin' })
    expect((await call('/scoped/read/any', viewer.sessionHeaders)).status).toBe(200)
    expect((await call('/scoped/write/editor', viewer.sessionHeaders, 'POST')).status).toBe(403)
    expect((await call('/scoped/write/editor', editor.sessionHeaders, 'POST')).status).toBe(200)
    expect((await call('/session/none/admin', editor.sessionHeaders, 'POST')).status).toBe(403)
    expect((await call('/session/none/admin', admin.sessionHeaders, 'POST')).status).toBe(200)
  })

  it('cookie-session writes need an allowed Origin or Referer', async () => {
    const { sessionHeaders } = await createUser({ role: 'admin' })
    const { cookie } = sessionHeaders
    expect((await call('/session/none/admin', { cookie }, 'POST')).status).toBe(403)
    expect(
      (await call('/session/none/admin', { cookie, origin: 'https://evil.example' }, 'POST')).status,
    ).toBe(403)
    expect(
      (await call('/session/none/admin', { cookie, origin: 'http://localhost:3000.evil.example' }, 'POST'))
        .status,
    ).toBe(403)
    expect(
      (await call('/session/none/admin', { cookie, referer: `${TEST_ORIGIN}/settings` }, 'POST')).status,
    ).toBe(200)
    expect((await call('/session/none/admin', { cookie, origin: TEST_ORIGIN }, 'POST')).status).toBe(200)
    // Reads need no origin; key writes skip the check.
    expect((await call('/session/none/any', { cookie })).status).toBe(200)
  })
})
