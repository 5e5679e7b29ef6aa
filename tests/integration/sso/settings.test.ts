import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { User } from '#db/entities/user.entity.ts'
import { em } from '#db/orm.ts'
import { createApiKey, createUser, TEST_ORIGIN } from '#tests/factories.ts'
import { useTestDb } from '#tests/setup/db.ts'
import { api, post, withConfig } from '../identity/helpers.ts'

useTestDb()

let admin: Record<string, string>
let adminEmail: string
let stand: http.Server
let base = ''

const OIDC = {
  issuer: 'https://idp.example.test',
  clientId: 'glossary',
  authorizationEndpoint: 'https://idp.example.test/auth',
  tokenEndpoint: 'https://idp.example.test/token',
  jwksUri: 'https://idp.example.test/jwks',
}

beforeAll(async () => {
  const created = await createUser({ role: 'admin' })
  admin = created.sessionHeaders
  adminEmail = created.user.email
  // Stand-in documents for discovery: a good one, a malformed one, a huge one and a cross-scheme redirect.
  stand = http.createServer((req, res) => {
    const url = req.url ?? ''
    if (url.startsWith('/good/.well-known/openid-configuration')) {
      res.setHeader('content-type', 'application/json')
      res.end(
        JSON.stringify({
          issuer: `${base}/good`,
          authorization_endpoint: `${base}/good/auth`,
          token_endpoint: `${base}/good/token`,
          userinfo_endpoint: `${base}/good/me`,
          jwks_uri: `${base}/good/jwks`,
          scopes_supported: ['openid', 'email'],
          claims_supported: ['sub', 'email'],
        }),
      )
    } else if (url.startsWith('/good/.well-known/oauth-authorization-server')) {
      res.setHeader('content-type', 'application/json')
      res.end(
        JSON.stringify({ authorization_endpoint: `${base}/good/auth`, token_endpoint: `${base}/good/token` }),
      )
    } else if (url.startsWith('/bad/')) {
      res.end('not json')
    } else if (url.startsWith('/huge/')) {
      res.setHeader('content-type', 'application/json')
      res.end('"' + 'x'.repeat(2 * 1024 * 1024) + '"')
    } else if (url.startsWith('/scheme/')) {
      res.statusCode = 302
      res.setHeader('location', 'ftp://127.0.0.1/doc')
      res.end()
    } else {
      res.statusCode = 404
      res.end()
    }
  })
  await new Promise<void>((resolve) => stand.listen(0, '127.0.0.1', resolve))
  base = `http://127.0.0.1:${(stand.address() as AddressInfo).port}`
})

afterAll(() => {
  stand.close()
})

const put = (body: unknown, headers: Record<string, string> = admin) =>
  api('/sso', { method: 'PUT', headers, body })
async function problems(res: Response): Promise<string[]> {
  expect(res.status).toBe(400)
  const body = await res.json()
  expect(body.error.code).toBe('validation_failed')
  return body.error.details.problems.map((p: { path: string }) => p.path)
}

describe('GET /sso', () => {
  it('answers every field and the redirect URI from the configured origin; never to keys or non-admins', async () => {
    const res = await api('/sso', { headers: { ...admin, host: 'localhost:3000' } })
    expect(res.status).toBe(200)
    const body = await res.json()
    expect(body.redirectUri).toBe(`${TEST_ORIGIN}/auth/sso/callback`)
    expect(body.sso).toMatchObject({
      mode: 'disabled',
      enabled: false,
      protocol: 'oidc',
      hasClientSecret: false,
    })
    // a forged Host is not used
    const forged = await api('/sso', { headers: { ...admin, host: 'evil.example' } })
    expect((await forged.json()).redirectUri).toBe(`${TEST_ORIGIN}/auth/sso/callback`)
    const viewer = await createUser()
    expect((await api('/sso', { headers: viewer.sessionHeaders })).status).toBe(403)
    const key = await createApiKey(viewer.user.id, ['read'])
    expect((await api('/sso', { headers: key })).status).toBe(403)
    expect((await api('/sso')).status).toBe(401)
  })
})

describe('PUT /sso rules', () => {
  it('rule 1: clientSecret "" keeps, null deletes; the secret is stored encrypted and never returned', async () => {
    expect((await put({ clientSecret: 'top-secret-value' })).status).toBe(200)
    let body = await (await put({ clientSecret: '' })).json()
    expect(body.sso.hasClientSecret).toBe(true)
    expect(JSON.stringify(body)).not.toContain('top-secret-value')
    const rows = await em().execute('select client_secret_encrypted from sso_config')
    expect(rows[0].client_secret_encrypted).toMatch(/^v1:/)
    expect(rows[0].client_secret_encrypted).not.toContain('top-secret')
    body = await (await put({ clientSecret: null })).json()
    expect(body.sso.hasClientSecret).toBe(false)
  })

  it('rule 2: server-filled fields in the body → 400', async () => {
    expect(await problems(await put({ lastClaimKeys: ['a'] }))).toContain('lastClaimKeys')
    expect(await problems(await put({ lastLoginAt: '2020-01-01T00:00:00Z' }))).toContain('lastLoginAt')
    expect(await problems(await put({ updatedBy: 'x' }))).toContain('updatedBy')
  })

  it('rule 3: only http/https addresses', async () => {
    for (const field of ['issuer', 'jwksUri', 'authorizationEndpoint', 'tokenEndpoint', 'userinfoEndpoint']) {
      expect(await problems(await put({ [field]: 'ftp://idp.example.test/x' }))).toContain(field)
      expect(await problems(await put({ [field]: 'javascript:alert(1)' }))).toContain(field)
    }
    expect((await put({ issuer: 'http://idp.example.test' })).status).toBe(200)
  })

  it('rule 4: oauth2-proxy only with OAUTH2_PROXY_ENABLED=true, and only when the request names the admin', async () => {
    expect(await problems(await put({ mode: 'oauth2-proxy' }))).toContain('mode')
    await withConfig({ OAUTH2_PROXY_ENABLED: 'true' }, async () => {
      expect(await problems(await put({ mode: 'oauth2-proxy' }))).toContain('mode')
      const res = await put({ mode: 'oauth2-proxy' }, { ...admin, 'x-forwarded-email': adminEmail })
      expect(res.status).toBe(200)
      expect((await res.json()).sso.mode).toBe('oauth2-proxy')
    })
    // the capability only opens the mode; now closed, the stored mode no longer trusts headers
    const check = await (await api('/sso/proxy-check', { headers: admin })).json()
    expect(check).toMatchObject({ ssoMode: 'oauth2-proxy', proxyAvailable: false, trusted: false })
    expect((await put({ mode: 'disabled' })).status).toBe(200)
  })

  it('rule 5: disabled only while password login is on; closing every login path is refused', async () => {
    expect(await problems(await put({ passwordLoginEnabled: false }))).toContain('passwordLoginEnabled')
    expect(await problems(await put({ mode: 'disabled', passwordLoginEnabled: false }))).toContain('mode')
    const on = await put({ ...OIDC, mode: 'oidc', passwordLoginEnabled: false })
    expect(on.status).toBe(200)
    expect(await problems(await put({ mode: 'disabled' }))).toContain('mode')
    // password login off: login, registration and setup answer 403 password_login_disabled
    const res = await post('/auth/login', { email: adminEmail, password: 'whatever1' })
    expect(res.status).toBe(403)
    expect((await res.json()).error.code).toBe('password_login_disabled')
    const reg = await post('/auth/register', { email: 'new@example.test', password: 'whatever1' })
    expect((await reg.json()).error.code).toBe('password_login_disabled')
    // existing sessions keep working
    expect((await api('/sso', { headers: admin })).status).toBe(200)
    expect((await put({ mode: 'disabled', passwordLoginEnabled: true })).status).toBe(200)
  })

  it('enabling oidc/oauth2 without the needed values → 400 naming each; enabled/protocol follow mode', async () => {
    await put({
      issuer: '',
      clientId: '',
      authorizationEndpoint: '',
      tokenEndpoint: '',
      jwksUri: '',
      userinfoEndpoint: '',
    })
    const missing = await problems(await put({ mode: 'oidc' }))
    expect(missing).toEqual(
      expect.arrayContaining(['issuer', 'clientId', 'authorizationEndpoint', 'tokenEndpoint', 'jwksUri']),
    )
    expect(await problems(await put({ mode: 'oauth2' }))).toContain('userinfoEndpoint')
    const body = await (
      await put({ ...OIDC, userinfoEndpoint: 'https://idp.example.test/me', mode: 'oauth2' })
    ).json()
    expect(body.sso).toMatchObject({ mode: 'oauth2', enabled: true, protocol: 'oauth2' })
    // an older client: enabled + protocol without mode
    const old = await (await put({ enabled: true, protocol: 'oidc' })).json()
    expect(old.sso).toMatchObject({ mode: 'oidc', enabled: true, protocol: 'oidc' })
    const off = await (await put({ enabled: false })).json()
    expect(off.sso).toMatchObject({ mode: 'disabled', enabled: false })
    expect(off.sso.updatedBy).toBe(adminEmail)
  })

  it('rule 7: in OIDC mode the proxy headers are not used even when the capability is on', async () => {
    await put({ ...OIDC, mode: 'oidc' })
    await withConfig({ OAUTH2_PROXY_ENABLED: 'true' }, async () => {
      const res = await api('/keys', { headers: { 'x-forwarded-email': adminEmail } })
      expect(res.status).toBe(401)
    })
    await put({ mode: 'disabled' })
  })
})

describe('POST /sso/discover (rule 6)', () => {
  it('reads the OIDC and the OAuth 2.0 documents and stores nothing', async () => {
    const before = await em().execute('select settings from sso_config')
    const res = await api('/sso/discover', {
      method: 'POST',
      headers: admin,
      body: { issuer: `${base}/good`, protocol: 'oidc' },
    })
    expect(res.status).toBe(200)
    expect((await res.json()).discovery).toEqual({
      issuer: `${base}/good`,
      authorizationEndpoint: `${base}/good/auth`,
      tokenEndpoint: `${base}/good/token`,
      userinfoEndpoint: `${base}/good/me`,
      jwksUri: `${base}/good/jwks`,
      scopesSupported: ['openid', 'email'],
      claimsSupported: ['sub', 'email'],
    })
    const oauth = await api('/sso/discover', {
      method: 'POST',
      headers: admin,
      body: { issuer: `${base}/good`, protocol: 'oauth2' },
    })
    expect((await oauth.json()).discovery.tokenEndpoint).toBe(`${base}/good/token`)
    expect(await em().execute('select settings from sso_config')).toEqual(before)
  })

  it('unreachable, malformed, oversized, cross-scheme and non-http addresses → 400 validation_failed', async () => {
    for (const issuer of [
      `${base}/bad`,
      `${base}/huge`,
      `${base}/scheme`,
      `${base}/missing`,
      'http://127.0.0.1:1',
    ]) {
      const res = await api('/sso/discover', {
        method: 'POST',
        headers: admin,
        body: { issuer, protocol: 'oidc' },
      })
      expect(res.status, issuer).toBe(400)
      expect((await res.json()).error.code).toBe('validation_failed')
    }
    const ftp = await api('/sso/discover', {
      method: 'POST',
      headers: admin,
      body: { issuer: 'ftp://x', protocol: 'oidc' },
    })
    expect(ftp.status).toBe(400)
  })
})

describe('oauth2-proxy mode', () => {
  it('with the capability: headers sign in, create the account once, keys need Bearer glk_, groups apply', async () => {
    await withConfig({ OAUTH2_PROXY_ENABLED: 'true' }, async () => {
      const saved = await put(
        { mode: 'oauth2-proxy', adminGroups: ['ops'], allowedGroups: [] },
        { ...admin, 'x-forwarded-email': adminEmail },
      )
      expect(saved.status).toBe(200)
      const headers = {
        'x-forwarded-email': 'Proxy.User@corp.test',
        'x-forwarded-user': 'proxy-user-1',
        'x-forwarded-groups': 'staff,ops',
        'x-forwarded-preferred-username': 'Proxy User',
        authorization: 'Basic c29tZTpwcm94eQ==',
      }
      const res = await api('/keys', { headers })
      expect(res.status).toBe(200)
      expect((await api('/keys', { headers })).status).toBe(200)
      const user = await em().fork().findOneOrFail(User, { email: 'proxy.user@corp.test' })
      expect(user).toMatchObject({ authType: 'sso', role: 'admin', name: 'Proxy User' })
      expect(await em().fork().count(User, { email: 'proxy.user@corp.test' })).toBe(1)
      // a key still works with Bearer glk_
      const key = await createApiKey(user.id, ['read'])
      expect((await api('/terms', { headers: key })).status).toBe(200)
      // proxy-check reports what arrived
      const check = await (await api('/sso/proxy-check', { headers: { ...admin, ...headers } })).json()
      expect(check).toMatchObject({
        ssoMode: 'oauth2-proxy',
        proxyAvailable: true,
        trusted: true,
        detected: true,
      })
      expect(check.identity).toMatchObject({ email: 'Proxy.User@corp.test', groups: ['staff', 'ops'] })
      // sso-refresh applies the headers at once; another identity → 409 identity_mismatch
      const refreshed = await api('/account/sso-refresh', {
        method: 'POST',
        headers: { ...headers, 'x-forwarded-preferred-username': 'Renamed', origin: TEST_ORIGIN },
      })
      expect(refreshed.status).toBe(200)
      expect((await refreshed.json()).user.name).toBe('Renamed')

      // deletion blocks the identity: headers alone do not recreate it
      const del = await api('/account', {
        method: 'DELETE',
        headers: { ...headers, origin: TEST_ORIGIN },
        body: { confirmEmail: 'proxy.user@corp.test' },
      })
      expect(del.status).toBe(200)
      expect((await api('/keys', { headers })).status).toBe(401)
      expect(await em().fork().count(User, { email: 'proxy.user@corp.test' })).toBe(0)

      // outside allowedGroups → nobody
      await put({ allowedGroups: ['staff'] })
      expect(
        (
          await api('/keys', {
            headers: { 'x-forwarded-email': 'guest@corp.test', 'x-forwarded-groups': 'guests' },
          })
        ).status,
      ).toBe(401)
      await put({ allowedGroups: [], mode: 'disabled' })
    })
  })

  it('without the capability the headers are ignored', async () => {
    const res = await api('/keys', { headers: { 'x-forwarded-email': adminEmail } })
    expect(res.status).toBe(401)
  })
})
