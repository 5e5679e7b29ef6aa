import { describe, expect, it } from 'vitest'
import { ENDPOINTS, openApiDocument } from '#app/api/registry.server.ts'
import { useApiServer } from '#tests/http.ts'
import { useTestDb } from '#tests/setup/db.ts'

useTestDb()
const server = useApiServer()

type Doc = { openapi: string; paths: Record<string, Record<string, { operationId: string }>> }

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

  it('gives every operation a unique operationId', () => {
    const ids = ENDPOINTS.map((e) => e.operationId)
    expect(new Set(ids).size).toBe(ids.length)
  })
})
