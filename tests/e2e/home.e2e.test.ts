import { describe, expect, it } from 'vitest'
import { watchConsole } from './harness.ts'
import { useAppAndBrowser } from './use-app.ts'

const app = useAppAndBrowser()

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
})
