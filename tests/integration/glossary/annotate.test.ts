import { beforeAll, describe, expect, it } from 'vitest'
import { matcherCache } from '#app/services/validation/matcher-cache.server.ts'
import { createApiKey, createTerm, createUser } from '#tests/factories.ts'
import { useApiServer, type Json } from '#tests/http.ts'
import { useTestDb } from '#tests/setup/db.ts'

/**
 * `POST /api/v1/annotate` (issue 32): term uses as spans and as HTML with term links and definitions, by the
 * glossary's matcher (letter case, Korean particles), never inside links, code or headings, and safe whatever
 * the text holds.
 */
useTestDb()
const server = useApiServer()
const api = server.api

let validateKey: Record<string, string>
let readOnlyKey: Record<string, string>
const ids: Record<string, string> = {}

beforeAll(async () => {
  const { user } = await createUser({ role: 'editor' })
  validateKey = await createApiKey(user.id, ['validate'])
  readOnlyKey = await createApiKey(user.id, ['read'])
  ids.gateway = (
    await createTerm({
      name: 'API Gateway',
      definition: 'The single entry point that routes <calls> & checks keys.',
      notations: [
        { text: 'API GW', kind: 'admitted', lang: null },
        { text: 'Api-Gate', kind: 'deprecated', lang: null },
      ],
    })
  ).id
  ids.term = (await createTerm({ name: 'Glossary term', nameKo: '용어', definition: '정의된 말.' })).id
  await matcherCache.whenIdle()
})

const annotate = (body: Json, headers = validateKey) => api('POST', '/annotate', headers, body)

describe('POST /annotate', () => {
  it('gives each use as a span with offsets, its term, kind, definition and URL', async () => {
    const text = 'Calls pass the API GW, never the Api-Gate. 용어를 쓴다.'
    const res = await annotate({ text })
    expect(res.status).toBe(200)
    const spans = res.json.spans as Json[]
    expect(spans.map((s) => [s.text, text.slice(s.start, s.end), s.kind, s.finding])).toEqual([
      ['API GW', 'API GW', 'admitted', 'admitted-notation'],
      ['Api-Gate', 'Api-Gate', 'deprecated', 'deprecated-notation'],
      ['용어', '용어', 'preferred', 'correct'],
    ])
    expect(spans[0]).toMatchObject({
      term: { id: ids.gateway, name: 'API Gateway' },
      definition: 'The single entry point that routes <calls> & checks keys.',
      url: expect.stringMatching(/^\/terms\/api-gateway$/),
    })
    expect(spans[1]!.preferred).toBe('API Gateway')
    expect(res.json.glossary).toMatchObject({ upToDate: true })
  })

  it('links a use to its term with the definition as an escaped tooltip, and marks a deprecated notation', async () => {
    const res = await annotate({ text: 'Use the API GW. Not Api-Gate. <b>API GW</b>' })
    const html = res.json.html as string
    expect(html).toMatch(
      /^Use the <span class="term"><a class="term-link" href="\/terms\/api-gateway" aria-describedby="term-def-1">API GW<\/a><span class="term-def" role="tooltip" id="term-def-1"><strong>API Gateway<\/strong> — The single entry point that routes &#60;calls&#62; &#38; checks keys\.<\/span><\/span>\. Not /,
    )
    expect(html).toContain(
      '<mark class="term-deprecated" tabindex="0" aria-describedby="term-def-2">Api-Gate</mark><span class="term-def" role="tooltip" id="term-def-2">Deprecated: write “API Gateway”.</span>',
    )
    // The input's own markup is text, escaped.
    expect(html).toContain('&#60;b&#62;<span class="term">')
    expect(html).not.toContain('<b>')
  })

  it('in Markdown links prose only: never inside a link, code or a heading', async () => {
    const text = [
      '# The API GW',
      '',
      'Route through the API GW, see [the API GW page](https://example.test/API-GW) or `API GW`.',
      '',
      '```',
      'API GW',
      '```',
    ].join('\n')
    const res = await annotate({ text, markup: 'markdown' })
    const html = res.json.html as string
    expect(html.match(/class="term-link"/g)).toHaveLength(1)
    expect(html).toContain('<h1>The API GW</h1>')
    expect(html).toMatch(
      /<a href="https:\/\/example\.test\/API-GW" rel="nofollow noopener noreferrer">the API GW page<\/a>/,
    )
    expect(html).toContain('<code>API GW</code>')
    // Spans cover the prose (a heading and a link's text are prose), never code or the URL.
    const spans = (res.json.spans as Json[]).map((s) => text.slice(s.start, s.end))
    expect(spans).toEqual(['API GW', 'API GW', 'API GW'])
  })

  it('needs the validate scope', async () => {
    const res = await annotate({ text: 'API GW' }, readOnlyKey)
    expect(res.status).toBe(403)
    expect(res.json.error.code).toBe('forbidden')
    expect((await api('POST', '/annotate', {}, { text: 'API GW' })).status).toBe(401)
  })

  it('refuses a bad body with the envelope', async () => {
    const res = await annotate({ text: 'x', markup: 'html' })
    expect(res.status).toBe(400)
    expect(res.json.error.code).toBe('validation_failed')
  })
})
