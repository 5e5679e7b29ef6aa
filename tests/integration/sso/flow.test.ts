import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { exportJWK, generateKeyPair } from 'jose'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { loader as callbackLoader } from '#app/routes/auth.sso.callback.tsx'
import { loader as startLoader } from '#app/routes/auth.sso.start.tsx'
import { clearJwksCache } from '#app/services/sso/jwks.server.ts'
import { SESSION_COOKIE } from '#app/services/auth/sessions.server.ts'
import { Session } from '#db/entities/session.entity.ts'
import { User } from '#db/entities/user.entity.ts'
import { em } from '#db/orm.ts'
import { createUser, TEST_ORIGIN } from '#tests/factories.ts'
import { useTestDb } from '#tests/setup/db.ts'
import { followToCallback, setCookies, startTestProvider, type TestProvider } from '#tests/sso-provider.ts'
import { api } from '../identity/helpers.ts'

useTestDb()

const REDIRECT_URI = `${TEST_ORIGIN}/auth/sso/callback`
let provider: TestProvider
let admin: Record<string, string>

const CONTEXT = { ip: '127.0.0.1', isHttps: false, requestId: 't', cspNonce: '' }

beforeAll(async () => {
  provider = await startTestProvider({
    redirectUri: REDIRECT_URI,
    idTokenTtl: 120,
    accounts: [
      { email: 'alice@corp.test', name: 'Alice Kim', groups: ['staff'] },
      { email: 'boss@corp.test', name: 'Boss', groups: ['staff', 'glossary-admins'] },
      { email: 'outsider@corp.test', name: 'Out', groups: ['guests'] },
      { email: 'taken@corp.test', name: 'Taken', groups: ['staff'] },
      { email: 'refresh@corp.test', name: 'Ref', groups: ['staff'] },
      { email: 'other@corp.test', name: 'Other', groups: ['staff'] },
      { email: 'gone@corp.test', name: 'Gone', groups: ['staff'] },
      { email: "semi;co'lon@corp.test", name: "O'Semi; Colon", groups: ['staff'] },
    ],
  })
  const user = await createUser({ role: 'admin', email: 'root@example.test' })
  admin = user.sessionHeaders
  await configure({ mode: 'oidc' })
})

afterAll(async () => {
  await provider.close()
})

async function configure(extra: Record<string, unknown>, jwksUri = `${provider.issuer}/jwks`) {
  const res = await api('/sso', {
    method: 'PUT',
    headers: admin,
    body: {
      issuer: provider.issuer,
      authorizationEndpoint: `${provider.issuer}/auth`,
      tokenEndpoint: `${provider.issuer}/token`,
      userinfoEndpoint: `${provider.issuer}/me`,
      jwksUri,
      clientId: provider.clientId,
      clientSecret: provider.clientSecret,
      allowedGroups: [],
      adminGroups: ['glossary-admins'],
      autoCreate: true,
      ...extra,
    },
  })
  expect(res.status, await res.clone().text()).toBe(200)
  clearJwksCache()
}

function pageRequest(path: string, cookie?: string): Request {
  return new Request(`${TEST_ORIGIN}${path}`, {
    headers: { host: 'localhost:3000', ...(cookie ? { cookie } : {}) },
  })
}

async function run(loader: typeof startLoader, request: Request): Promise<Response> {
  return (await loader({ request, context: CONTEXT, params: {} })) as Response
}

/** start → provider → the callback address, with the flow cookie. */
async function begin(
  email: string,
  tamper: (url: URL) => void = () => {},
  cookie?: string,
): Promise<{ callbackUrl: string; flowCookie: string; authorizationUrl: string }> {
  const path = cookie ? '/auth/sso/start?intent=refresh' : '/auth/sso/start'
  const start = await run(startLoader, pageRequest(path, cookie))
  expect(start.status).toBe(302)
  const location = new URL(start.headers.get('location')!)
  expect(location.origin).toBe(provider.issuer)
  location.searchParams.set('login_hint', email)
  tamper(location)
  const flowCookie = setCookies(start)
    .find((l) => l.startsWith('glossary_sso_flow='))!
    .split(';')[0]!
  return {
    callbackUrl: await followToCallback(location.href, REDIRECT_URI),
    flowCookie,
    authorizationUrl: location.href,
  }
}

async function finish(callbackUrl: string, cookie: string): Promise<Response> {
  const url = new URL(callbackUrl)
  return run(callbackLoader, pageRequest(url.pathname + url.search, cookie))
}

async function signIn(email: string): Promise<Response> {
  const { callbackUrl, flowCookie } = await begin(email)
  return finish(callbackUrl, flowCookie)
}

const ssoCode = (res: Response) => new URL(res.headers.get('location')!, TEST_ORIGIN).searchParams.get('sso')

describe('OIDC sign-in against a real provider', () => {
  it('signs in with PKCE + nonce, creates the SSO account and sends the registered redirect URI', async () => {
    const start = await run(startLoader, pageRequest('/auth/sso/start'))
    const location = new URL(start.headers.get('location')!)
    expect(location.searchParams.get('redirect_uri')).toBe(REDIRECT_URI)
    expect(location.searchParams.get('code_challenge_method')).toBe('S256')
    expect(location.searchParams.get('nonce')).toBeTruthy()
    const flowLine = setCookies(start).find((l) => l.startsWith('glossary_sso_flow='))!
    expect(flowLine).toMatch(/HttpOnly/)
    expect(flowLine).toMatch(/Max-Age=600/)

    const res = await signIn('alice@corp.test')
    expect(res.status).toBe(302)
    expect(res.headers.get('location')).toBe('/')
    const cookies = setCookies(res)
    expect(cookies.some((l) => l.startsWith('glossary_sso_flow=;'))).toBe(true)
    const session = cookies.find((l) => l.startsWith(`${SESSION_COOKIE}=`))!
    const me = await api('/keys', { headers: { cookie: session.split(';')[0]! } })
    expect(me.status).toBe(200)
    const user = await em().fork().findOneOrFail(User, { email: 'alice@corp.test' })
    expect(user).toMatchObject({ name: 'Alice Kim', authType: 'sso', role: 'viewer' })

    const sso = (await (await api('/sso', { headers: admin })).json()).sso
    expect(sso.lastClaimKeys).toEqual(expect.arrayContaining(['email', 'groups', 'name', 'sub']))
    expect(sso.lastLoginAt).toBeTruthy()
    expect(JSON.stringify(sso)).not.toContain('Alice Kim')

    // the second sign-in finds the linked account
    const again = await signIn('alice@corp.test')
    expect(again.headers.get('location')).toBe('/')
    expect(await em().fork().count(User, { email: 'alice@corp.test' })).toBe(1)
  })

  it('maps an admin group to the admin role', async () => {
    expect((await signIn('boss@corp.test')).headers.get('location')).toBe('/')
    expect((await em().fork().findOneOrFail(User, { email: 'boss@corp.test' })).role).toBe('admin')
  })

  it('an email holding ; and a quote signs in like any other (issue 26: it ended on sso=server)', async () => {
    const email = "semi;co'lon@corp.test"
    expect((await signIn(email)).headers.get('location')).toBe('/')
    expect((await em().fork().findOneOrFail(User, { email })).authType).toBe('sso')
  })

  it('a tampered state → state; a missing flow cookie → state', async () => {
    const { callbackUrl, flowCookie } = await begin('alice@corp.test')
    const tampered = new URL(callbackUrl)
    tampered.searchParams.set('state', 'forged')
    expect(ssoCode(await finish(tampered.href, flowCookie))).toBe('state')
    expect(ssoCode(await finish(callbackUrl, 'glossary_sso_flow=' + 'x'.repeat(40) + '.y'))).toBe('state')
  })

  it('a replayed code → token', async () => {
    const { callbackUrl, flowCookie } = await begin('alice@corp.test')
    expect((await finish(callbackUrl, flowCookie)).headers.get('location')).toBe('/')
    expect(ssoCode(await finish(callbackUrl, flowCookie))).toBe('token')
  })

  it('a replayed flow (cookie and state) with a new code → state; no second session (issue 26)', async () => {
    const { callbackUrl, flowCookie, authorizationUrl } = await begin('alice@corp.test')
    expect((await finish(callbackUrl, flowCookie)).headers.get('location')).toBe('/')
    const sessionsBefore = await em().fork().count(Session, {})
    // The same authorization request again at the provider: a new code for the same state, nonce and PKCE.
    const replay = await followToCallback(authorizationUrl, REDIRECT_URI)
    expect(new URL(replay).searchParams.get('code')).not.toBe(new URL(callbackUrl).searchParams.get('code'))
    const res = await finish(replay, flowCookie)
    expect(ssoCode(res)).toBe('state')
    expect(setCookies(res).some((l) => l.startsWith(`${SESSION_COOKIE}=`))).toBe(false)
    expect(await em().fork().count(Session, {})).toBe(sessionsBefore)
  })

  it('two callbacks of one flow at once, each with its own code: exactly one signs in', async () => {
    const { callbackUrl, flowCookie, authorizationUrl } = await begin('alice@corp.test')
    const second = await followToCallback(authorizationUrl, REDIRECT_URI)
    const answers = await Promise.all([finish(callbackUrl, flowCookie), finish(second, flowCookie)])
    const locations = answers.map((res) => res.headers.get('location')).sort()
    expect(locations).toEqual(['/', '/login?sso=state'])
  })

  it('a wrong nonce → token', async () => {
    const { callbackUrl, flowCookie } = await begin('alice@corp.test', (url) =>
      url.searchParams.set('nonce', 'another-nonce'),
    )
    expect(ssoCode(await finish(callbackUrl, flowCookie))).toBe('token')
  })

  it('an expired ID token → token', async () => {
    const { callbackUrl, flowCookie } = await begin('alice@corp.test')
    // The provider issues ID tokens valid for 2 minutes; the app's clock moves 5 minutes on (the flow cookie
    // lives 10 minutes, the clock tolerance is 30 s).
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() + 5 * 60_000 })
    try {
      expect(ssoCode(await finish(callbackUrl, flowCookie))).toBe('token')
    } finally {
      vi.useRealTimers()
    }
  })

  it('a token signed by another key (same kid) → token', async () => {
    const { publicKey } = await generateKeyPair('RS256', { extractable: true })
    const foreign = {
      keys: [{ ...(await exportJWK(publicKey)), kid: 'test-key-1', alg: 'RS256', use: 'sig' }],
    }
    const server = http.createServer((_req, res) => {
      res.setHeader('content-type', 'application/json')
      res.end(JSON.stringify(foreign))
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    try {
      await configure({}, `http://127.0.0.1:${(server.address() as AddressInfo).port}/jwks`)
      expect(ssoCode(await signIn('alice@corp.test'))).toBe('token')
    } finally {
      server.close()
      await configure({})
    }
  })

  it('a user outside allowedGroups → not_allowed; claim names are still recorded', async () => {
    await configure({ allowedGroups: ['staff'] })
    try {
      expect(ssoCode(await signIn('outsider@corp.test'))).toBe('not_allowed')
      expect(await em().fork().count(User, { email: 'outsider@corp.test' })).toBe(0)
    } finally {
      await configure({ allowedGroups: [] })
    }
  })

  it('an email that belongs to another account → email_conflict', async () => {
    await createUser({ email: 'taken@corp.test' })
    expect(ssoCode(await signIn('taken@corp.test'))).toBe('email_conflict')
  })

  it('autoCreate off → no_account', async () => {
    await configure({ autoCreate: false })
    try {
      expect(ssoCode(await signIn('outsider@corp.test'))).toBe('no_account')
    } finally {
      await configure({})
    }
  })

  it('the provider refusing → idp; start while disabled → disabled', async () => {
    const { flowCookie } = await begin('alice@corp.test')
    const state = /"state":"([^"]+)"/.exec(
      Buffer.from(flowCookie.split('=')[1]!.split('.')[0]!, 'base64url').toString(),
    )![1]!
    const res = await finish(`${REDIRECT_URI}?error=access_denied&state=${state}`, flowCookie)
    expect(ssoCode(res)).toBe('idp')
    await configure({ mode: 'disabled' })
    try {
      expect(ssoCode(await run(startLoader, pageRequest('/auth/sso/start')))).toBe('disabled')
      expect(ssoCode(await finish(`${REDIRECT_URI}?code=x&state=${state}`, flowCookie))).toBe('disabled')
    } finally {
      await configure({ mode: 'oidc' })
    }
  })

  it('sso-refresh: the same identity returns to settings; another company account → identity_mismatch', async () => {
    const first = await signIn('refresh@corp.test')
    const session = setCookies(first)
      .find((l) => l.startsWith(`${SESSION_COOKIE}=`))!
      .split(';')[0]!
    const refresh = await api('/account/sso-refresh', {
      method: 'POST',
      headers: { cookie: session, origin: TEST_ORIGIN },
    })
    expect(refresh.status).toBe(200)
    expect((await refresh.json()).redirectTo).toBe('/auth/sso/start?intent=refresh')

    const same = await begin('refresh@corp.test', () => {}, session)
    const ok = await finish(same.callbackUrl, `${same.flowCookie}; ${session}`)
    expect(ok.headers.get('location')).toBe('/settings?ssoRefresh=success')

    const before = await em().fork().findOneOrFail(User, { email: 'refresh@corp.test' })
    const other = await begin('other@corp.test', () => {}, session)
    expect(ssoCode(await finish(other.callbackUrl, `${other.flowCookie}; ${session}`))).toBe(
      'identity_mismatch',
    )
    const after = await em().fork().findOneOrFail(User, { email: 'refresh@corp.test' })
    expect(after.name).toBe(before.name)
    expect(await em().fork().count(User, { email: 'other@corp.test' })).toBe(0)
  })

  it('deleting an SSO account blocks the identity; a direct sign-in lifts the block and starts as viewer', async () => {
    const res = await signIn('gone@corp.test')
    const session = setCookies(res)
      .find((l) => l.startsWith(`${SESSION_COOKIE}=`))!
      .split(';')[0]!
    const del = await api('/account', {
      method: 'DELETE',
      headers: { cookie: session, origin: TEST_ORIGIN },
      body: { confirmEmail: 'gone@corp.test' },
    })
    expect(del.status).toBe(200)
    const blocks = await em().execute('select count(*)::int as n from sso_identity_blocks')
    expect(blocks[0].n).toBeGreaterThan(0)
    expect((await signIn('gone@corp.test')).headers.get('location')).toBe('/')
    const again = await em().fork().findOneOrFail(User, { email: 'gone@corp.test' })
    expect(again.role).toBe('viewer')
    expect((await em().execute('select count(*)::int as n from sso_identity_blocks'))[0].n).toBe(0)
  })
})

describe('OAuth 2.0 mode with userinfo', () => {
  it('signs in through the token and userinfo endpoints (no ID token needed)', async () => {
    await configure({ mode: 'oauth2' })
    try {
      const start = await run(startLoader, pageRequest('/auth/sso/start'))
      expect(new URL(start.headers.get('location')!).searchParams.get('nonce')).toBeNull()
      const res = await signIn('alice@corp.test')
      expect(res.headers.get('location')).toBe('/')
      expect(setCookies(res).some((l) => l.startsWith(`${SESSION_COOKIE}=`))).toBe(true)
    } finally {
      await configure({ mode: 'oidc' })
    }
  })
})
