import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { chatEn } from '#app/lib/messages/chat.ts'
import { startStandIn, STAND_IN_CHAT_MODEL, type StandIn } from '#tests/provider-stand-in.ts'
import { watchConsole } from './harness.ts'
import { apiOf, useAdminAndViewer, useAppAndBrowser } from './use-app.ts'

/**
 * The chat in Chromium against the built app (`glossary start`) and the provider stand-in (issue 29, "Tests"):
 * a viewer asks a question in the home page's box and sees the answer stream in on the chat page, then its
 * citation chips, and follows the `[G1]` link to the cited term — with JavaScript, and without it (a form post
 * that shows the whole answer).
 */

const app = useAppAndBrowser()
const cookies = useAdminAndViewer(app)
const api = apiOf(app)
let provider: StandIn
let slug = ''

beforeAll(async () => {
  provider = await startStandIn()
  // pieces far enough apart that the page shows the answer before it is whole
  provider.chunkDelayMs = 150
  const created = await api('/terms', {
    method: 'POST',
    cookie: cookies.admin,
    body: { name: 'Settlement Ledger', definition: 'The book every account settles into at night.' },
  })
  expect(created.status, await created.clone().text()).toBe(201)
  slug = ((await created.json()) as { slug: string }).slug
  for (const [path, body] of [
    ['/admin/rag-config', { chatEnabled: true }],
    ['/admin/ai-provider', { baseUrl: provider.url, model: STAND_IN_CHAT_MODEL }],
  ] as const) {
    const res = await api(path, { method: 'PATCH', cookie: cookies.admin, body })
    expect(res.status, `${path}: ${await res.clone().text()}`).toBe(200)
  }
})

afterAll(async () => {
  await provider?.close()
})

async function contextFor(cookie: string, javaScriptEnabled: boolean) {
  const context = await app.browser.newContext({ baseURL: app.service.url, javaScriptEnabled })
  const [name, value] = cookie.split('=')
  await context.addCookies([{ name: name!, value: value!, url: app.service.url }])
  return context
}

describe('chat in Chromium', () => {
  it('with JavaScript: the home page’s question streams in on the chat page, with a working citation', async () => {
    const context = await contextFor(cookies.viewer, true)
    const page = await context.newPage()
    const errors = watchConsole(page)
    await page.goto('/', { waitUntil: 'networkidle' })
    await page.getByLabel(chatEn['chat.home.label']).fill('What is Settlement Ledger?')
    await page.getByRole('button', { name: chatEn['chat.home.submit'], exact: true }).click()

    // the answer arrives in pieces: part of it is on the page while it still streams
    const partial = await page.waitForFunction(
      () => {
        const answer = document.querySelector('[data-testid="chat-answer"][data-state="streaming"]')
        const text = answer?.querySelector('[data-testid="chat-answer-text"]')?.textContent ?? ''
        return text.length > 0 ? text : null
      },
      undefined,
      { timeout: 15_000, polling: 20 },
    )
    const streamed = (await partial.jsonValue()) as string
    expect(page.url()).toMatch(/\/chat$/)

    // then the whole answer with its evidence, at the conversation's address
    await page.waitForURL(/\/chat\/[0-9a-f-]{36}$/, { timeout: 15_000 })
    const answer = page.locator('[data-testid="chat-answer"][data-state="done"]')
    await answer.waitFor({ timeout: 15_000 })
    const whole = await answer.getByTestId('chat-answer-text').innerText()
    expect(whole.startsWith(streamed.trim().split(' ')[0]!)).toBe(true)
    expect(whole.length).toBeGreaterThan(streamed.length)
    expect(whole).toContain('[G1]')
    await answer.getByTestId('chat-citation').first().waitFor()
    expect(await answer.getByTestId('chat-citation').first().innerText()).toContain('Settlement Ledger')
    expect(await page.getByTestId('chat-question').innerText()).toContain('What is Settlement Ledger?')

    // the label in the text opens the cited term, in the same page (no document load on the way there or back)
    await page.evaluate(() => Object.assign(window, { sameDocument: true }))
    await answer.locator('a.chat-cite[data-label="G1"]').click()
    await page.waitForURL(new RegExp(`/terms/${slug}`))
    await page.locator('h1', { hasText: 'Settlement Ledger' }).waitFor()

    // back: the conversation, then the home page; the question is not asked again on the way
    const listed = async () =>
      ((await (await api('/chat/conversations', { cookie: cookies.viewer })).json()) as { items: unknown[] })
        .items.length
    const conversations = await listed()
    await page.goBack()
    await page.waitForURL(/\/chat\/[0-9a-f-]{36}$/)
    await page.locator('[data-testid="chat-answer"][data-state="done"]').waitFor()
    await page.goBack()
    await page.waitForURL((url) => url.pathname === '/')
    // The address changes before the page does: wait for the home page itself, or the chat page still on
    // screen would satisfy the next wait and then give way to the home page under the count below.
    await page.getByTestId('home-ask').waitFor()
    await page.goForward()
    await page.waitForURL(/\/chat\/[0-9a-f-]{36}$/)
    await page.locator('[data-testid="chat-answer"][data-state="done"]').waitFor()
    expect(await page.getByTestId('chat-question').count()).toBe(1)
    expect(await page.evaluate(() => 'sameDocument' in window)).toBe(true)
    expect(await listed()).toBe(conversations)
    expect(errors).toEqual([])
    await context.close()
  })

  it('with JavaScript: a follow-up on the conversation page streams into the same conversation', async () => {
    const context = await contextFor(cookies.viewer, true)
    const page = await context.newPage()
    const errors = watchConsole(page)
    await page.goto('/chat', { waitUntil: 'networkidle' })
    const first = page.getByTestId('chat-conversations').locator('a').first()
    const href = await first.getAttribute('href')
    await first.click()
    await page.waitForURL(`**${href}`)
    await page.locator('[data-testid="chat-answer"][data-state="done"]').first().waitFor()
    const before = await page.getByTestId('chat-answer').count()
    expect(before).toBeGreaterThan(0)
    await page.getByLabel(chatEn['chat.question']).fill('And when is Settlement Ledger closed?')
    await page.getByRole('button', { name: chatEn['chat.ask'], exact: true }).click()
    await page.waitForFunction(
      (n) => document.querySelectorAll('[data-testid="chat-answer"][data-state="done"]').length > n,
      before,
      { timeout: 15_000 },
    )
    expect(new URL(page.url()).pathname).toBe(href)
    expect(await page.getByTestId('chat-question').count()).toBe(before + 1)
    expect(errors).toEqual([])
    await context.close()
  })

  it('with JavaScript: chat switched off and the provider failing are said in the page, the question kept', async () => {
    const context = await contextFor(cookies.viewer, true)
    const page = await context.newPage()
    const errors = watchConsole(page)
    const box = page.getByLabel(chatEn['chat.question'])
    const askButton = page.getByRole('button', { name: chatEn['chat.ask'], exact: true })

    // switched off while the page is open: the question is refused in the page; loaded again, the page says
    // so before anyone asks
    await page.goto('/chat', { waitUntil: 'networkidle' })
    const off = await api('/admin/rag-config', {
      method: 'PATCH',
      cookie: cookies.admin,
      body: { chatEnabled: false },
    })
    expect(off.status).toBe(200)
    try {
      await box.fill('Is chat on?')
      await askButton.click()
      const problem = page.getByTestId('chat-problem')
      await problem.waitFor({ timeout: 15_000 })
      expect(await problem.getAttribute('data-code')).toBe('rag_not_ready')
      expect(await problem.innerText()).toContain(chatEn['chat.error.notReady'])
      expect(await box.inputValue()).toBe('Is chat on?')
      await page.reload({ waitUntil: 'networkidle' })
      expect(await page.getByTestId('chat-unavailable').getAttribute('data-reason')).toBe('chat_off')
      expect(await askButton.isDisabled()).toBe(true)
    } finally {
      const on = await api('/admin/rag-config', {
        method: 'PATCH',
        cookie: cookies.admin,
        body: { chatEnabled: true },
      })
      expect(on.status).toBe(200)
    }

    // the chat model is gone from the provider: its call fails (404), after the question was stored
    provider.models = provider.models.filter((m) => m !== STAND_IN_CHAT_MODEL)
    try {
      await page.goto('/chat', { waitUntil: 'networkidle' })
      await box.fill('Who closes the Settlement Ledger?')
      await askButton.click()
      await page.waitForURL(/\/chat\/[0-9a-f-]{36}$/, { timeout: 15_000 })
      const problem = page.getByTestId('chat-problem')
      await problem.waitFor({ timeout: 15_000 })
      expect(await problem.getAttribute('data-code')).toBe('rag_provider_error')
      await page.locator('[data-testid="chat-answer"][data-state="failed"]').waitFor()
      expect(await page.getByTestId('chat-question').last().innerText()).toContain(
        'Who closes the Settlement Ledger?',
      )
      expect(await box.inputValue()).toBe('Who closes the Settlement Ledger?')
    } finally {
      provider.models.push(STAND_IN_CHAT_MODEL)
    }
    // refused requests show in the console as failed loads; nothing else may
    expect(errors.filter((e) => !e.startsWith('Failed to load resource'))).toEqual([])
    await context.close()
  })

  it('without JavaScript: the question box posts, the conversation shows the whole answer and its link', async () => {
    const context = await contextFor(cookies.viewer, false)
    const page = await context.newPage()
    await page.goto('/')
    await page.getByLabel(chatEn['chat.home.label']).fill('What is Settlement Ledger?')
    await page.getByRole('button', { name: chatEn['chat.home.submit'], exact: true }).click()
    await page.waitForURL(/\/chat\/[0-9a-f-]{36}$/)
    const answer = page.locator('[data-testid="chat-answer"][data-state="done"]').last()
    expect(await answer.getByTestId('chat-answer-text').innerText()).toContain('[G1]')
    await answer.locator('a.chat-cite[data-label="G1"]').click()
    await page.waitForURL(new RegExp(`/terms/${slug}`))
    expect(await page.locator('h1').innerText()).toContain('Settlement Ledger')
    await context.close()
  })
})
