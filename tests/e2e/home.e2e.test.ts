import { beforeAll, describe, expect, it } from 'vitest'
import { watchConsole } from './harness.ts'
import { apiOf, useAdminAndViewer, useAppAndBrowser } from './use-app.ts'

const app = useAppAndBrowser()
const cookies = useAdminAndViewer(app)
const api = apiOf(app)
let slug = ''

beforeAll(async () => {
  const created = await api('/terms', {
    method: 'POST',
    cookie: cookies.admin,
    body: {
      name: 'Settlement Ledger',
      definition: 'The book every account settles into at night.',
      notations: [{ text: 'STL-42', kind: 'admitted', lang: 'en' }],
    },
  })
  expect(created.status, await created.clone().text()).toBe(201)
  slug = ((await created.json()) as { slug: string }).slug
})

/** A browser page signed in with the session cookie `cookie` (`name=value`). */
async function signedInPage(cookie: string) {
  const context = await app.browser.newContext({ baseURL: app.service.url })
  const [name, value] = cookie.split('=')
  await context.addCookies([{ name: name!, value: value!, url: app.service.url }])
  return { context, page: await context.newPage() }
}

describe('home page in Chromium', () => {
  it('renders, hydrates and logs no console error', async () => {
    const page = await app.browser.newPage()
    const errors = watchConsole(page)
    const response = await page.goto(app.service.url, { waitUntil: 'networkidle' })
    expect(response?.status()).toBe(200)
    expect(await page.locator('h1').innerText()).toBe('Glossary')
    // The language switch is a real form: it works (and posts back) with the hydrated app.
    await page.getByRole('button', { name: '한국어' }).click()
    await page.locator('h1', { hasText: '용어 사전' }).waitFor({ timeout: 10_000 })
    expect(await page.locator('html').getAttribute('lang')).toBe('ko')
    expect(errors).toEqual([])
    await page.close()
  })

  it('the search box lists matching terms as you type, by name and by notation, without loading a page', async () => {
    const { context, page } = await signedInPage(cookies.viewer)
    const errors = watchConsole(page)
    await page.goto('/', { waitUntil: 'networkidle' })
    // a marker on the window: a page load would drop it
    await page.evaluate(() => ((window as unknown as { stayed: boolean }).stayed = true))
    const box = page.getByLabel('Find a term')
    await box.pressSequentially('settle')
    const link = page.locator(`#home-find-results a[href="/terms/${slug}"]`)
    await link.waitFor({ timeout: 10_000 })
    expect(await link.innerText()).toBe('Settlement Ledger')
    expect(await page.getByRole('status').filter({ hasText: 'term matches' }).innerText()).toBe(
      '1 term matches',
    )

    await box.fill('')
    await box.pressSequentially('stl-4')
    await page.locator('#home-find-results', { hasText: 'STL-42' }).waitFor({ timeout: 10_000 })
    expect(await page.locator(`#home-find-results a[href="/terms/${slug}"]`).count()).toBe(1)

    await box.fill('')
    await box.pressSequentially('no such thing')
    await page
      .getByText('No term has a name or notation containing “no such thing”.')
      .waitFor({ timeout: 10_000 })

    expect(new URL(page.url()).pathname).toBe('/')
    expect(await page.evaluate(() => (window as unknown as { stayed?: boolean }).stayed)).toBe(true)

    // the arrow key moves from the box into the results; Enter opens the term
    await box.fill('')
    await box.pressSequentially('ledger')
    await link.waitFor({ timeout: 10_000 })
    await box.press('ArrowDown')
    expect(await page.evaluate(() => document.activeElement?.getAttribute('href'))).toBe(`/terms/${slug}`)
    await page.keyboard.press('Enter')
    await page.waitForURL(`**/terms/${slug}`)
    expect(errors).toEqual([])
    await context.close()
  })

  it('without JavaScript the box searches on /search, by name while search by meaning is off', async () => {
    const context = await app.browser.newContext({ baseURL: app.service.url, javaScriptEnabled: false })
    const [name, value] = cookies.viewer.split('=')
    await context.addCookies([{ name: name!, value: value!, url: app.service.url }])
    const page = await context.newPage()
    await page.goto('/')
    await page.getByLabel('Find a term').fill('STL')
    await page.getByRole('button', { name: 'Search', exact: true }).click()
    await page.waitForURL('**/search?q=STL')
    await page.getByText('Search by meaning is off; showing terms whose name or notation matches.').waitFor()
    expect(await page.locator(`a[href="/terms/${slug}"]`).count()).toBeGreaterThan(0)
    await context.close()
  })
})
