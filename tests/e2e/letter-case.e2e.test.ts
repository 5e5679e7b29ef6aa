import { beforeAll, describe, expect, it } from 'vitest'
import { watchConsole } from './harness.ts'
import { useAppAndBrowser } from './use-app.ts'

// Letter case as users see it (issue 10): an administrator sets the severity of wrong-case uses on the
// settings page, and the check page names the finding and marks it in the text.
const app = useAppAndBrowser()
let session = ''

beforeAll(async () => {
  const setup = await fetch(`${app.service.url}/api/v1/setup`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: app.service.url },
    body: JSON.stringify({ email: 'admin@example.test', password: 'admin password 1', name: 'Admin' }),
  })
  session = setup.headers.getSetCookie()[0]!.split(';')[0]!.split('=')[1]!
  const term = await fetch(`${app.service.url}/api/v1/terms`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      origin: app.service.url,
      cookie: `glossary_session=${session}`,
    },
    body: JSON.stringify({ name: 'GitHub', notations: [{ text: 'Github', kind: 'deprecated', lang: null }] }),
  })
  expect(term.status).toBe(201)
})

describe('letter case in the pages', () => {
  it(
    'an admin sets the wrong-case severity; the check page names and marks the finding',
    { timeout: 120_000 },
    async () => {
      const context = await app.browser.newContext({ baseURL: app.service.url })
      await context.addCookies([{ name: 'glossary_session', value: session, url: app.service.url }])
      const page = await context.newPage()
      const errors = watchConsole(page)

      await page.goto('/')
      // the admin pages sit in the navigation's Admin menu
      await page.locator('.site-nav summary', { hasText: 'Admin' }).click()
      await page.getByRole('link', { name: 'Service settings', exact: true }).click()
      await page.waitForURL('**/admin/settings')
      expect(await page.locator('#wrong-case-severity').inputValue()).toBe('warning')
      await page.locator('#wrong-case-severity').selectOption('error')
      await page.getByRole('button', { name: 'Save' }).click()
      await page.getByRole('status').getByText('Saved').waitFor()
      await page.reload()
      expect(await page.locator('#wrong-case-severity').inputValue()).toBe('error')

      await page.goto('/check')
      await page.fill('#check-text', 'We push to GITHUB. Then Github again, and GitHub.')
      await page.getByRole('button', { name: 'Check' }).click()
      const rows = page.locator('table.findings tbody tr')
      await rows.first().waitFor()
      const table = await rows.evaluateAll((trs) =>
        trs.map((tr) => ({
          text: tr.children[1]!.textContent,
          finding: tr.querySelector('[data-finding]')!.getAttribute('data-finding'),
          severity: tr.getAttribute('data-severity'),
        })),
      )
      expect(table).toEqual([
        { text: 'GITHUB', finding: 'wrong-case', severity: 'error' },
        { text: 'Github', finding: 'deprecated-notation', severity: 'error' },
      ])
      expect(await page.locator('mark[data-finding="wrong-case"]').textContent()).toBe('GITHUB')
      expect(await rows.first().textContent()).toContain('wrong letter case')

      // Markdown: code and link addresses are not checked; the marks sit in the text as typed.
      await page.fill('#check-text', 'See `Github` at [GitHub](https://github.com/Github).\n\nGithub is old.')
      await page.getByLabel('The text is Markdown', { exact: false }).check()
      await page.getByRole('button', { name: 'Check' }).click()
      // the first check listed two rows; this one lists one
      await page.waitForFunction(() => document.querySelectorAll('table.findings tbody tr').length === 1)
      expect(await page.locator('mark[data-finding="deprecated-notation"]').textContent()).toBe('Github')
      expect(await page.locator('table.findings tbody tr').first().textContent()).toContain('3:1')
      expect(await page.getByLabel('The text is Markdown', { exact: false }).isChecked()).toBe(true)
      expect(errors).toEqual([])
      await context.close()
    },
  )

  it('refuses the settings page to anyone but an admin', async () => {
    const anonymous = await fetch(`${app.service.url}/admin/settings`, { redirect: 'manual' })
    expect(anonymous.status).toBe(302)
    const post = await fetch(`${app.service.url}/admin/settings`, {
      method: 'POST',
      redirect: 'manual',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        origin: 'http://evil.example',
        cookie: `glossary_session=${session}`,
      },
      body: 'wrongCaseSeverity=none',
    })
    expect(post.status).toBe(403)
  })
})
