import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { aiProviderEn, aiProviderKo } from '#app/lib/messages/ai-provider.ts'
import { searchEn } from '#app/lib/messages/search.ts'
import * as aiProviderPage from '#app/routes/admin.ai-provider.tsx'
import { em } from '#db/orm.ts'
import { createUser, type TestUser } from '#tests/factories.ts'
import { dispatch } from '#tests/http.ts'
import { usePageServer } from '#tests/page-server.ts'
import { STAND_IN_CHAT_MODEL, startStandIn, type StandIn } from '#tests/provider-stand-in.ts'
import { useTestDb } from '#tests/setup/db.ts'

useTestDb()

/**
 * The AI provider page (`/admin/ai-provider`, issue 29) over real HTTP, as a browser without JavaScript uses it
 * (tests/page-server): who may open it, saving with a flash message, write-only secrets (stored encrypted, kept,
 * removed, never in a page, never echoed after a refused save), problems at their fields, the model picker
 * filled from the provider's list, the connection test and its failure class, English and Korean.
 */

const pages = usePageServer({
  'routes/admin.ai-provider': { path: 'admin/ai-provider', module: aiProviderPage },
})

let admin: TestUser
let editor: TestUser
let provider: StandIn
const KEY = 'sk-page-LLM-KEY-51c2'
const HEADER_VALUE = 'tenant-LLM-SECRET-77'
const PAGE = '/admin/ai-provider'

type Fields = Record<string, string>

/** The form as a browser without JavaScript sends it: the settings plus `overrides`. */
function form(overrides: Fields = {}): Fields {
  return {
    intent: 'save',
    provider: 'alpha_compatible',
    baseUrl: provider.url,
    llmModel: STAND_IN_CHAT_MODEL,
    llmApiKey: '',
    temperature: '0.3',
    maxTokens: '800',
    ...overrides,
  }
}

const post = (fields: Fields, headers = admin.sessionHeaders) => pages.post(PAGE, fields, headers)

/** A save as a browser without JavaScript makes it: the redirect followed, with the flash cookie it set. */
async function savedPage(fields: Fields) {
  const res = await post(fields)
  expect(res.status, textOf(res.html)).toBe(302)
  expect(res.location).toBe(PAGE)
  const flash = res.headers
    .getSetCookie()
    .map((line) => line.split(';')[0])
    .join('; ')
  return pages.get(res.location!, { cookie: `${admin.sessionHeaders.cookie}; ${flash}` })
}

const textOf = (html: string) =>
  html
    .replace(/<script[\s\S]*?<\/script>/g, '')
    .replace(/<[^>]+>/g, ' ')
    .replace(/&amp;/g, '&')
    .replace(/&#x27;/g, "'")
    .replace(/&quot;/g, '"')
    .replace(/\s+/g, ' ')

/** The page's HTML without its hydration data (which carries the same values again as JSON). */
const bodyOf = (html: string) => html.replace(/<script[\s\S]*?<\/script>/g, '')

async function stored() {
  const [row] = await em().execute<
    { api_key: string | null; headers: unknown; model: string; temperature: number; max_tokens: number }[]
  >('select api_key, headers, model, temperature, max_tokens from ai_provider_config')
  return row!
}

beforeAll(async () => {
  admin = await createUser({ role: 'admin' })
  editor = await createUser({ role: 'editor' })
  provider = await startStandIn()
})
afterAll(async () => {
  await provider.close()
})
beforeEach(() => {
  provider.requests.length = 0
})

describe('who may open the page', () => {
  it('no session → login; an editor → 403; an admin → the page, linked from the admin navigation', async () => {
    const anonymous = await pages.get(PAGE)
    expect(anonymous.status).toBe(302)
    expect(anonymous.location).toBe(`/login?redirectTo=${encodeURIComponent(PAGE)}`)
    expect((await pages.get(PAGE, editor.sessionHeaders)).status).toBe(403)
    const res = await pages.get(PAGE, admin.sessionHeaders)
    expect(res.status).toBe(200)
    expect(res.html).toMatch(/<h1>AI provider<\/h1>/)
    expect(res.html).toMatch(/<a\b[^>]*href="\/admin\/ai-provider"[^>]*>AI provider<\/a>/)
    expect(textOf(res.html)).toContain(aiProviderEn['aiProvider.stateNotConfigured'])
    const editorNav = await pages.get('/admin/ai-provider', editor.sessionHeaders)
    expect(editorNav.html).not.toContain('href="/admin/ai-provider"')
  })

  it('the form refuses an editor, a visitor and a foreign origin', async () => {
    const before = await stored()
    expect((await post(form(), editor.sessionHeaders)).status).toBe(403)
    expect((await pages.post(PAGE, form())).status).toBe(302)
    const foreign = await post(form(), { ...admin.sessionHeaders, origin: 'https://evil.example' })
    expect(foreign.status).toBe(403)
    expect(await stored()).toEqual(before)
  })

  it('in Korean', async () => {
    const res = await pages.get(PAGE, {
      ...admin.sessionHeaders,
      cookie: `${admin.sessionHeaders.cookie}; lang=ko`,
    })
    expect(res.status).toBe(200)
    expect(res.html).toContain(`<h1>${aiProviderKo['aiProvider.title']}</h1>`)
    expect(textOf(res.html)).toContain(aiProviderKo['aiProvider.stateNotConfigured'])
  })
})

describe('/admin/ai-provider', () => {
  it('saves every field; the key and header values are stored encrypted and never appear in a page', async () => {
    const res = await savedPage(
      form({ llmApiKey: KEY, 'llmHeaders.0.name': 'X-Tenant', 'llmHeaders.0.value': HEADER_VALUE }),
    )
    expect(res.status).toBe(200)
    expect(res.html).toMatch(/class="flash flash-success" role="status">AI provider settings saved\./)
    const row = await stored()
    expect(row).toMatchObject({ model: STAND_IN_CHAT_MODEL, max_tokens: 800 })
    expect(Number(row.temperature)).toBe(0.3)
    expect(row.api_key).toMatch(/^v1:/)
    expect(JSON.stringify(row)).not.toContain(KEY)
    expect(JSON.stringify(row)).not.toContain(HEADER_VALUE)
    const page = await pages.get(PAGE, admin.sessionHeaders)
    for (const html of [res.html, page.html]) {
      expect(html).not.toContain(KEY)
      expect(html).not.toContain(HEADER_VALUE)
    }
    expect(page.html).toMatch(/data-testid="llm-key-state"[^>]*>configured</)
    expect(page.html).toContain('<code>X-Tenant</code>')
    expect(textOf(page.html)).toContain(aiProviderEn['aiProvider.stateConfigured'])
    expect(bodyOf(page.html)).toMatch(/name="temperature"[^>]*value="0.3"/)
  })

  it('an empty key and header value keep the stored ones; "remove" deletes them', async () => {
    const before = await stored()
    const keep = form({
      'llmHeaders.0.name': 'X-Tenant',
      'llmHeaders.0.stored': '1',
      'llmHeaders.0.value': '',
      'llmHeaders.1.name': '',
      'llmHeaders.1.value': '',
    })
    expect((await post(keep)).status).toBe(302)
    expect(await stored()).toMatchObject({ api_key: before.api_key, headers: before.headers })
    const removed = await savedPage({ ...keep, llmApiKeyRemove: 'on', 'llmHeaders.0.remove': 'on' })
    expect(await stored()).toMatchObject({ api_key: null, headers: [] })
    expect(removed.html).toMatch(/data-testid="llm-key-state"[^>]*>not configured</)
    expect((await post(form({ llmApiKey: KEY }))).status).toBe(302)
  })

  it('shows each problem at its field, keeps the submitted values and never echoes a typed secret', async () => {
    const before = await stored()
    const res = await post(
      form({
        baseUrl: 'ftp://models.example',
        llmApiKey: 'typed-KEY-never-shown',
        temperature: '3',
        maxTokens: '0',
        'llmHeaders.0.name': 'Bad Header',
        'llmHeaders.0.value': 'typed-VALUE-never-shown',
      }),
    )
    expect(res.status).toBe(400)
    const body = bodyOf(res.html)
    expect(body).toMatch(
      /id="field-baseUrl-error"[^>]*>Enter a web address starting with http:\/\/ or https:\/\/\./,
    )
    expect(body).toMatch(/id="field-temperature-error"/)
    expect(body).toMatch(/id="field-maxTokens-error"/)
    expect(textOf(body)).toContain('Use only letters, digits and - _ . in a header name.')
    expect(body).toContain('value="ftp://models.example"')
    expect(body).toContain('value="Bad Header"')
    expect(res.html).not.toContain('typed-KEY-never-shown')
    expect(res.html).not.toContain('typed-VALUE-never-shown')
    expect(textOf(body)).toContain(searchEn['searchSettings.retypeSecrets'])
    expect(body).toMatch(
      /<div class="settings-action" id="save-settings">[\s\S]*?role="alert"[\s\S]*?value="save"/,
    )
    expect(body).toContain('action="/admin/ai-provider#save-settings"')
    expect(await stored()).toEqual(before)
  })

  it('"load models" fills the picker with the chat models (the stored key to the stored address), saving nothing', async () => {
    const before = await stored()
    const res = await post(form({ intent: 'models-llm', llmModel: 'typed-model', maxTokens: '999' }))
    expect(res.status, textOf(res.html)).toBe(200)
    const body = bodyOf(res.html)
    const select = /<select id="llm-model" name="llmModel">([\s\S]*?)<\/select>/.exec(body)?.[1]
    expect(select).toBeDefined()
    expect([...select!.matchAll(/<option value="([^"]*)"/g)].map((m) => m[1])).toEqual([
      'chat-model',
      STAND_IN_CHAT_MODEL,
      '',
    ])
    expect(body).toMatch(/name="llmModelOther"[^>]*value="typed-model"/)
    expect(body).toContain('value="999"')
    expect(provider.requests.map((r) => `${r.method} ${r.path}`)).toEqual(['GET /v1/models'])
    expect(provider.requests[0]!.headers.authorization).toBe(`Bearer ${KEY}`)
    expect(await stored()).toEqual(before)
    // picking a listed model and saving stores it
    const picked = await post(form({ llmModel: 'chat-model', llmKnownModel: 'chat-model' }))
    expect(picked.status).toBe(302)
    expect((await stored()).model).toBe('chat-model')
    expect((await post(form())).status).toBe(302)
    // a refused list is shown at its button
    provider.failNext(401)
    const failed = await post(form({ intent: 'models-llm' }))
    expect(failed.status).toBe(200) // the page answers; the failure is shown at the button
    expect(bodyOf(failed.html)).toMatch(/<div class="settings-action" id="llm-models">[\s\S]*?role="alert"/)
    expect(failed.html).not.toContain('secret echo')
  })

  it('the connection test shows the model and time, or the failure class of a failed call', async () => {
    let res = await post({ intent: 'test' })
    expect(res.status).toBe(200)
    expect(bodyOf(res.html)).toMatch(/data-testid="test-result" data-ok="true"/)
    expect(textOf(res.html)).toMatch(
      new RegExp(`The connection works: ${STAND_IN_CHAT_MODEL} answered in \\d+ ms\\.`),
    )
    expect(bodyOf(res.html)).toContain('action="/admin/ai-provider#test-connection"')
    provider.failNext(429)
    res = await post({ intent: 'test' })
    expect(bodyOf(res.html)).toMatch(/data-testid="test-result" data-ok="false"/)
    expect(bodyOf(res.html)).toMatch(
      new RegExp(
        `data-testid="failure-class">${searchEn['ai.failure.rate_limited'].replace(/[()]/g, '\\$&')}<`,
      ),
    )
    expect(res.html).not.toContain('secret echo')
    expect(res.html).not.toContain(KEY)
  })

  it('a changed base URL clears the stored secrets and the flash says to enter them again', async () => {
    const other = await startStandIn()
    try {
      const res = await savedPage(form({ baseUrl: other.url }))
      expect(res.html).toMatch(/class="flash flash-info"/)
      expect(textOf(res.html)).toContain(aiProviderEn['aiProvider.savedSecretsCleared'])
      const read = (await (await dispatch(PAGE, { headers: admin.sessionHeaders })).json()) as {
        hasApiKey: boolean
      }
      expect(read.hasApiKey).toBe(false)
    } finally {
      await other.close()
    }
  })
})
