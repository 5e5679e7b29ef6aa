import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { expectConsoleError } from '#tests/setup/setup-test-env.ts'
import { endpoint } from './endpoint.server.ts'
import { handleApiRequest } from './handler.server.ts'
import { Router } from './router.server.ts'

const echo = endpoint({
  method: 'POST',
  path: '/echo/{id}',
  operationId: 'echo',
  summary: 'echo',
  tag: 'meta',
  access: { kind: 'public' },
  params: z.object({ id: z.string().uuid() }),
  query: z.object({ n: z.coerce.number().int().optional() }),
  body: z.object({ name: z.string().min(1) }),
  successStatus: 201,
  handler: async ({ params, query, body }) => ({ params, query, body }),
})
const boom = endpoint({
  method: 'GET',
  path: '/boom',
  operationId: 'boom',
  summary: 'boom',
  tag: 'meta',
  access: { kind: 'public' },
  handler: async () => {
    throw new Error('secret internals at /srv/app.ts:12')
  },
})
const literal = endpoint({
  method: 'GET',
  path: '/echo/fixed',
  operationId: 'fixed',
  summary: 'fixed',
  tag: 'meta',
  access: { kind: 'public' },
  handler: async () => ({ fixed: true }),
})
const drifted = endpoint({
  method: 'GET',
  path: '/drifted',
  operationId: 'drifted',
  summary: 'answers outside its documented schema',
  tag: 'meta',
  access: { kind: 'public' },
  response: z.object({ count: z.number().int() }),
  handler: async () => ({ count: 'three' }),
})
const context = endpoint({
  method: 'GET',
  path: '/context',
  operationId: 'context',
  summary: 'what a handler is given',
  tag: 'meta',
  access: { kind: 'public' },
  handler: async (ctx) => ({
    url: ctx.request.url,
    userAgent: ctx.request.headers.get('user-agent'),
    ownKeys: Object.keys(ctx).sort(),
    requestIsOwn: Object.getOwnPropertyDescriptor(ctx, 'request') !== undefined,
    requestId: ctx.requestId,
    ip: ctx.ip,
    isHttps: ctx.isHttps,
  }),
})
const routes = new Router([echo, boom, literal, drifted, context])
const ID = '3f0c1c8e-8f5e-4a39-9d0a-3f6a2b8c9d10'
const meta = { requestId: 'r1', ip: '127.0.0.1', isHttps: false }

function call(path: string, init: RequestInit = {}) {
  return handleApiRequest(new Request(`http://internal/api/v1${path}`, init), meta, routes)
}

const json = (body: string) => ({ method: 'POST', headers: { 'content-type': 'application/json' }, body })

describe('the API wrapper', () => {
  it('parses params, query and body with the endpoint schemas', async () => {
    const res = await call(`/echo/${ID}?n=3`, json('{"name":"x"}'))
    expect(res.status).toBe(201)
    expect(await res.json()).toEqual({ params: { id: ID }, query: { n: 3 }, body: { name: 'x' } })
  })

  it('prefers a literal segment to a parameter', async () => {
    const res = await call('/echo/fixed')
    expect(await res.json()).toEqual({ fixed: true })
  })

  it('answers an unknown route with 404 not_found', async () => {
    const res = await call('/nothing/here')
    expect(res.status).toBe(404)
    expect((await res.json()).error.code).toBe('not_found')
  })

  it('answers a known path with another method with 405 and Allow', async () => {
    const res = await call(`/echo/${ID}`)
    expect(res.status).toBe(405)
    expect(res.headers.get('allow')).toBe('POST')
  })

  it('refuses malformed JSON with 400 validation_failed', async () => {
    const res = await call(`/echo/${ID}`, json('{"name":'))
    expect(res.status).toBe(400)
    const body = await res.json()
    expect(body.error.code).toBe('validation_failed')
    expect(body.error.details.problems[0].message).toMatch(/not valid JSON/)
  })

  it('refuses a wrong content type with 400', async () => {
    const res = await call(`/echo/${ID}`, {
      method: 'POST',
      headers: { 'content-type': 'text/plain' },
      body: 'name=x',
    })
    expect(res.status).toBe(400)
    expect((await res.json()).error.details.problems[0].message).toMatch(/application\/json/)
  })

  it('refuses bad percent-encoding in path and query with 400', async () => {
    const inPath = await call('/echo/%E0%A4%A', json('{"name":"x"}'))
    expect(inPath.status).toBe(400)
    const inQuery = await call(`/echo/${ID}?n=%ZZ`, json('{"name":"x"}'))
    expect(inQuery.status).toBe(400)
    expect((await inQuery.json()).error.code).toBe('validation_failed')
  })

  it('lists every schema problem in details.problems', async () => {
    const res = await call('/echo/not-a-uuid?n=x', json('{"name":""}'))
    const body = await res.json()
    expect(res.status).toBe(400)
    const paths = body.error.details.problems.map((p: { path: string }) => p.path)
    expect(paths).toEqual(expect.arrayContaining(['params.id']))
  })

  it('refuses a body over the limit with 413', async () => {
    const res = await call(`/echo/${ID}`, json(JSON.stringify({ name: 'x'.repeat(1024 * 1024 + 10) })))
    expect(res.status).toBe(413)
    expect((await res.json()).error.code).toBe('payload_too_large')
  })

  it('turns a thrown error into 500 internal_error without stack or message', async () => {
    expectConsoleError()
    const res = await call('/boom')
    expect(res.status).toBe(500)
    const text = await res.text()
    expect(JSON.parse(text)).toEqual({
      error: { code: 'internal_error', message: 'Something went wrong on the server.' },
    })
    expect(text).not.toMatch(/secret internals|\.ts:|at /)
  })

  it('outside production, refuses to answer outside the documented response schema', async () => {
    const res = await call('/drifted')
    expect(res.status).toBe(500)
    expect((await res.json()).error.code).toBe('internal_error')
    // A documented answer passes the same check.
    expect((await call('/echo/fixed')).status).toBe(200)
  })

  it('gives a handler the call: its Fetch Request made on demand, not held by each context', async () => {
    const res = await call('/context?x=1', { headers: { 'user-agent': 'probe/1' } })
    expect(await res.json()).toEqual({
      url: 'http://internal/api/v1/context?x=1',
      userAgent: 'probe/1',
      ownKeys: ['actor', 'body', 'ip', 'isHttps', 'params', 'query', 'requestId', 'responseHeaders'],
      // A getter in an object literal per call kept every call alive through young-generation collections
      // (decision 013, session 11); the context's getter is its class's, defined once.
      requestIsOwn: false,
      requestId: 'r1',
      ip: '127.0.0.1',
      isHttps: false,
    })
  })
})
