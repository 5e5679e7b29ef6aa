import { beforeAll, describe, expect, it } from 'vitest'
import * as langPage from '#app/routes/lang.tsx'
import * as loginPage from '#app/routes/login.tsx'
import { createUser, TEST_ORIGIN, type TestUser } from '#tests/factories.ts'
import { usePageServer } from '#tests/page-server.ts'
import { useTestDb } from '#tests/setup/db.ts'
import { withConfig } from './helpers.ts'

useTestDb()

/**
 * Every in-app return address over real HTTP (issue 26 item 2, decision 012 "Round two"): the login page's
 * `redirectTo` (a signed-in visitor's GET and the form post) and the language switch's `Referer` answer a path
 * on this origin or `/` — never another origin, never a 500.
 */

const pages = usePageServer({
  'routes/login': { path: 'login', module: loginPage },
  'routes/lang': { path: 'lang', module: langPage },
})

let user: TestUser

beforeAll(async () => {
  user = await createUser()
})

/** Where a browser on our origin goes with this `Location`. */
const landing = (location: string | null) => new URL(location ?? '', `${TEST_ORIGIN}/login`)

function expectSafe(answer: { status: number; location: string | null }): void {
  expect(answer.status).toBe(302)
  expect(answer.location).toMatch(/^\/(?![/\\])[\x21-\x7e]*$/)
  expect(landing(answer.location).origin).toBe(TEST_ORIGIN)
}

/** `POST /lang` from our own origin with the given Referer, as the header arrives over HTTP. */
async function switchLanguage(referer: string | undefined, lang = 'ko') {
  const res = await fetch(`${pages.url()}/lang`, {
    method: 'POST',
    redirect: 'manual',
    headers: {
      origin: TEST_ORIGIN,
      'content-type': 'application/x-www-form-urlencoded',
      ...(referer === undefined ? {} : { referer }),
    },
    body: new URLSearchParams({ lang }).toString(),
  })
  await res.body?.cancel()
  return { status: res.status, location: res.headers.get('location'), headers: res.headers }
}

describe('GET /login?redirectTo=… when already signed in', () => {
  it.each([
    ['/%09/evil.example/a', '/'],
    ['/%0a/x', '/'],
    ['/%0d/x', '/'],
    ['//evil.example', '/'],
    ['/%5C/evil.example', '/'],
    ['/%255C/evil.example', '/'],
    ['%2F%2Fevil.example', '/'],
    ['https://evil.example/', '/'],
    ['javascript:alert(1)', '/'],
    ['/.//evil.example', '/'],
    ['/%E3%80%82/x', '/%E3%80%82/x'],
    ['%2Fterms%3Fq%3Dx', '/terms?q=x'],
  ])('%s → %s', async (redirectTo, expected) => {
    const answer = await pages.get(`/login?redirectTo=${redirectTo}`, user.sessionHeaders)
    expectSafe(answer)
    expect(answer.location).toBe(expected)
  })
})

describe('POST /login with a redirectTo field', () => {
  it.each([
    ['/\t/evil.example/a', '/'],
    ['/%09/evil.example/a', '/'],
    ['/\n/x', '/'],
    ['/\u3002/x', '/%E3%80%82/x'],
    ['//evil.example', '/'],
    ['/terms?q=x', '/terms?q=x'],
  ])('%j → %s', async (redirectTo, expected) => {
    const answer = await pages.post('/login', {
      email: user.user.email,
      password: user.password,
      redirectTo,
    })
    expectSafe(answer)
    expect(answer.location).toBe(expected)
    expect(answer.headers.get('set-cookie')).toMatch(/^glossary_session=/)
  })
})

describe('POST /lang returns to its Referer only on an allowed origin', () => {
  it.each([
    [`${TEST_ORIGIN}//evil.example/x`, '/'],
    [`${TEST_ORIGIN}/.//evil.example/x`, '/'],
    [`${TEST_ORIGIN}/%2F/evil.example`, '/'],
    ['::::', '/'],
    ['https://evil.example/terms', '/'],
    ['http://127.0.0.1:9/terms', '/'],
    [`${TEST_ORIGIN}/terms?q=a`, '/terms?q=a'],
    ['http://127.0.0.1:3000/wiki', '/wiki'],
  ])('%s → %s', async (referer, expected) => {
    const answer = await switchLanguage(referer)
    expectSafe(answer)
    expect(answer.location).toBe(expected)
    expect(answer.headers.get('set-cookie')).toBe('lang=ko; Path=/; SameSite=Lax; Max-Age=31536000')
  })

  it("the server's own origin (listed): a double slash after it is refused, a path kept", async () => {
    // As deployed, the page's host is one of GLOSSARY_ALLOWED_ORIGINS; here that is the test server itself.
    const own = pages.url()
    await withConfig({ GLOSSARY_ALLOWED_ORIGINS: `${TEST_ORIGIN},${own}` }, async () => {
      for (const [referer, expected] of [
        [`${own}//evil.example/x`, '/'],
        [`${own}/\\evil.example/x`, '/'],
        [`${own}/terms?q=a`, '/terms?q=a'],
      ] as const) {
        const answer = await switchLanguage(referer)
        expectSafe(answer)
        expect(answer.location, referer).toBe(expected)
      }
    })
  })

  it('without a Referer → /', async () => {
    const answer = await switchLanguage(undefined)
    expectSafe(answer)
    expect(answer.location).toBe('/')
  })
})
