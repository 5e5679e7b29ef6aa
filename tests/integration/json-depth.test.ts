import { beforeAll, describe, expect, it } from 'vitest'
import { openApiDocument } from '#app/api/registry.server.ts'
import { MAX_JSON_DEPTH } from '#app/lib/json-depth.ts'
import * as importPage from '#app/routes/import._index.tsx'
import { em } from '#db/orm.ts'
import { createApiKey, createUser, TEST_ORIGIN, type TestUser } from '#tests/factories.ts'
import { useApiServer } from '#tests/http.ts'
import { usePageServer } from '#tests/page-server.ts'
import { useTestDb } from '#tests/setup/db.ts'

/**
 * Deeply nested JSON (issue 26, item 6): 5,000 levels answered 500 on every operation with a JSON body, because
 * the walks after the parse recurse. A body nested deeper than 64 levels is refused with 400 before anything
 * walks it, on public and authenticated operations alike and on the import page's JSON upload; 64 levels pass
 * the check and meet the operation's schema as usual.
 */

useTestDb()
const server = useApiServer()
const pages = usePageServer({ 'routes/import._index': { path: 'import', module: importPage } })

let editor: TestUser
let readKey: Record<string, string>

beforeAll(async () => {
  editor = await createUser({ role: 'editor' })
  readKey = await createApiKey(editor.user.id, ['read'])
})

const arrays = (n: number) => '['.repeat(n) + ']'.repeat(n)
const objects = (n: number) => '{"a":'.repeat(n) + '1' + '}'.repeat(n)
/** A valid body of `n` levels for operations whose bodies are objects: the nesting sits in one field. */
const inField = (field: string, n: number) => `{"${field}":${arrays(n - 1)}}`

async function send(path: string, headers: Record<string, string>, body: string) {
  const res = await fetch(`${server.url()}/api/v1${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body,
  })
  const text = await res.text()
  return { status: res.status, contentType: res.headers.get('content-type'), text, json: JSON.parse(text) }
}

type Answer = Awaited<ReturnType<typeof send>>
const problems = (answer: Answer): { path: string; code?: string; message: string }[] =>
  answer.json.error?.details?.problems ?? []

function expectTooDeep(answer: Answer, label: string): void {
  expect(answer.status, `${label}: ${answer.text.slice(0, 200)}`).toBe(400)
  expect(answer.contentType, label).toMatch(/^application\/json/)
  expect(answer.json.error.code, label).toBe('validation_failed')
  expect(problems(answer), label).toEqual([
    { path: '(body)', code: 'too_deep', message: expect.stringContaining(`${MAX_JSON_DEPTH} levels`) },
  ])
  expect(answer.text, label).not.toMatch(/\n\s+at |RangeError|stack/i)
}

describe('JSON nested deeper than the limit is refused before anything walks it', () => {
  const bodies = {
    'arrays × 5,000': arrays(5_000),
    'objects × 5,000': objects(5_000),
    'arrays × 100,000': arrays(100_000),
    'objects × 100,000': objects(100_000),
    'object fields × 5,000': inField('email', 5_000),
  }

  it('public operation (POST /auth/login): 400 naming the body and the limit, never 500', async () => {
    for (const [label, body] of Object.entries(bodies))
      expectTooDeep(await send('/auth/login', {}, body), label)
  })

  it('authenticated operations (a read key on POST /terms/lookup, an editor session on POST /terms)', async () => {
    for (const [label, body] of Object.entries(bodies)) {
      expectTooDeep(await send('/terms/lookup', readKey, body), `lookup ${label}`)
      expectTooDeep(await send('/terms', editor.sessionHeaders, body), `create ${label}`)
    }
  })

  it('64 levels pass the check and meet the schema; 65 do not', async () => {
    for (const body of [arrays(MAX_JSON_DEPTH), objects(MAX_JSON_DEPTH), inField('texts', MAX_JSON_DEPTH)]) {
      const answer = await send('/terms/lookup', readKey, body)
      expect(answer.status, answer.text.slice(0, 200)).toBe(400)
      expect(problems(answer).length).toBeGreaterThan(0)
      expect(problems(answer).some((p) => p.code === 'too_deep')).toBe(false)
    }
    expectTooDeep(await send('/terms/lookup', readKey, arrays(MAX_JSON_DEPTH + 1)), '65 arrays')
    expectTooDeep(await send('/terms/lookup', readKey, inField('texts', MAX_JSON_DEPTH + 1)), '65 in a field')
    // brackets inside strings are text, not nesting
    const texts = {
      texts: Array.from({ length: 100 }, (_, i) => (i % 2 ? '['.repeat(100) : '{"a":'.repeat(20))),
    }
    expect((await send('/terms/lookup', readKey, JSON.stringify(texts))).status).toBe(200)
  })

  it('the OpenAPI document states the limit', () => {
    const info = (openApiDocument() as { info: { description: string } }).info
    expect(info.description).toContain(`at most ${MAX_JSON_DEPTH} levels deep`)
  })
})

describe("the import page's JSON upload", () => {
  async function upload(content: string) {
    const form = new FormData()
    form.set('intent', 'apply')
    form.set('format', 'auto')
    form.set('file', new File([content], 'terms.json', { type: 'application/json' }))
    const res = await fetch(`${pages.url()}/import`, {
      method: 'POST',
      headers: { cookie: editor.sessionHeaders.cookie!, origin: TEST_ORIGIN, 'accept-language': 'en' },
      body: form,
      redirect: 'manual',
    })
    return { status: res.status, html: await res.text() }
  }
  const jobs = async () => Number((await em().execute('select count(*) as n from import_jobs'))[0]!.n)

  it('refuses a file nested deeper than the limit on the form, starting no import', async () => {
    const before = await jobs()
    const deepRow = `{"rows":[{"name":"Deep","definition":"d","extra":${arrays(100_000)}}]}`
    for (const content of [arrays(100_000), objects(5_000), deepRow]) {
      const answer = await upload(content)
      expect(answer.status).toBe(400)
      expect(answer.html).toContain(`${MAX_JSON_DEPTH} levels`)
    }
    expect(await jobs()).toBe(before)
  })
})
