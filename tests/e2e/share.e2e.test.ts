import http from 'node:http'
import type { AddressInfo } from 'node:net'
import type { Browser } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { launchBrowser, startService, type RunningService } from './harness.ts'

/**
 * The shared sheet of the built app (spec part 9): session rules, parameters, the 200-row cap, and framing in
 * Chromium — a page on another loopback port frames /embed and it renders, while framing /sheet is blocked.
 */

let service: RunningService
let browser: Browser
let cookie = ''
let key = ''
let framer: http.Server
let framerPort = 0

const frameHtml = (target: string) => `<!doctype html><html><body>
<iframe id="embed" src="${target}/embed?columns=name,status&compact=1" width="800" height="400"></iframe>
<iframe id="sheet" src="${target}/sheet" width="800" height="400"></iframe>
</body></html>`

beforeAll(async () => {
  service = await startService('start')
  const setup = await fetch(`${service.url}/api/v1/setup`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: service.url },
    body: JSON.stringify({ email: 'admin@example.test', password: 'admin password 1', name: 'Admin' }),
  })
  expect(setup.status).toBe(200)
  cookie = setup.headers.getSetCookie()[0]!.split(';')[0]!
  const headers = { 'content-type': 'application/json', origin: service.url, cookie }
  const issued = await fetch(`${service.url}/api/v1/keys`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ name: 'e2e', scopes: ['read'] }),
  })
  key = ((await issued.json()) as { token: string }).token
  const rows = Array.from({ length: 205 }, (_, i) => ({
    name: `Shared Term ${String(i).padStart(3, '0')}`,
    definition: `Definition ${i}.`,
    tags: ['shared'],
    notations: i === 0 ? [{ text: 'ST0', kind: 'deprecated' }] : [],
  }))
  const imported = await fetch(`${service.url}/api/v1/import`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ format: 'json', rows, wait: true }),
  })
  expect(imported.status).toBe(200)
  // The framing page: another loopback port, so another origin of the same site.
  framer = http.createServer((req, res) => {
    res.setHeader('content-type', 'text/html; charset=utf-8')
    res.end(frameHtml(service.url))
  })
  await new Promise<void>((resolve) => framer.listen(0, '127.0.0.1', resolve))
  framerPort = (framer.address() as AddressInfo).port
  browser = await launchBrowser()
})

afterAll(async () => {
  await browser?.close()
  await new Promise((resolve) => framer?.close(resolve))
  await service?.stop()
})

const get = (path: string, headers: Record<string, string> = {}) =>
  fetch(`${service.url}${path}`, { headers, redirect: 'manual' })

describe('session rules', () => {
  it('/sheet sends a visitor to the login page, which returns to the sheet; an API key is not a session', async () => {
    const anonymous = await get('/sheet?columns=name&q=Shared')
    expect(anonymous.status).toBe(302)
    expect(anonymous.headers.get('location')).toBe(
      `/login?redirectTo=${encodeURIComponent('/sheet?columns=name&q=Shared')}`,
    )
    const byKey = await get('/sheet', { authorization: `Bearer ${key}` })
    expect(byKey.status).toBe(302)
    // The key itself works on the API.
    expect((await get('/api/v1/export/terms.csv', { authorization: `Bearer ${key}` })).status).toBe(200)
  })

  it('/embed without a session shows a sign-in link that opens a new tab', async () => {
    const res = await get('/embed?columns=name')
    expect(res.status).toBe(200)
    const html = await res.text()
    expect(html).toMatch(
      /<a href="\/login\?redirectTo=%2Fsheet%3Fcolumns%3Dname" target="_blank" rel="noopener noreferrer"/,
    )
    expect(html).not.toContain('site-header')
  })
})

describe('parameters and the cap', () => {
  it('shows the chosen columns and options, at most 200 rows with a note and a link to the full list', async () => {
    const res = await get('/sheet?columns=status,name,bogus&compact=1&links=0&border=0&tag=shared', {
      cookie,
    })
    expect(res.status).toBe(200)
    expect(res.headers.get('content-security-policy')).toMatch(/frame-ancestors 'none'/)
    const html = await res.text()
    expect([...html.matchAll(/<th data-column="(\w+)"/g)].map((m) => m[1])).toEqual(['status', 'name'])
    expect(html).toMatch(/class="sheet-table compact borderless" data-rows="200"/)
    expect(html).not.toMatch(/<td><a href="\/terms\//)
    expect(html.includes('Showing 200 of 205 terms; 5 more are not shown.')).toBe(true)
    expect(html).toContain('href="/terms?tag=shared"')

    const linked = await (
      await get('/sheet?q=Shared%20Term%20000&columns=name,deprecated', { cookie })
    ).text()
    expect(linked).toMatch(/class="sheet-table bordered" data-rows="1"/)
    expect(linked).toContain('<a href="/terms/shared-term-000">Shared Term 000</a>')
    expect(linked).toContain('ST0')
    expect(linked).not.toContain('sheet-cap')
  })

  it('/embed with a session renders the table without the site header, links opening a new tab', async () => {
    const res = await get('/embed?q=Shared%20Term%20001', { cookie })
    expect(res.headers.get('content-security-policy')).toMatch(/frame-ancestors \*/)
    const html = await res.text()
    expect(html).not.toContain('site-header')
    expect(html).toContain('<a href="/terms/shared-term-001" target="_blank" rel="noopener noreferrer">')
  })

  it('the term list builds the share links without JavaScript', async () => {
    const html = await (
      await get('/terms?tag=shared&share=1&columns=name&columns=tags&compact=1&border=1', { cookie })
    ).text()
    expect(html).toContain(
      `value="${service.url}/sheet?columns=name%2Ctags&amp;compact=1&amp;links=0&amp;tag=shared"`,
    )
    expect(html).toContain('not a privacy boundary')
  })
})

describe('the share builder in Chromium', () => {
  it('follows every change with the links and a live preview', { timeout: 120_000 }, async () => {
    const context = await browser.newContext({ baseURL: service.url })
    const [name, value] = cookie.split('=') as [string, string]
    await context.addCookies([
      { name, value, domain: '127.0.0.1', path: '/', httpOnly: true, sameSite: 'Lax' },
    ])
    const page = await context.newPage()
    const errors: string[] = []
    page.on('pageerror', (e) => errors.push(e.message))
    await page.goto('/terms?tag=shared')
    await page.getByText('Share this view').click()
    await page.getByLabel('Definition').uncheck()
    await page.getByLabel('Compact rows').check()
    const link = page.locator('input[name="sheetLink"]')
    await expect
      .poll(() => link.inputValue())
      .toBe(`${service.url}/sheet?columns=name%2Cnotations%2Cstatus&compact=1&tag=shared`)
    expect(await page.locator('textarea[name="embedSnippet"]').inputValue()).toContain(
      `src="${service.url}/embed?columns=name%2Cnotations%2Cstatus&amp;compact=1&amp;tag=shared"`,
    )
    const preview = page.frameLocator('.share-builder iframe')
    await preview.locator('table.sheet-table.compact').waitFor()
    expect(await preview.locator('th').allTextContents()).toEqual(['Name', 'Notations', 'Status'])
    expect(errors).toEqual([])
    await context.close()
  })
})

describe('framing in Chromium', () => {
  it(
    'another loopback port frames /embed and it renders; framing /sheet is blocked',
    { timeout: 120_000 },
    async () => {
      const context = await browser.newContext()
      const { hostname } = new URL(service.url)
      const [name, value] = cookie.split('=') as [string, string]
      await context.addCookies([
        { name, value, domain: hostname, path: '/', httpOnly: true, sameSite: 'Lax' },
      ])
      const page = await context.newPage()
      const refused: string[] = []
      page.on('console', (m) => {
        if (m.type() === 'error') refused.push(m.text())
      })
      await page.goto(`http://127.0.0.1:${framerPort}/`)
      const embed = page.frameLocator('#embed')
      await embed.locator('table.sheet-table tbody tr').first().waitFor()
      expect(await embed.locator('th').allTextContents()).toEqual(['Name', 'Status'])
      expect(await embed.locator('tbody tr').count()).toBe(200)
      expect(await embed.locator('.sheet-cap').textContent()).toContain('205')
      // The sheet frame is refused by its frame-ancestors 'none': no document of ours renders in it.
      await expect.poll(() => refused.some((m) => /frame-ancestors/.test(m)), { timeout: 10_000 }).toBe(true)
      expect(await page.frameLocator('#sheet').locator('table').count()).toBe(0)
      await context.close()
    },
  )

  it(
    'in another site’s frame the session cookie is not sent: the embed shows its sign-in link',
    { timeout: 120_000 },
    async () => {
      const context = await browser.newContext()
      const [name, value] = cookie.split('=') as [string, string]
      await context.addCookies([
        { name, value, domain: '127.0.0.1', path: '/', httpOnly: true, sameSite: 'Lax' },
      ])
      const page = await context.newPage()
      // localhost and 127.0.0.1 are different sites, so SameSite=Lax keeps the cookie out of the frame.
      await page.goto(`http://localhost:${framerPort}/`)
      const link = page.frameLocator('#embed').getByRole('link', { name: 'Sign in to see the glossary' })
      await link.waitFor()
      expect(await link.getAttribute('target')).toBe('_blank')
      await context.close()
    },
  )
})
