import { describe, expect, it } from 'vitest'
import { ENDPOINTS, openApiDocument } from '#app/api/registry.server.ts'
import { createApiKey, createUser } from '#tests/factories.ts'
import { apiCall, useApiServer } from '#tests/http.ts'
import { useTestDb } from '#tests/setup/db.ts'

useTestDb()
const server = useApiServer()

type Operation = {
  operationId: string
  'x-required-scopes'?: string[]
  responses: Record<string, { content?: Record<string, unknown> }>
}
type Doc = { openapi: string; paths: Record<string, Record<string, Operation>> }

function documented(doc: Doc): string[] {
  return Object.entries(doc.paths)
    .flatMap(([path, ops]) => Object.keys(ops).map((method) => `${method.toUpperCase()} ${path}`))
    .sort()
}

describe('GET /api/v1/openapi', () => {
  it('is served without authentication as OpenAPI 3.1 JSON', async () => {
    const res = await fetch(`${server.url()}/api/v1/openapi`)
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toMatch(/application\/json/)
    const doc = (await res.json()) as Doc
    expect(doc.openapi).toBe('3.1.0')
  })

  it('documents exactly the routes the router serves', async () => {
    const doc = (await (await fetch(`${server.url()}/api/v1/openapi`)).json()) as Doc
    const routed = ENDPOINTS.map((e) => `${e.method} ${e.path}`).sort()
    expect(documented(doc)).toEqual(routed)
  })

  it('every documented operation reaches a handler (never the unknown-route 404)', async () => {
    const doc = openApiDocument() as Doc
    for (const [path, ops] of Object.entries(doc.paths)) {
      const concrete = path.replace(/\{[^}]+\}/g, '00000000-0000-4000-8000-000000000000')
      for (const method of Object.keys(ops)) {
        const res = await fetch(`${server.url()}/api/v1${concrete}`, {
          method: method.toUpperCase(),
          headers: { 'content-type': 'application/json' },
          body: method === 'get' ? undefined : '{}',
        })
        const text = await res.text()
        expect(text, `${method} ${path}`).not.toMatch(/No API route/)
        expect(res.status, `${method} ${path}`).not.toBe(405)
      }
    }
  })

  it('answers malformed query encoding with the documented 400 envelope, on /openapi too', async () => {
    const doc = openApiDocument() as Doc
    expect(Object.keys(doc.paths['/openapi']!.get!.responses)).toContain('400')
    const res = await apiCall(server.url(), 'GET', '/openapi?q=%E0%A4%A', {})
    expect(res.status).toBe(400)
    expect(res.json.error.code).toBe('validation_failed')
  })

  it('names the scope an API key needs in x-required-scopes, and lists no scopes on the bearer scheme', () => {
    const doc = openApiDocument() as Doc
    for (const e of ENDPOINTS) {
      const op = doc.paths[e.path]![e.method.toLowerCase()]!
      expect(op['x-required-scopes'], e.operationId).toEqual(
        e.access.kind === 'scoped' ? [e.access.scope] : undefined,
      )
    }
    expect(JSON.stringify(doc)).not.toMatch(/"apiKey":\[[^\]]/)
  })

  it('declares the media types of the answers that are not JSON', async () => {
    const doc = openApiDocument() as Doc
    const user = await createUser({ role: 'viewer' })
    const key = await createApiKey(user.user.id, ['read', 'validate'])
    const answers = [
      ['/import/template.csv', 'get', await apiCall(server.url(), 'GET', '/import/template.csv', key)],
      [
        '/validate/batch',
        'post',
        await apiCall(server.url(), 'POST', '/validate/batch', key, {
          format: 'sarif',
          texts: [{ text: 'x' }],
        }),
      ],
    ] as const
    for (const [path, method, res] of answers) {
      expect(res.status, path).toBe(200)
      const type = res.contentType!.split(';')[0]!
      expect(Object.keys(doc.paths[path]![method]!.responses['200']!.content!), path).toContain(type)
    }
  })

  it('gives every operation a unique operationId', () => {
    const ids = ENDPOINTS.map((e) => e.operationId)
    expect(new Set(ids).size).toBe(ids.length)
  })
})
