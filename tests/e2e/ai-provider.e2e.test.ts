import type { BrowserContext, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { aiProviderEn, aiProviderKo } from '#app/lib/messages/ai-provider.ts'
import { searchEn } from '#app/lib/messages/search.ts'
import { STAND_IN_CHAT_MODEL, startStandIn, type StandIn } from '#tests/provider-stand-in.ts'
import { apiOf, useAdminAndViewer, useAppAndBrowser } from './use-app.ts'

/**
 * The AI provider page (`/admin/ai-provider`, issue 29) in Chromium on the built app: the whole flow (load the
 * provider's chat models, pick one, save a write-only key, test the connection) with and without JavaScript,
 * and the page at 1280×800 and 390×844 in English and Korean without sideways scrolling.
 */

const app = useAppAndBrowser()
const api = apiOf(app)
const accounts = useAdminAndViewer(app)
const KEY = 'sk-e2e-LLM-KEY-4411'
let provider: StandIn

beforeAll(async () => {
  provider = await startStandIn()
})
afterAll(async () => {
  await provider?.close()
})

async function newContext(options: {
  javaScript: boolean
  viewport?: { width: number; height: number }
  lang?: 'ko'
}): Promise<BrowserContext> {
  const context = await app.browser.newContext({
    baseURL: app.service.url,
    javaScriptEnabled: options.javaScript,
    viewport: options.viewport ?? { width: 1280, height: 800 },
  })
  const [name, value] = accounts.admin.split('=') as [string, string]
  await context.addCookies([{ name, value, url: app.service.url }])
  if (options.lang) await context.addCookies([{ name: 'lang', value: options.lang, url: app.service.url }])
  return context
}

const field = (page: Page, name: string) => page.locator(`[name="${name}"]`)

describe('/admin/ai-provider', () => {
  for (const javaScript of [false, true]) {
    it(`${javaScript ? 'with' : 'without'} JavaScript: lists the chat models, saves a write-only key, tests the connection`, async () => {
      await api('/admin/ai-provider', {
        method: 'PATCH',
        cookie: accounts.admin,
        body: { baseUrl: '', model: '', apiKey: null },
      })
      const context = await newContext({ javaScript })
      const page = await context.newPage()
      const errors: string[] = []
      page.on('pageerror', (error) => errors.push(error.message))
      await page.goto('/admin/ai-provider')
      expect(await page.locator('h1').innerText()).toBe(aiProviderEn['aiProvider.title'])
      expect(await page.getByTestId('llm-key-state').innerText()).toBe(
        searchEn['searchSettings.notConfigured'],
      )

      await field(page, 'baseUrl').fill(provider.url)
      await page.locator('button[value="models-llm"]').click()
      await page.getByText('The provider lists 2 models; choose one and save.').waitFor()
      expect(await field(page, 'baseUrl').inputValue()).toBe(provider.url)
      const options = await page
        .locator('#llm-model option')
        .evaluateAll((els) => els.map((el) => (el as HTMLOptionElement).value))
      expect(options).toEqual(['chat-model', STAND_IN_CHAT_MODEL, ''])
      await page.locator('#llm-model').selectOption(STAND_IN_CHAT_MODEL)
      await field(page, 'llmApiKey').fill(KEY)
      await page.locator('form.settings-form button[value="save"]:not([hidden])').click()
      await page.getByText(aiProviderEn['aiProvider.saved']).waitFor()
      expect(await page.getByTestId('llm-key-state').innerText()).toBe(searchEn['searchSettings.configured'])
      expect(await page.content()).not.toContain(KEY)

      await page.locator('button[value="test"]').click()
      await page.locator('[data-testid="test-result"][data-ok="true"]').waitFor()
      const sent = provider.requests.findLast((r) => r.path.endsWith('/chat/completions'))!
      expect(sent.headers.authorization).toBe(`Bearer ${KEY}`)
      const stored = await (await api('/admin/ai-provider', { cookie: accounts.admin })).json()
      expect(stored).toMatchObject({ baseUrl: provider.url, model: STAND_IN_CHAT_MODEL, hasApiKey: true })
      expect(errors).toEqual([])
      await context.close()
    })
  }

  for (const viewport of [
    { width: 1280, height: 800 },
    { width: 390, height: 844 },
  ]) {
    for (const lang of [undefined, 'ko'] as const) {
      it(`${viewport.width}×${viewport.height} ${lang ?? 'en'}: no sideways scrolling, every control reachable`, async () => {
        const context = await newContext({ javaScript: true, viewport, lang })
        const page = await context.newPage()
        const res = await page.goto('/admin/ai-provider')
        expect(res?.status()).toBe(200)
        const title = lang === 'ko' ? aiProviderKo['aiProvider.title'] : aiProviderEn['aiProvider.title']
        expect(await page.locator('h1').innerText()).toBe(title)
        // open the folded headers too: the widest part of the form
        await page.getByTestId('llm-headers').locator('summary').click()
        const { scrollWidth, innerWidth } = await page.evaluate(() => ({
          scrollWidth: document.documentElement.scrollWidth,
          innerWidth: window.innerWidth,
        }))
        expect(scrollWidth).toBeLessThanOrEqual(innerWidth)
        for (const name of ['baseUrl', 'llmApiKey', 'temperature', 'maxTokens']) {
          const box = await field(page, name).boundingBox()
          expect(box, name).not.toBeNull()
          expect(box!.x + box!.width, name).toBeLessThanOrEqual(innerWidth)
        }
        await context.close()
      })
    }
  }
})
