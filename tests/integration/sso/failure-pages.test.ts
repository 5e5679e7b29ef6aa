import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { redirect } from '@remix-run/node'
import { setLogDestination } from '#app/lib/logger.server.ts'
import { orSsoFailure } from '#app/pages/sso-failure.server.ts'
import * as loginPage from '#app/routes/login.tsx'
import * as ssoStartPage from '#app/routes/auth.sso.start.tsx'
import { SsoFailure } from '#app/services/sso/accounts.server.ts'
import { SSO_FAILURE_CODES } from '#domain/sso.ts'
import { createUser } from '#tests/factories.ts'
import { usePageServer } from '#tests/page-server.ts'
import { useTestDb } from '#tests/setup/db.ts'

useTestDb()

/**
 * The one mapping of a failed browser sign-in to `/login?sso=<code>` (issue 26, decision 018 "Round two"):
 * `orSsoFailure` itself, and the pages that use it over real HTTP.
 */

const pages = usePageServer({
  'routes/login': { path: 'login', module: loginPage },
  'routes/auth.sso.start': { path: 'auth/sso/start', module: ssoStartPage },
})

const lines: string[] = []
beforeAll(async () => {
  await createUser() // setup done: the login page answers
  setLogDestination({ write: (line: string) => void lines.push(line) })
})
afterAll(() => setLogDestination(undefined))

describe('orSsoFailure', () => {
  it.each(SSO_FAILURE_CODES)('an SsoFailure %s → 302 /login?sso=%s with the given headers', async (code) => {
    const headers = new Headers({ 'Set-Cookie': 'glossary_sso_flow=; Path=/auth/sso; Max-Age=0' })
    const res = await orSsoFailure(
      'test',
      async () => {
        throw new SsoFailure(code, 'no')
      },
      headers,
    )
    expect(res.status).toBe(302)
    expect(res.headers.get('location')).toBe(`/login?sso=${code}`)
    expect(res.headers.get('set-cookie')).toContain('glossary_sso_flow=;')
  })

  it('anything else → /login?sso=server, logged with its stack; the message is not shown', async () => {
    lines.length = 0
    const res = await orSsoFailure('test', async () => {
      throw new Error('secret detail')
    })
    expect(res.headers.get('location')).toBe('/login?sso=server')
    const logged = lines.map((l) => JSON.parse(l)).filter((l) => l.msg === 'sso test failed')
    expect(logged).toHaveLength(1)
    expect(logged[0].err.stack).toBeTruthy()
  })

  it("passes a route's own thrown redirect and its answer through", async () => {
    await expect(
      orSsoFailure('test', async () => {
        throw redirect('/elsewhere')
      }),
    ).rejects.toSatisfy(
      (thrown) => thrown instanceof Response && thrown.headers.get('location') === '/elsewhere',
    )
    const ok = await orSsoFailure('test', async () => redirect('/'))
    expect(ok.headers.get('location')).toBe('/')
  })
})

describe('the pages that map through it', () => {
  it('the login page\'s "new account with the company account" while oauth2-proxy is off → disabled', async () => {
    const answer = await pages.post('/login', { intent: 'proxy-signup' })
    expect(answer.status).toBe(302)
    expect(answer.location).toBe('/login?sso=disabled')
  })

  it('a refresh started without a session → identity_mismatch; direct sign-in off → disabled', async () => {
    expect((await pages.get('/auth/sso/start?intent=refresh')).location).toBe('/login?sso=identity_mismatch')
    expect((await pages.get('/auth/sso/start')).location).toBe('/login?sso=disabled')
  })
})
