import { describe, expect, it } from 'vitest'
import { toErrorResponse } from './errors.server.ts'

/** The one error mapper's answers to failures of the database itself (the rest are tested where they arise). */
describe('database failures', () => {
  it('answers a request that found the database busy for its whole wait with 503 not_ready and Retry-After', async () => {
    const busy = Object.assign(
      new Error('Knex: Timeout acquiring a connection. The pool is probably full.'),
      {
        name: 'KnexTimeoutError',
      },
    )
    const res = toErrorResponse(busy)
    expect(res.status).toBe(503)
    expect(res.headers.get('retry-after')).toBe('10')
    const body = (await res.json()) as { error: { code: string; message: string } }
    expect(body.error.code).toBe('not_ready')
    expect(body.error.message).not.toMatch(/Knex|pool/)
  })
})
