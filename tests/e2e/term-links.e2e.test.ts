import { beforeAll, describe, expect, it } from 'vitest'
import type { Page } from 'playwright-core'
import { apiOf, SESSION_COOKIE, useAdminAndViewer, useAppAndBrowser } from './use-app.ts'

/**
 * Term links in Chromium (issue 32): on a wiki page and a meeting record, a use of a term links to it and its
 * definition shows on hover and on keyboard focus, with JavaScript and without; on a phone the definition is a
 * sheet inside the screen. A deprecated notation is marked and says what to write.
 */
const app = useAppAndBrowser()
const accounts = useAdminAndViewer(app)
const api = apiOf(app)
let meetingId = ''

beforeAll(async () => {
  const term = await api('/terms', {
    method: 'POST',
    cookie: accounts.admin,
    body: {
      name: 'Settlement ledger',
      definition: 'The book into which every account settles at the end of the day.',
      notations: [{ text: 'SL book', kind: 'deprecated', lang: null }],
    },
  })
  expect(term.status, await term.clone().text()).toBe(201)
  const page = await api('/wiki', {
    method: 'POST',
    cookie: accounts.admin,
    body: {
      title: 'Closing the day',
      slug: 'closing-the-day',
      status: 'published',
      content: '## Steps\n\nAt six the settlement ledger is closed. Nobody says SL book any more.\n',
    },
  })
  expect(page.status, await page.clone().text()).toBe(201)
  const meeting = await api('/meetings', {
    method: 'POST',
    cookie: accounts.admin,
    body: {
      title: 'Ops sync',
      meetingDate: '2026-11-20T10:00:00+09:00',
      content: 'We agreed the settlement ledger closes at six.',
    },
  })
  expect(meeting.status, await meeting.clone().text()).toBe(201)
  meetingId = ((await meeting.json()) as { id: string }).id
})

async function open(path: string, options: { javaScript: boolean; width?: number; height?: number }) {
  const context = await app.browser.newContext({
    javaScriptEnabled: options.javaScript,
    viewport: { width: options.width ?? 1280, height: options.height ?? 800 },
  })
  const url = new URL(app.service.url)
  await context.addCookies([
    { name: SESSION_COOKIE, value: accounts.viewer.split('=')[1]!, domain: url.hostname, path: '/' },
  ])
  const page = await context.newPage()
  await page.goto(`${app.service.url}${path}`)
  return { page, close: () => context.close() }
}

async function expectTooltipOnHoverAndFocus(page: Page): Promise<void> {
  const link = page.locator('a.term-link', { hasText: 'settlement ledger' })
  const tooltip = page.locator('.term', { has: link }).locator('.term-def')
  await expect.poll(() => tooltip.isVisible()).toBe(false)
  await link.hover()
  await expect.poll(() => tooltip.isVisible()).toBe(true)
  expect(await tooltip.textContent()).toContain('The book into which every account settles')
  await page.mouse.move(0, 0)
  await expect.poll(() => tooltip.isVisible()).toBe(false)
  await link.focus()
  await expect.poll(() => tooltip.isVisible()).toBe(true)
  expect(await link.getAttribute('href')).toBe('/terms/settlement-ledger')
  // The link is described by its definition for screen readers.
  const describedBy = await link.getAttribute('aria-describedby')
  expect(await page.locator(`#${describedBy}`).getAttribute('role')).toBe('tooltip')
}

describe('term links', () => {
  for (const javaScript of [true, false]) {
    it(`on a wiki page show the definition on hover and focus (JavaScript ${javaScript ? 'on' : 'off'})`, async () => {
      const { page, close } = await open('/wiki/closing-the-day', { javaScript })
      try {
        await expectTooltipOnHoverAndFocus(page)
        const mark = page.locator('mark.term-deprecated', { hasText: 'SL book' })
        await mark.focus()
        await expect
          .poll(() => page.locator('.term', { has: mark }).locator('.term-def').textContent())
          .toBe('Deprecated: write “Settlement ledger”.')
        // Not in the heading.
        expect(await page.locator('.markdown h2 a').count()).toBe(0)
      } finally {
        await close()
      }
    })
  }

  it('on a meeting record show the definition on hover and focus', async () => {
    const { page, close } = await open(`/meetings/${meetingId}`, { javaScript: true })
    try {
      await expectTooltipOnHoverAndFocus(page)
    } finally {
      await close()
    }
  })

  it('on a phone show the definition as a sheet inside the screen', async () => {
    const { page, close } = await open('/wiki/closing-the-day', { javaScript: true, width: 390, height: 844 })
    try {
      const link = page.locator('a.term-link', { hasText: 'settlement ledger' })
      await link.focus()
      const tooltip = page.locator('.term', { has: link }).locator('.term-def')
      await expect.poll(() => tooltip.isVisible()).toBe(true)
      const box = (await tooltip.boundingBox())!
      expect(box.x).toBeGreaterThanOrEqual(0)
      expect(box.x + box.width).toBeLessThanOrEqual(390)
      expect(box.y + box.height).toBeLessThanOrEqual(844)
    } finally {
      await close()
    }
  })
})
