import { describe, expect, it } from 'vitest'
import type { Page } from 'playwright-core'
import { watchConsole } from './harness.ts'
import { useAppAndBrowser } from './use-app.ts'

const app = useAppAndBrowser()

async function fill(page: Page, fields: Record<string, string>) {
  for (const [name, value] of Object.entries(fields)) await page.fill(`input[name="${name}"]`, value)
}

describe('accounts in Chromium', () => {
  it('sets up the first admin, then registers, signs in, creates and revokes a key', async () => {
    const context = await app.browser.newContext({ baseURL: app.service.url })
    const page = await context.newPage()
    const errors = watchConsole(page)

    // Before any account exists every page leads to setup.
    await page.goto('/login')
    expect(new URL(page.url()).pathname).toBe('/setup')
    await fill(page, { email: 'admin@example.test', name: 'Ada Admin', password: 'admin-password' })
    await page.getByRole('button', { name: 'Create administrator' }).click()
    // signed in as the administrator: the navigation has its Admin menu
    await page.locator('.site-nav summary', { hasText: 'Admin' }).waitFor()
    // After setup the setup page redirects to login (here: home, because signed in; sign out first).
    await page.getByRole('button', { name: 'Sign out' }).click()
    await page.waitForURL('**/login')
    await page.goto('/setup')
    expect(new URL(page.url()).pathname).toBe('/login')

    await page.getByRole('link', { name: 'Create account' }).first().click()
    // Wait for the register page itself: the login page has email/password fields too.
    await page.getByRole('heading', { name: 'Create an account' }).waitFor()
    await fill(page, { email: 'Viewer@Example.test', password: 'viewer-password' })
    await page.getByRole('button', { name: 'Create account' }).last().click()
    await page.getByRole('link', { name: /Viewer@example.test|viewer@example.test/ }).waitFor()
    await page.getByRole('button', { name: 'Sign out' }).click()
    await page.waitForURL('**/login')

    // Wrong password: a generic message.
    await fill(page, { email: 'viewer@example.test', password: 'wrong-password' })
    await page.getByRole('button', { name: 'Sign in' }).last().click()
    await page.getByRole('alert').waitFor()
    expect(await page.getByRole('alert').innerText()).toBe('The email or password is incorrect.')
    // The failed sign-in answered 401 on purpose; Chromium logs every 4xx fetch. Nothing else may be logged.
    expect(errors.splice(0)).toEqual([expect.stringContaining('401')])

    await fill(page, { email: 'viewer@example.test', password: 'viewer-password' })
    await page.getByRole('button', { name: 'Sign in' }).last().click()
    await page.getByRole('link', { name: /viewer@example.test \(Viewer\)/ }).click()
    await page.waitForURL('**/settings')

    await page.fill('input[name="name"][id="field-name"]', 'my-linter')
    // `name` exists twice on the page (profile and key); fill the key form's field explicitly.
    const keyForm = page.locator('form', { has: page.locator('input[value="create-key"]') })
    await keyForm.locator('input[name="name"]').fill('ci-linter')
    await keyForm.getByRole('button', { name: 'Create key' }).click()
    const token = await page.getByTestId('one-time-token').innerText()
    expect(token).toMatch(/^glk_[0-9a-f]{8}_/)

    const withKey = await fetch(`${app.service.url}/api/v1/keys`, {
      headers: { authorization: `Bearer ${token}` },
    })
    // GET /keys needs a session: a key is refused with 403, which proves the key authenticated.
    expect(withKey.status).toBe(403)

    await page.getByRole('button', { name: 'Revoke ci-linter' }).click()
    await page.getByText(/^Revoked/).waitFor()
    const afterRevoke = await fetch(`${app.service.url}/api/v1/keys`, {
      headers: { authorization: `Bearer ${token}` },
    })
    expect(afterRevoke.status).toBe(401)
    expect(errors).toEqual([])
    await context.close()
  })

  it('signs in with JavaScript switched off (progressive enhancement)', async () => {
    const context = await app.browser.newContext({ baseURL: app.service.url, javaScriptEnabled: false })
    const page = await context.newPage()
    await page.goto('/login')
    await fill(page, { email: 'admin@example.test', password: 'admin-password' })
    await page.getByRole('button', { name: 'Sign in' }).last().click()
    await page.waitForURL((url) => url.pathname === '/')
    await page.goto('/admin/users')
    expect(await page.locator('h1').innerText()).toBe('Users')
    expect(await page.locator('tr[data-user-email="viewer@example.test"]').count()).toBe(1)
    // Raise the viewer to editor with a plain form post.
    const row = page.locator('tr[data-user-email="viewer@example.test"]')
    await row.locator('select[name="role"]').selectOption('editor')
    await row.getByRole('button', { name: 'Change' }).click()
    await page.waitForLoadState('load')
    expect(await page.locator('tr[data-user-email="viewer@example.test"] select').inputValue()).toBe('editor')
    await page.goto('/admin/audit')
    // the audit log says what happened in words (issue 27 item 11), not as the action's key
    expect(await page.locator('td', { hasText: "changed a user's role" }).count()).toBeGreaterThan(0)
    await context.close()
  })
})
