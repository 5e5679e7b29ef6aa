import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { BrowserContext, Page } from 'playwright-core'
import { ssoEn, ssoKo } from '#app/lib/messages/sso.ts'
import { commonEn } from '#app/lib/messages/common.ts'
import { identityEn, identityKo } from '#app/lib/messages/identity.ts'
import { siteEn } from '#app/lib/messages/site.ts'
import { DEFAULT_SSO_BUTTON_LABEL, SSO_FAILURE_CODES } from '#domain/sso.ts'
import { startTestProvider, TEST_CLIENT_SECRET, type TestProvider } from '#tests/sso-provider.ts'
import { apiOf, SESSION_COOKIE, useAdminAndViewer, useAppAndBrowser } from './use-app.ts'

/**
 * Single sign-on in Chromium against the built app (issue 13): the admin page /admin/sso (access, discovery
 * without JavaScript, the write-only client secret, refused settings), a sign-in through the real login form
 * of oidc-provider (its dev interactions) and the login page's SSO texts and the password-login switch.
 * The tests of this file build on each other in order: the admin page configures OIDC, the sign-in uses it.
 */

const app = useAppAndBrowser()
let provider: TestProvider
const accounts = useAdminAndViewer(app)
const api = apiOf(app)
const BUTTON = 'Sign in with Corp ID'
beforeAll(async () => {
  provider = await startTestProvider({
    redirectUri: `${app.service.url}/auth/sso/callback`,
    devInteractions: true,
    accounts: [{ email: 'alice@corp.test', name: 'Alice Kim', groups: ['staff'] }],
  })
})

afterAll(async () => {
  await provider?.close()
})

const loopback = (url: URL) => url.hostname === '127.0.0.1' || url.hostname === 'localhost'

/**
 * A browser context on the app, with a session cookie when given. Only loopback requests leave it (the
 * provider's dev pages import a web font; that request is refused, not sent).
 */
async function newContext(options: { cookie?: string; javaScript?: boolean } = {}): Promise<BrowserContext> {
  const context = await app.browser.newContext({
    baseURL: app.service.url,
    javaScriptEnabled: options.javaScript ?? true,
  })
  await context.route(
    (url) => !loopback(url),
    (route) => route.abort(),
  )
  if (options.cookie) {
    const [name, value] = options.cookie.split('=') as [string, string]
    await context.addCookies([{ name, value, url: app.service.url }])
  }
  return context
}

/** Console errors and page errors of the app's own pages (not of the provider's login pages). */
function watchAppConsole(page: Page): string[] {
  const errors: string[] = []
  page.on('console', (message) => {
    if (message.type() !== 'error') return
    if (message.location().url.startsWith(app.service.url)) errors.push(message.text())
  })
  page.on('pageerror', (error) => {
    if (page.url().startsWith(app.service.url)) errors.push(error.message)
  })
  return errors
}

const input = (page: Page, name: string) => page.locator(`form input[name="${name}"]`)
const ssoForm = (page: Page) => page.locator('form', { has: page.locator('select[name="mode"]') })

describe('the admin page /admin/sso', () => {
  it('sends a visitor without a session to the login page and refuses a viewer', async () => {
    const anonymous = await newContext()
    const page = await anonymous.newPage()
    await page.goto('/admin/sso')
    const url = new URL(page.url())
    expect(url.pathname).toBe('/login')
    expect(url.searchParams.get('redirectTo')).toBe('/admin/sso')
    await anonymous.close()

    const viewer = await newContext({ cookie: accounts.viewer })
    const viewerPage = await viewer.newPage()
    const response = await viewerPage.goto('/admin/sso')
    expect(response?.status()).toBe(403)
    expect(await viewerPage.getByRole('heading', { level: 1 }).innerText()).toBe(
      siteEn['error.forbidden.title'],
    )
    expect(await viewerPage.content()).toContain('This page needs the Admin role. Your role is Viewer.')
    expect(await viewerPage.locator('select[name="mode"]').count()).toBe(0)
    await viewer.close()
  })

  it('without JavaScript: discovery fills the endpoints, refused settings show their problems, the secret is write-only', async () => {
    const context = await newContext({ cookie: accounts.admin, javaScript: false })
    const page = await context.newPage()
    await page.goto('/admin/sso')
    expect(await page.locator('h1').innerText()).toBe(ssoEn['sso.title'])
    expect(await page.locator('#sso-redirect-uri').innerText()).toBe(`${app.service.url}/auth/sso/callback`)

    // The discovery button is a plain submit: the server reads the issuer's discovery document.
    await page.locator('select[name="mode"]').selectOption('oidc')
    await input(page, 'issuer').fill(provider.issuer)
    await input(page, 'buttonLabel').fill(BUTTON)
    await page.getByRole('button', { name: ssoEn['sso.discover'] }).click()
    await page.getByText(ssoEn['sso.discovered']).waitFor()
    expect(await input(page, 'authorizationEndpoint').inputValue()).toBe(`${provider.issuer}/auth`)
    expect(await input(page, 'tokenEndpoint').inputValue()).toBe(`${provider.issuer}/token`)
    expect(await input(page, 'userinfoEndpoint').inputValue()).toBe(`${provider.issuer}/me`)
    expect(await input(page, 'jwksUri').inputValue()).toBe(`${provider.issuer}/jwks`)
    // What the admin chose before asking is still chosen.
    expect(await page.locator('select[name="mode"]').inputValue()).toBe('oidc')
    expect(await input(page, 'issuer').inputValue()).toBe(provider.issuer)
    expect(await input(page, 'buttonLabel').inputValue()).toBe(BUTTON)

    // An unreachable issuer: the form says so and keeps the values.
    await input(page, 'issuer').fill('http://127.0.0.1:9/nothing')
    await page.getByRole('button', { name: ssoEn['sso.discover'] }).click()
    await page.getByRole('alert').waitFor()
    expect(await input(page, 'issuer').inputValue()).toBe('http://127.0.0.1:9/nothing')
    await input(page, 'issuer').fill(provider.issuer)

    // OIDC without a client ID cannot be enabled: the missing value is named at its field.
    await page.getByRole('button', { name: ssoEn['sso.save'] }).click()
    await page.getByRole('alert').waitFor()
    expect(await page.getByRole('alert').innerText()).toBe('Check the marked fields: Client ID.')
    expect(await ssoForm(page).innerText()).toContain('Fill this in to switch on OpenID Connect.')
    expect(await page.locator('select[name="mode"]').inputValue()).toBe('oidc')
    expect(await input(page, 'tokenEndpoint').inputValue()).toBe(`${provider.issuer}/token`)
    expect((await api('/sso', { cookie: accounts.admin }).then((r) => r.json())).sso.mode).toBe('disabled')

    // An address that is not http(s): named at its field, nothing saved.
    await input(page, 'clientId').fill(provider.clientId)
    await input(page, 'tokenEndpoint').fill('ftp://127.0.0.1/token')
    await input(page, 'clientSecret').fill('refused-secret-4711')
    await page.getByRole('button', { name: ssoEn['sso.save'] }).click()
    await page.getByRole('alert').waitFor()
    expect(await ssoForm(page).innerText()).toContain(
      'Enter a web address starting with http:// or https://.',
    )
    expect(await input(page, 'clientId').inputValue()).toBe(provider.clientId)
    // The typed secret is not sent back with the refused form (neither in the field nor in the page data).
    expect(await input(page, 'clientSecret').inputValue()).toBe('')
    expect(await page.content()).not.toContain('refused-secret-4711')
    expect((await api('/sso', { cookie: accounts.admin }).then((r) => r.json())).sso.mode).toBe('disabled')

    // A usable combination with a client secret: saved; the secret is never sent back to the browser.
    await input(page, 'tokenEndpoint').fill(`${provider.issuer}/token`)
    await input(page, 'clientSecret').fill(TEST_CLIENT_SECRET)
    await page.getByRole('button', { name: ssoEn['sso.save'] }).click()
    await page.getByText(siteEn['flash.ssoSaved']).waitFor()
    expect(await input(page, 'clientSecret').inputValue()).toBe('')
    expect(await page.getByText(ssoEn['sso.clientSecretStored']).count()).toBe(1)
    const saved = await api('/sso', { cookie: accounts.admin })
    const body = await saved.text()
    expect(body).not.toContain(TEST_CLIENT_SECRET.slice(0, 12))
    expect(JSON.parse(body).sso).toMatchObject({
      mode: 'oidc',
      clientId: provider.clientId,
      hasClientSecret: true,
      buttonLabel: BUTTON,
    })
    expect(await page.content()).not.toContain(TEST_CLIENT_SECRET.slice(0, 12))
    await page.reload()
    expect(await page.content()).not.toContain(TEST_CLIENT_SECRET.slice(0, 12))
    expect(await input(page, 'clientSecret').inputValue()).toBe('')
    expect(await page.getByText(ssoEn['sso.clientSecretStored']).count()).toBe(1)

    // Saving again with the secret field left empty keeps the stored secret.
    await input(page, 'buttonLabel').fill(BUTTON)
    await page.getByRole('button', { name: ssoEn['sso.save'] }).click()
    await page.getByText(siteEn['flash.ssoSaved']).waitFor()
    const kept = await api('/sso', { cookie: accounts.admin }).then((r) => r.json())
    expect(kept.sso.hasClientSecret).toBe(true)
    await context.close()
  })
  it('with JavaScript: discovery and refused settings work in place, without console errors', async () => {
    const context = await newContext({ cookie: accounts.admin })
    const page = await context.newPage()
    const errors = watchAppConsole(page)
    await page.goto('/admin/sso', { waitUntil: 'networkidle' })
    expect(await page.locator('select[name="mode"]').inputValue()).toBe('oidc')
    await input(page, 'jwksUri').fill('')
    await page.getByRole('button', { name: ssoEn['sso.discover'] }).click()
    await page.getByText(ssoEn['sso.discovered']).waitFor()
    expect(await input(page, 'jwksUri').inputValue()).toBe(`${provider.issuer}/jwks`)

    await input(page, 'jwksUri').fill('')
    await page.getByRole('button', { name: ssoEn['sso.save'] }).click()
    await page.getByText('Fill this in to switch on OpenID Connect.').waitFor()
    expect(await input(page, 'clientId').inputValue()).toBe(provider.clientId)
    // The refused save answered 400 on purpose; Chromium logs every 4xx fetch. Nothing else may be logged.
    expect(errors.splice(0)).toEqual([expect.stringContaining('400')])
    const stored = await api('/sso', { cookie: accounts.admin }).then((r) => r.json())
    expect(stored.sso.jwksUri).toBe(`${provider.issuer}/jwks`)
    expect(errors).toEqual([])
    await context.close()
  })
})

describe('signing in through the provider in Chromium', () => {
  it('goes from the SSO button through the provider’s login form to the home page, then signs out', async () => {
    const context = await newContext()
    const page = await context.newPage()
    const errors = watchAppConsole(page)
    await page.goto('/login')
    await page.getByRole('link', { name: BUTTON }).click()

    // The provider's own login form (oidc-provider's dev interactions).
    await page.waitForURL((url) => url.href.startsWith(provider.issuer))
    await page.locator('input[name="login"]').fill('alice@corp.test')
    await page.locator('input[name="password"]').fill('any password')
    await page.getByRole('button', { name: 'Sign-in' }).click()
    // Consent, when the provider asks for it (this provider's grant covers the scopes, so it does not).
    const consent = page.getByRole('button', { name: 'Continue' })
    const signedIn = page.getByRole('link', { name: 'Alice Kim (Viewer)' })
    await consent.or(signedIn).waitFor()
    if (await consent.isVisible()) await consent.click()

    await page.waitForURL(`${app.service.url}/`)
    await page.getByRole('link', { name: 'Alice Kim (Viewer)' }).waitFor()
    const cookies = await context.cookies(app.service.url)
    const session = cookies.find((c) => c.name === SESSION_COOKIE)
    expect(session?.httpOnly).toBe(true)
    // The flow cookie is gone once the callback has answered.
    expect(cookies.find((c) => c.name === 'glossary_sso_flow')).toBeUndefined()
    const cookie = `${SESSION_COOKIE}=${session!.value}`
    // GET /keys needs a session: 200 proves the cookie is one.
    expect((await api('/keys', { cookie })).status).toBe(200)
    const users = await api('/admin/users?q=alice', { cookie: accounts.admin }).then((r) => r.json())
    expect(users.items).toEqual([
      expect.objectContaining({
        email: 'alice@corp.test',
        name: 'Alice Kim',
        role: 'viewer',
        authType: 'sso',
      }),
    ])

    await page.getByRole('button', { name: commonEn['nav.logout'] }).click()
    await page.waitForURL('**/login')
    expect((await context.cookies(app.service.url)).some((c) => c.name === SESSION_COOKIE)).toBe(false)
    expect((await api('/keys', { cookie })).status).toBe(401)
    expect(errors).toEqual([])
    await context.close()
  })

  it('shows the admin the claim names of that sign-in, never their values', async () => {
    const context = await newContext({ cookie: accounts.admin, javaScript: false })
    const page = await context.newPage()
    await page.goto('/admin/sso')
    const names = await page.locator(`h2:text-is("${ssoEn['sso.lastClaims']}") + p`).innerText()
    const keys = names.split(', ')
    expect(keys).toEqual([...keys].sort())
    expect(keys).toEqual(expect.arrayContaining(['email', 'groups', 'name', 'nonce', 'sub']))
    const text = await page.locator('main').innerText()
    for (const value of ['Alice Kim', 'staff']) expect(text).not.toContain(value)
    expect(text).not.toContain('alice@corp.test')
    await context.close()
  })
})

describe('the login page and SSO', () => {
  it('explains each failure code and shows the generic text for an unknown one', async () => {
    const context = await newContext()
    const page = await context.newPage()
    const errors = watchAppConsole(page)
    for (const code of SSO_FAILURE_CODES) {
      await page.goto(`/login?sso=${code}`)
      const alert = page.locator('[role="alert"][data-sso-code]')
      expect(await alert.getAttribute('data-sso-code')).toBe(code)
      expect(await alert.innerText()).toBe(ssoEn[`login.sso.${code}`])
    }
    for (const code of ['bogus', '', 'constructor', '<b>x</b>']) {
      await page.goto(`/login?sso=${encodeURIComponent(code)}`)
      expect(await page.locator('[role="alert"][data-sso-code]').innerText()).toBe(identityEn['login.sso'])
    }
    // The SSO button sits next to the password form while both are on.
    await page.goto('/login')
    expect(await page.locator('[data-sso-code]').count()).toBe(0)
    expect(await page.getByRole('link', { name: BUTTON }).count()).toBe(1)
    expect(await page.locator('input[name="password"]').count()).toBe(1)
    expect(errors).toEqual([])
    await context.close()
  })

  it('shows only the SSO button when password login is off', async () => {
    const off = await api('/sso', {
      method: 'PUT',
      cookie: accounts.admin,
      body: { passwordLoginEnabled: false },
    })
    expect(off.status, await off.clone().text()).toBe(200)
    const context = await newContext()
    const page = await context.newPage()
    const errors = watchAppConsole(page)
    await page.goto('/login')
    expect(await page.getByRole('link', { name: BUTTON }).getAttribute('href')).toBe('/auth/sso/start')
    expect(await page.locator('main input, section input').count()).toBe(0)
    expect(await page.getByRole('link', { name: commonEn['nav.register'] }).count()).toBe(0)
    expect(await page.getByText(identityEn['login.disabled']).count()).toBe(0)
    // The existing admin session keeps working.
    expect((await api('/sso', { cookie: accounts.admin })).status).toBe(200)

    // In Korean: the failure texts, and the default button text in the reader's language.
    const reset = await api('/sso', {
      method: 'PUT',
      cookie: accounts.admin,
      body: { buttonLabel: DEFAULT_SSO_BUTTON_LABEL },
    })
    expect(reset.status).toBe(200)
    await context.addCookies([{ name: 'lang', value: 'ko', url: app.service.url }])
    await page.goto('/login?sso=not_allowed')
    expect(await page.locator('[data-sso-code]').innerText()).toBe(ssoKo['login.sso.not_allowed'])
    expect(await page.getByRole('link', { name: ssoKo['login.ssoDefault'] }).count()).toBe(1)
    await page.goto('/login?sso=bogus')
    expect(await page.locator('[data-sso-code]').innerText()).toBe(identityKo['login.sso'])
    expect(errors).toEqual([])
    await context.close()
  })
})
