import { describe, expect, it } from 'vitest'
import { useApiServer } from '#tests/http.ts'
import { useTestDb } from '#tests/setup/db.ts'

useTestDb()
const server = useApiServer()

describe('the web process', () => {
  it('GET /healthz answers while alive', async () => {
    const res = await fetch(`${server.url()}/healthz`)
    expect(res.status).toBe(200)
    expect(await res.json()).toEqual({ status: 'ok' })
  })

  it('GET /readyz checks the database and migrations', async () => {
    const res = await fetch(`${server.url()}/readyz`)
    expect(res.status).toBe(200)
    expect(await res.json()).toMatchObject({ ready: true, checks: { database: 'ok', migrations: 'ok' } })
  })

  it('puts security headers and a request id on every response', async () => {
    for (const path of ['/healthz', '/api/v1/openapi', '/api/v1/unknown']) {
      const res = await fetch(`${server.url()}${path}`)
      expect(res.headers.get('content-security-policy')).toMatch(/frame-ancestors 'none'/)
      expect(res.headers.get('x-content-type-options')).toBe('nosniff')
      expect(res.headers.get('referrer-policy')).toBe('same-origin')
      expect(res.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/)
      expect(res.headers.get('x-powered-by')).toBeNull()
    }
  })

  it('gives JSON answers a CSP that allows nothing, and pages a nonce of their own', async () => {
    for (const path of ['/healthz', '/api/v1/openapi', '/api/v1/unknown']) {
      const res = await fetch(`${server.url()}${path}`)
      expect(res.headers.get('content-security-policy')).toBe("default-src 'none';frame-ancestors 'none'")
      expect(res.headers.get('cross-origin-opener-policy')).toBe('same-origin')
    }
    const nonces = new Set<string>()
    for (let i = 0; i < 2; i++) {
      const page = await fetch(`${server.url()}/no-such-page`)
      const csp = page.headers.get('content-security-policy')!
      expect(csp).toMatch(/default-src 'self'/)
      expect(csp).toMatch(/frame-ancestors 'none'/)
      nonces.add(/'nonce-([^']+)'/.exec(csp)![1]!)
    }
    expect(nonces.size).toBe(2)
  })

  it('keeps a well-formed incoming X-Request-Id and replaces a bad one', async () => {
    const kept = await fetch(`${server.url()}/healthz`, { headers: { 'x-request-id': 'abc-123' } })
    expect(kept.headers.get('x-request-id')).toBe('abc-123')
    const replaced = await fetch(`${server.url()}/healthz`, { headers: { 'x-request-id': 'bad id!' } })
    expect(replaced.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/)
  })

  it('answers the API alike through its fast lane and through Express (a prefix in another case)', async () => {
    // `/api/v1/…` skips Express (http.server.ts); Express still routes `/API/V1/…` to the same dispatcher.
    for (const path of ['/api/v1/no/such/thing?x=1', '/API/V1/no/such/thing?x=1']) {
      const res = await fetch(`${server.url()}${path}`, { headers: { 'x-request-id': 'lane-1' } })
      expect(res.status, path).toBe(404)
      expect(await res.json()).toMatchObject({ error: { code: 'not_found' } })
      expect(res.headers.get('x-request-id')).toBe('lane-1')
      expect(res.headers.get('x-content-type-options')).toBe('nosniff')
    }
    const head = await fetch(`${server.url()}/api/v1/openapi`, { method: 'HEAD' })
    expect(head.status).toBe(200)
    expect(await head.text()).toBe('')
  })

  it('answers unknown API routes with the JSON envelope', async () => {
    const res = await fetch(`${server.url()}/api/v1/no/such/thing`, { method: 'POST' })
    expect(res.status).toBe(404)
    expect(await res.json()).toMatchObject({ error: { code: 'not_found' } })
  })

  it('answers malformed JSON and bad percent-encoding over HTTP with 400 JSON', async () => {
    const malformed = await fetch(`${server.url()}/api/v1/%E0%A4%A`)
    expect(malformed.status).toBe(400)
    expect((await malformed.json()).error.code).toBe('validation_failed')
  })

  it('refuses bodies beyond the global limit with 413 JSON', async () => {
    const res = await fetch(`${server.url()}/api/v1/openapi`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: 'x'.repeat(13 * 1024 * 1024),
    })
    expect(res.status).toBe(413)
    expect((await res.json()).error.code).toBe('payload_too_large')
  })
})
