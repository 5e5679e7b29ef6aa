import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Browser } from 'playwright-core'
import { launchBrowser, startService, watchConsole, type RunningService } from './harness.ts'

let service: RunningService
let browser: Browser

beforeAll(async () => {
  service = await startService('start')
  browser = await launchBrowser()
})

afterAll(async () => {
  await browser?.close()
  await service?.stop()
})

describe('home page in Chromium', () => {
  it('renders, hydrates and logs no console error', async () => {
    const page = await browser.newPage()
    const errors = watchConsole(page)
    const response = await page.goto(service.url, { waitUntil: 'networkidle' })
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
