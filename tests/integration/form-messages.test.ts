import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { fieldsEn, fieldsKo } from '#app/lib/messages/fields.ts'
import { parseForm } from '#app/pages/forms.server.ts'
import * as adminSettingsPage from '#app/routes/admin.settings.tsx'
import * as searchSettingsPage from '#app/routes/admin.search-settings.tsx'
import * as importPage from '#app/routes/import._index.tsx'
import * as loginPage from '#app/routes/login.tsx'
import * as registerPage from '#app/routes/register.tsx'
import * as newTermPage from '#app/routes/terms.new.tsx'
import { ProposeRelationSchema } from '#app/schemas/relations.ts'
import { withPageLang } from '#app/lib/request-lang.server.ts'
import { CALL_LIMITS, setCallTimeout } from '#app/services/ai/provider.server.ts'
import { createUser, TEST_ORIGIN, type TestUser } from '#tests/factories.ts'
import { dispatch } from '#tests/http.ts'
import { pageText, usePageServer } from '#tests/page-server.ts'
import { startStandIn, type StandIn } from '#tests/provider-stand-in.ts'
import { useTestDb } from '#tests/setup/db.ts'

useTestDb()

/**
 * Refused forms in the reader's words (issue 27 item 6), over real HTTP without JavaScript: each refused field
 * shows what is wrong and what to do inside its label, tied to its input by aria-describedby; the form-level
 * message names the fields; both in English and, with the `lang=ko` cookie, in Korean. Never zod's developer
 * wording ("Invalid UUID", "Invalid option: expected one of …") nor a failure class's key; the API keeps its
 * English envelope unchanged.
 */

const pages = usePageServer({
  'routes/register': { path: 'register', module: registerPage },
  'routes/login': { path: 'login', module: loginPage },
  'routes/terms.new': { path: 'terms/new', module: newTermPage },
  'routes/admin.settings': { path: 'admin/settings', module: adminSettingsPage },
  'routes/admin.search-settings': { path: 'admin/search-settings', module: searchSettingsPage },
  'routes/import._index': { path: 'import', module: importPage },
})

let admin: TestUser
let editor: TestUser
let provider: StandIn
const timeoutBefore = CALL_LIMITS.timeoutMs

beforeAll(async () => {
  admin = await createUser({ role: 'admin' })
  editor = await createUser({ role: 'editor' })
  provider = await startStandIn()
})
afterAll(async () => {
  setCallTimeout(timeoutBefore)
  await provider.close()
})
beforeEach(() => {
  provider.delayMs = 0
})

/** A session's headers with the reader's language chosen (the `lang` cookie the language switch writes). */
const inKorean = (session: Record<string, string> = {}) => ({
  ...session,
  cookie: [session.cookie, 'lang=ko'].filter(Boolean).join('; '),
})

/** The page's HTML without its hydration data (which carries the same messages again as JSON). */
const bodyOf = (html: string) => html.replace(/<script[\s\S]*?<\/script>/g, '')

const unescape = (text: string) =>
  text
    .replace(/&#x27;/g, "'")
    .replace(/&quot;/g, '"')
    .replace(/&amp;/g, '&')
    .replace(/&lt;/g, '<')

/**
 * The message shown for the input `id`: the error span must sit inside the same label as the input, and the
 * input must point at it with aria-describedby (and say aria-invalid).
 */
function messageAt(html: string, id: string): string {
  const body = bodyOf(html)
  const labels = body.match(/<label\b[\s\S]*?<\/label>/g) ?? []
  const label = labels.find((chunk) => chunk.includes(`id="${id}"`))
  expect(label, `a label holding #${id}`).toBeDefined()
  const input = label!.match(new RegExp(`<(input|select|textarea)\\b[^>]*\\bid="${id}"[^>]*>`))?.[0]
  expect(input, `the input #${id}`).toBeDefined()
  expect(input).toContain(`aria-describedby="${id}-error"`)
  expect(input).toContain('aria-invalid="true"')
  const span = label!.match(new RegExp(`<span id="${id}-error" class="error">([\\s\\S]*?)</span>`))
  expect(span, `the message of #${id}`).not.toBeNull()
  return unescape(span![1]!)
}

/** The form-level message (the alert at the top of the form). */
function formMessage(html: string): string {
  const alert = bodyOf(html).match(/<p role="alert" class="error"[^>]*>([\s\S]*?)<\/p>/)
  expect(alert, 'a form-level message').not.toBeNull()
  return unescape(alert![1]!)
}

/** Developer wording that must never reach a page. */
function expectNoDeveloperWords(html: string) {
  const text = pageText(bodyOf(html))
  for (const words of [
    'Invalid UUID',
    'Invalid input',
    'Invalid option',
    'expected one of',
    'The request is not valid',
    '(provider_unavailable)',
    'provider_unavailable',
    '(timeout)',
  ]) {
    expect(text).not.toContain(words)
  }
}

describe('a refused form names the field and what to do, next to it', () => {
  it('registration: the email and password say what to enter; the form names both (English)', async () => {
    const res = await pages.post('/register', { email: 'not-an-email', name: '', password: 'short' })
    expect(res.status).toBe(400)
    expect(messageAt(res.html, 'field-email')).toBe(fieldsEn['fieldError.email'])
    expect(messageAt(res.html, 'field-password')).toBe('Enter at least 8 characters.')
    expect(formMessage(res.html)).toBe('Check the marked fields: Email, Password.')
    // the name was accepted: no message, no aria-invalid
    expect(bodyOf(res.html)).not.toContain('field-name-error')
    expectNoDeveloperWords(res.html)
  })

  it('registration in Korean: the same messages in Korean, the labels of the fields named in Korean', async () => {
    const res = await pages.post(
      '/register',
      { email: 'not-an-email', name: '', password: 'short' },
      inKorean(),
    )
    expect(res.status).toBe(400)
    expect(messageAt(res.html, 'field-email')).toBe(fieldsKo['fieldError.email'])
    expect(messageAt(res.html, 'field-password')).toBe('8자 이상 입력하세요.')
    expect(formMessage(res.html)).toBe('표시된 항목을 확인하세요: 이메일, 비밀번호.')
    expectNoDeveloperWords(res.html)
  })

  it('the term editor: a missing name, a malformed address and an unknown status, each at its field', async () => {
    const fields = { intent: 'save', name: '  ', slug: 'Not A Slug', status: 'shiny', definition: 'x' }
    const en = await pages.post('/terms/new', fields, editor.sessionHeaders)
    expect(en.status).toBe(400)
    expect(messageAt(en.html, 'term-name')).toBe('Fill in this field.')
    expect(messageAt(en.html, 'term-slug')).toBe(fieldsEn['fieldError.slugFormat'])
    // an enum names its options by their labels, not their keys
    expect(messageAt(en.html, 'term-status')).toBe('Choose one of: Active, Needs completion, Deprecated.')
    const summary = formMessage(en.html)
    expect(summary).toMatch(/^Check the marked fields: /)
    for (const label of ['Name', 'Address (slug)', 'Status']) expect(summary).toContain(label)
    expectNoDeveloperWords(en.html)

    const ko = await pages.post('/terms/new', fields, inKorean(editor.sessionHeaders))
    expect(ko.status).toBe(400)
    expect(messageAt(ko.html, 'term-name')).toBe('이 항목을 입력하세요.')
    expect(messageAt(ko.html, 'term-slug')).toBe(fieldsKo['fieldError.slugFormat'])
    expect(messageAt(ko.html, 'term-status')).toBe('다음 중 하나를 고르세요: 사용 중, 보완 필요, 폐기.')
    const koSummary = formMessage(ko.html)
    expect(koSummary).toMatch(/^표시된 항목을 확인하세요: /)
    for (const label of ['이름', '주소(슬러그)', '상태']) expect(koSummary).toContain(label)
    expectNoDeveloperWords(ko.html)
  })

  it('a select shows its own message with the options’ labels (service settings)', async () => {
    const en = await pages.post('/admin/settings', { wrongCaseSeverity: 'loud' }, admin.sessionHeaders)
    expect(en.status).toBe(400)
    expect(messageAt(en.html, 'wrong-case-severity')).toBe('Choose one of: error, warning, info, correct.')
    expect(formMessage(en.html)).toBe('Check the marked fields: Wrong letter case.')
    const ko = await pages.post(
      '/admin/settings',
      { wrongCaseSeverity: 'loud' },
      inKorean(admin.sessionHeaders),
    )
    expect(messageAt(ko.html, 'wrong-case-severity')).toBe(
      '다음 중 하나를 고르세요: 오류, 경고, 정보, 올바름.',
    )
    expectNoDeveloperWords(ko.html)
  })

  it('the import: an empty upload is named at the file field', async () => {
    for (const [session, message] of [
      [editor.sessionHeaders, fieldsEn['fieldError.importEmpty']],
      [inKorean(editor.sessionHeaders), fieldsKo['fieldError.importEmpty']],
    ] as const) {
      const res = await pages.post('/import', { intent: 'dry-run', content: '  ', format: 'auto' }, session)
      expect(res.status).toBe(400)
      expect(messageAt(res.html, 'import-file')).toBe(message)
      expectNoDeveloperWords(res.html)
    }
  })

  it('sign-in stays generic: a malformed email and a wrong password get the same words, no field marked', async () => {
    for (const [session, words] of [
      [{}, 'The email or password is incorrect.'],
      [inKorean(), '이메일 또는 비밀번호가 올바르지 않습니다.'],
    ] as const) {
      const malformed = await pages.post('/login', { email: '', password: '' }, session)
      const wrong = await pages.post(
        '/login',
        { email: admin.user.email, password: 'not the password' },
        session,
      )
      for (const res of [malformed, wrong]) {
        expect(res.status).toBe(401)
        expect(formMessage(res.html)).toBe(words)
        expect(bodyOf(res.html)).not.toContain('aria-invalid')
      }
      expect(bodyOf(malformed.html)).toBe(bodyOf(wrong.html))
    }
  })
})

describe('a picked item never says "Invalid UUID"', () => {
  const relation = {
    sourceTermId: 'API Gateway',
    targetTermId: 'Load balancer',
    relationType: 'is_a',
    evidenceMd: 'e',
  }

  it('a term field typed as a name says to choose a term from the list, in the page’s language', () => {
    const en = parseForm(ProposeRelationSchema, relation)
    expect(en.ok).toBe(false)
    if (en.ok) return
    expect(en.fieldErrors).toMatchObject({
      sourceTermId: 'Choose a term from the list.',
      targetTermId: 'Choose a term from the list.',
    })
    expect(en.formError).toBe('Check the marked fields: Source term, Target term.')

    const ko = withPageLang('ko', () => parseForm(ProposeRelationSchema, relation))
    if (ko.ok) throw new Error('accepted')
    expect(ko.fieldErrors?.sourceTermId).toBe('목록에서 용어를 고르세요.')
    expect(ko.formError).toBe('표시된 항목을 확인하세요: 출발 용어, 대상 용어.')
  })

  it('the API keeps its English envelope, whatever the language asked for', async () => {
    const res = await fetch(`${pages.url()}/api/v1/relations`, {
      method: 'POST',
      headers: {
        ...editor.sessionHeaders,
        cookie: `${editor.sessionHeaders.cookie}; lang=ko`,
        'accept-language': 'ko',
        'content-type': 'application/json',
      },
      body: JSON.stringify(relation),
    })
    expect(res.status).toBe(400)
    const body = (await res.json()) as {
      error: { code: string; message: string; details: { problems: { path: string; message: string }[] } }
    }
    expect(body.error.code).toBe('validation_failed')
    expect(body.error.message).toBe('The request is not valid.')
    expect(body.error.details.problems).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ path: 'sourceTermId', message: 'Invalid UUID', code: 'invalid_format' }),
      ]),
    )
  })
})

describe('a failure of the search provider says what failed, in words', () => {
  async function configureSearch() {
    const res = await dispatch('/admin/rag-config', {
      method: 'PATCH',
      headers: { ...admin.sessionHeaders, origin: TEST_ORIGIN },
      body: {
        enabled: true,
        embeddingProvider: 'alpha_compatible',
        embeddingBaseUrl: provider.url,
        embeddingModel: 'text-embed-small',
      },
    })
    expect(res.status, await res.clone().text()).toBe(200)
  }

  /** The connection test's answer, as the settings page shows it. */
  const testConnection = (session: Record<string, string>) =>
    pages.post('/admin/search-settings', { intent: 'test' }, session)

  it('a provider answering 503: unreachable or unreadable, and what to check', async () => {
    await configureSearch()
    provider.failNext(503)
    const en = await testConnection(admin.sessionHeaders)
    expect(en.status).toBe(200)
    expect(pageText(bodyOf(en.html))).toContain(
      `${fieldsEn['failure.provider_unavailable']} ${fieldsEn['failure.todo.provider_unavailable']}`,
    )
    expectNoDeveloperWords(en.html)

    provider.failNext(503)
    const ko = await testConnection(inKorean(admin.sessionHeaders))
    expect(pageText(bodyOf(ko.html))).toContain(
      `${fieldsKo['failure.provider_unavailable']} ${fieldsKo['failure.todo.provider_unavailable']}`,
    )
    expectNoDeveloperWords(ko.html)
  })

  it('a provider that does not answer: timed out after the limit, in seconds', async () => {
    await configureSearch()
    setCallTimeout(200)
    provider.delayMs = 2_000
    try {
      const en = await testConnection(admin.sessionHeaders)
      expect(pageText(bodyOf(en.html))).toContain(
        'The search provider did not answer within 0.2 seconds. Check its address and that it is running',
      )
      expectNoDeveloperWords(en.html)
      const ko = await testConnection(inKorean(admin.sessionHeaders))
      expect(pageText(bodyOf(ko.html))).toContain('검색 공급자가 0.2초 안에 응답하지 않았습니다.')
    } finally {
      setCallTimeout(timeoutBefore)
      provider.delayMs = 0
    }
  })
})
