import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { parseConfig, setConfig } from '#app/lib/config.server.ts'
import { chatEn, chatKo } from '#app/lib/messages/chat.ts'
import * as homePage from '#app/routes/_index.tsx'
import * as chatPage from '#app/routes/chat.($id).tsx'
import { RETRY } from '#pipeline/flow.ts'
import { createTerm, createUser, type TestUser } from '#tests/factories.ts'
import { dispatch } from '#tests/http.ts'
import { drainIndexQueue } from '#tests/index-queue.ts'
import { elementsWith, elementWith, pageText, usePageServer, type PageAnswer } from '#tests/page-server.ts'
import { startStandIn, STAND_IN_CHAT_MODEL, type StandIn } from '#tests/provider-stand-in.ts'
import { useTestDb } from '#tests/setup/db.ts'
import { testEnv } from '#tests/setup/test-env.ts'

useTestDb()

/**
 * The chat pages (issue 29, "Pages") over real HTTP, as a browser without JavaScript uses them, with the real
 * chat service and the provider stand-in: the home page's question box posts to `/chat`; a question runs the
 * chat and redirects to the conversation showing the whole answer, its `[G1]` labels linked to the citation
 * chips, meeting evidence badged as a record of past discussion; chat switched off, a refused question and the
 * provider failing are messages in the page (the question kept); another user's conversation is the 404 page,
 * for reading, asking in it and deleting it; deleting asks first and confirms after.
 */

const pages = usePageServer({
  'routes/_index': { path: '', module: homePage },
  'routes/chat.($id)': { path: 'chat/:id?', module: chatPage },
})

let admin: TestUser
let viewer: TestUser
let other: TestUser
let provider: StandIn

/** The page's own content (the chat section), without the site header and the hydration data. */
function chatOf(html: string): string {
  const start = html.indexOf('<section class="chat">')
  expect(start, 'the chat section').toBeGreaterThan(-1)
  return html.slice(start, html.indexOf('</main>', start))
}

/** The part of the page inside the first element with this test id (from `from`). */
const partOf = (html: string, testId: string, from = 0) => elementWith(html, `data-testid="${testId}"`, from)

/** Every part of the page with this test id. */
const partsOf = (html: string, testId: string) => elementsWith(html, `data-testid="${testId}"`)

const decode = (s: string) => s.replace(/&amp;/g, '&')

/** The text as read: links and React's text separators dropped, so `[<a>G1</a>]` reads `[G1]`. */
const readOf = (html: string) => pageText(html.replace(/<!-- -->|<\/?a\b[^>]*>/g, ''))

/** Asks `message` without JavaScript (in the conversation `id`, or a new one). */
const ask = (user: TestUser, message: string, id?: string) =>
  pages.post(id ? `/chat/${id}` : '/chat', { message }, user.sessionHeaders)

/** The conversation id a redirect after a question leads to. */
function conversationOf(res: PageAnswer): string {
  expect(res.status, res.html.slice(0, 500)).toBe(302)
  const match = /^\/chat\/([0-9a-f-]{36})$/.exec(res.location ?? '')
  expect(match, res.location ?? '').not.toBeNull()
  return match![1]!
}

async function patch(path: string, body: unknown) {
  const res = await dispatch(path, { method: 'PATCH', headers: admin.sessionHeaders, body })
  expect(res.status, await res.clone().text()).toBe(200)
}

async function created(path: string, body: unknown): Promise<{ id: string; slug: string }> {
  const res = await dispatch(path, { method: 'POST', headers: admin.sessionHeaders, body })
  expect(res.status, await res.clone().text()).toBe(201)
  return (await res.json()) as { id: string; slug: string }
}

beforeAll(async () => {
  admin = await createUser({ role: 'admin' })
  viewer = await createUser({ role: 'viewer' })
  other = await createUser({ role: 'viewer' })
  provider = await startStandIn()
  RETRY.backoffMs = 5
})

afterAll(async () => {
  RETRY.backoffMs = 5_000
  await provider.close()
})

describe('before chat is switched on', () => {
  it('sends a visitor to sign in', async () => {
    const res = await pages.get('/chat')
    expect(res.status).toBe(302)
    expect(res.location).toBe('/login?redirectTo=%2Fchat')
  })

  it('the home page has the question box: a form posting the question to /chat', async () => {
    const res = await pages.get('/', viewer.sessionHeaders)
    expect(res.status).toBe(200)
    const box = partOf(res.html, 'home-ask')
    expect(box).toMatch(/<form method="post" action="\/chat"/)
    expect(box).toContain('name="message"')
    expect(pageText(box)).toContain(chatEn['chat.home.label'])
  })

  it('the chat page shows the empty list, the form, its title in English and Korean', async () => {
    const res = await pages.get('/chat', viewer.sessionHeaders)
    expect(res.status).toBe(200)
    const chat = chatOf(res.html)
    expect(chat).toContain(`<h1>${chatEn['chat.title']}</h1>`)
    expect(pageText(chat)).toContain(chatEn['chat.noConversations'])
    expect(chat).toMatch(/<form method="post" action="\/chat"/)
    expect(res.html).toContain(`<title>${chatEn['chat.title']} · Glossary</title>`)
    const ko = await pages.get('/chat', { cookie: `${viewer.sessionHeaders.cookie}; lang=ko` })
    expect(chatOf(ko.html)).toContain(`<h1>${chatKo['chat.title']}</h1>`)
    expect(pageText(ko.html)).toContain(chatKo['chat.noConversations'])
  })

  it('says before anyone asks that chat is off, with the way to the switch for an administrator', async () => {
    const res = await pages.get('/chat', viewer.sessionHeaders)
    const notice = partOf(res.html, 'chat-unavailable')
    expect(notice).toContain('data-reason="chat_off"')
    expect(pageText(notice)).toContain(chatEn['chat.unavailable.chat_off'])
    expect(notice).not.toContain('href=')
    expect(chatOf(res.html)).toMatch(/<button type="submit" disabled="">/)
    const forAdmin = partOf((await pages.get('/chat', admin.sessionHeaders)).html, 'chat-unavailable')
    expect(forAdmin).toContain('href="/admin/search-settings"')
    const ko = await pages.get('/chat', { cookie: `${viewer.sessionHeaders.cookie}; lang=ko` })
    expect(pageText(partOf(ko.html, 'chat-unavailable'))).toContain(chatKo['chat.unavailable.chat_off'])
  })

  it('switched on without an AI provider: says that instead, an administrator led to the provider settings', async () => {
    await patch('/admin/rag-config', { chatEnabled: true })
    try {
      const notice = partOf((await pages.get('/chat', admin.sessionHeaders)).html, 'chat-unavailable')
      expect(notice).toContain('data-reason="no_llm"')
      expect(pageText(notice)).toContain(chatEn['chat.unavailable.no_llm'])
      expect(notice).toContain('href="/admin/ai-provider"')
    } finally {
      await patch('/admin/rag-config', { chatEnabled: false })
    }
  })

  it('a question while chat is off: the page says so and keeps the question (no stack trace)', async () => {
    const res = await ask(viewer, 'What is a ledger?')
    expect(res.status).toBe(200)
    const problem = partOf(res.html, 'chat-problem')
    expect(problem).toContain('data-code="rag_not_ready"')
    expect(pageText(problem)).toContain(chatEn['chat.error.notReady'])
    expect(chatOf(res.html)).toMatch(/<textarea[^>]*>What is a ledger\?<\/textarea>/)
  })

  it('an empty or too long question is refused at its field', async () => {
    const empty = await ask(viewer, '   ')
    expect(empty.status).toBe(400)
    expect(empty.html).toContain('id="chat-message-error"')
    expect(empty.html).toMatch(/<textarea[^>]*aria-invalid="true"/)
    const long = await ask(viewer, 'x'.repeat(4001))
    expect(long.status).toBe(400)
    expect(long.html).toContain('id="chat-message-error"')
  })

  it('an address that is no conversation is the 404 page', async () => {
    expect((await pages.get('/chat/not-an-id', viewer.sessionHeaders)).status).toBe(404)
    expect((await pages.get(`/chat/${crypto.randomUUID()}`, viewer.sessionHeaders)).status).toBe(404)
  })
})

describe('with chat on (hybrid search over the stand-in, its chat model)', () => {
  let conversation = ''
  let termSlug = ''

  beforeAll(async () => {
    termSlug = (
      await createTerm({
        name: 'Settlement Ledger',
        definition: 'The book every account settles into at night.',
      })
    ).slug
    await created('/wiki', {
      title: 'Closing the settlement ledger',
      content: 'How the settlement ledger is closed every night by the batch.',
      status: 'published',
    })
    await created('/meetings', {
      title: 'Ledger naming review',
      meetingDate: '2024-03-05',
      team: 'finance',
      content: 'We discussed calling the settlement ledger the night book.',
    })
    await patch('/admin/rag-config', {
      enabled: true,
      chatEnabled: true,
      embeddingBaseUrl: provider.url,
      embeddingModel: 'text-embed-small',
    })
    await patch('/admin/ai-provider', { baseUrl: provider.url, model: STAND_IN_CHAT_MODEL })
    await drainIndexQueue()
  })

  it('a question runs the chat and redirects to the conversation with the whole answer', async () => {
    conversation = conversationOf(await ask(viewer, 'What is the settlement ledger?'))
    const res = await pages.get(`/chat/${conversation}`, viewer.sessionHeaders)
    expect(res.status).toBe(200)
    const chat = chatOf(res.html)
    expect(pageText(partOf(chat, 'chat-question'))).toContain('What is the settlement ledger?')
    const answer = partOf(chat, 'chat-answer')
    expect(answer).toContain('data-state="done"')
    // the stand-in cites every label of its prompt: a term, a wiki page and a meeting record were found
    expect(readOf(partOf(answer, 'chat-answer-text'))).toContain('Answer citing [G1] [W1] [M1].')
    expect(chat).not.toContain('data-testid="chat-unavailable"')
    // the conversation is listed, current
    expect(partOf(chat, 'chat-conversations')).toMatch(
      new RegExp(`<a aria-current="page"[^>]*href="/chat/${conversation}"`),
    )
  })

  it('the answer’s labels link to their citations; chips name the source, meetings are badged', async () => {
    const { html } = await pages.get(`/chat/${conversation}`, viewer.sessionHeaders)
    const answer = partOf(chatOf(html), 'chat-answer')
    const citations = partsOf(answer, 'chat-citation')
    expect(citations.length).toBeGreaterThan(0)
    const chips = citations.map((c) => ({
      type: /data-type="(\w+)"/.exec(c)![1],
      label: /<a [^>]*data-label="(\w+)"/.exec(c)![1],
      href: decode(/<a [^>]*href="([^"]+)"/.exec(c)![1]!),
      text: pageText(c),
    }))
    const term = chips.find((c) => c.label === 'G1')!
    expect(term.type).toBe('term')
    expect(term.href.startsWith(`/terms/${termSlug}`)).toBe(true)
    expect(term.text).toContain('Settlement Ledger')
    // every label in the text that has a citation is a link to the chip's address
    const text = partOf(answer, 'chat-answer-text')
    for (const [, href, label] of text.matchAll(
      /<a href="([^"]+)" class="chat-cite"[^>]*data-label="(\w+)"/g,
    )) {
      expect(decode(href!)).toBe(chips.find((c) => c.label === label)!.href)
    }
    expect(text).toContain('data-label="G1"')
    for (const chip of chips.filter((c) => c.type === 'meeting')) {
      expect(chip.label).toMatch(/^M\d+$/)
      expect(chip.text).toContain(chatEn['chat.badge.pastDiscussion'])
    }
    for (const chip of chips.filter((c) => c.type !== 'meeting')) {
      expect(chip.text).not.toContain(chatEn['chat.badge.pastDiscussion'])
    }
    expect(chips.map((c) => c.type).sort()).toEqual(['meeting', 'term', 'wiki'])
    // in Korean
    const ko = await pages.get(`/chat/${conversation}`, {
      cookie: `${viewer.sessionHeaders.cookie}; lang=ko`,
    })
    expect(pageText(ko.html)).toContain(chatKo['chat.badge.pastDiscussion'])
    expect(pageText(ko.html)).toContain(chatKo['chat.sources'])
  })

  it('a follow-up in the conversation adds its turns there', async () => {
    const res = await ask(viewer, 'And who closes it?', conversation)
    expect(conversationOf(res)).toBe(conversation)
    const { html } = await pages.get(`/chat/${conversation}`, viewer.sessionHeaders)
    expect(partsOf(chatOf(html), 'chat-question').map(pageText)).toEqual([
      expect.stringContaining('What is the settlement ledger?'),
      expect.stringContaining('And who closes it?'),
    ])
  })

  it('the answer is text: markup in it or in the question is shown, never run', async () => {
    provider.chatReply = 'See <img src=x onerror=alert(1)> and <script>alert(2)</script> [G1].'
    try {
      const id = conversationOf(await ask(viewer, 'Settlement ledger <b>bold</b>?'))
      const { html } = await pages.get(`/chat/${id}`, viewer.sessionHeaders)
      const chat = chatOf(html)
      expect(chat).not.toContain('<img src=x')
      expect(chat).not.toContain('<script>alert')
      expect(chat).not.toContain('<b>bold</b>')
      expect(chat).toContain('&lt;img src=x onerror=alert(1)&gt;')
      expect(chat).toContain('&lt;b&gt;bold&lt;/b&gt;')
    } finally {
      provider.chatReply = null
    }
  })

  it('keyword search only: the answer says vector search was unavailable', async () => {
    // the query's embedding fails (503, temporary): the chat falls back to names and keywords; its own LLM
    // call, the next request, is answered
    provider.failNext(503, 1)
    const id = conversationOf(await ask(viewer, 'What is Settlement Ledger?'))
    const { html } = await pages.get(`/chat/${id}`, viewer.sessionHeaders)
    const answer = partOf(chatOf(html), 'chat-answer')
    expect(pageText(answer)).toContain(chatEn['chat.keywordMode'])
    expect(answer).toContain('data-label="G1"')
  })

  it('the provider failing: back to the conversation, which keeps the question and offers it again', async () => {
    provider.models = provider.models.filter((m) => m !== STAND_IN_CHAT_MODEL) // the chat call answers 404
    let res: PageAnswer
    try {
      res = await ask(viewer, 'Who owns the settlement ledger?', conversation)
    } finally {
      provider.models.push(STAND_IN_CHAT_MODEL)
    }
    expect(res.status).toBe(302)
    expect(res.location).toBe(`/chat/${conversation}`)
    const flash = res.headers.get('set-cookie') ?? ''
    expect(flash).toContain('glossary_flash=')
    const page = await pages.get(`/chat/${conversation}`, {
      cookie: `${viewer.sessionHeaders.cookie}; ${flash.split(';')[0]}`,
    })
    // shown once: the same answer removes the flash cookie
    expect(page.headers.get('set-cookie')).toMatch(/glossary_flash=;/)
    const chat = chatOf(page.html)
    expect(pageText(page.html)).toContain(chatEn['chat.error.provider'])
    expect(partsOf(chat, 'chat-question').map(pageText).at(-1)).toContain('Who owns the settlement ledger?')
    expect(chat).toMatch(/<textarea[^>]*>Who owns the settlement ledger\?<\/textarea>/)
  })

  it('too many questions: the page says to wait, keeps the question and answers 429 with Retry-After', async () => {
    setConfig(parseConfig(testEnv({ GLOSSARY_RATE_CHAT_PER_MINUTE: '1' })))
    try {
      const hasty = await createUser()
      conversationOf(await ask(hasty, 'What is the settlement ledger?'))
      const res = await ask(hasty, 'And again?')
      expect(res.status).toBe(429)
      expect(Number(res.headers.get('retry-after'))).toBeGreaterThanOrEqual(1)
      const problem = partOf(res.html, 'chat-problem')
      expect(problem).toContain('data-code="rate_limited"')
      expect(pageText(problem)).toContain(chatEn['chat.error.rateLimited'])
      expect(chatOf(res.html)).toMatch(/<textarea[^>]*>And again\?<\/textarea>/)
    } finally {
      setConfig(parseConfig(testEnv()))
    }
  })

  it('is private: another user gets 404 for the page, a question in it and its deletion', async () => {
    expect((await pages.get(`/chat/${conversation}`, other.sessionHeaders)).status).toBe(404)
    expect((await ask(other, 'Mine now?', conversation)).status).toBe(404)
    const del = await pages.post(`/chat/${conversation}`, { intent: 'delete' }, other.sessionHeaders)
    expect(del.status).toBe(404)
    const list = chatOf((await pages.get('/chat', other.sessionHeaders)).html)
    expect(list).not.toContain(conversation)
    expect(pageText(list)).toContain(chatEn['chat.noConversations'])
    // still there for its owner
    expect((await pages.get(`/chat/${conversation}`, viewer.sessionHeaders)).status).toBe(200)
  })

  it('a form post from another site is refused', async () => {
    const res = await pages.post(
      '/chat',
      { message: 'Cross-site?' },
      { ...viewer.sessionHeaders, origin: 'https://evil.example' },
    )
    expect(res.status).toBe(403)
  })

  it('deleting asks first, then removes the conversation and confirms', async () => {
    const { html } = await pages.get(`/chat/${conversation}`, viewer.sessionHeaders)
    const confirm = /<details class="chat-delete">[\s\S]*?<\/details>/.exec(html)?.[0] ?? ''
    expect(confirm).toContain(`<summary>${chatEn['chat.delete']}</summary>`)
    expect(confirm).toContain('name="intent" value="delete"')
    expect(pageText(confirm)).toContain('This cannot be undone.')
    const res = await pages.post(`/chat/${conversation}`, { intent: 'delete' }, viewer.sessionHeaders)
    expect(res.status).toBe(302)
    expect(res.location).toBe('/chat')
    expect(res.headers.get('set-cookie')).toContain('glossary_flash=')
    expect((await pages.get(`/chat/${conversation}`, viewer.sessionHeaders)).status).toBe(404)
    expect(chatOf((await pages.get('/chat', viewer.sessionHeaders)).html)).not.toContain(conversation)
  })
})
