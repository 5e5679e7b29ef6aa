import { describe, expect, it } from 'vitest'
import { endpoint } from '#app/api/endpoint.server.ts'
import { handleApiRequest } from '#app/api/handler.server.ts'
import { Router } from '#app/api/router.server.ts'
import { handleError } from '#app/entry.server.tsx'
import type { AppLoadContext } from '@remix-run/node'
import { em } from '#db/orm.ts'
import { testEngine, useTestDb } from '#tests/setup/db.ts'

/**
 * A database connection ended under a request (a restart, a failover, `pg_terminate_backend`; the fault
 * matrix's case, tests/e2e/fault-matrix.e2e.test.ts): a read is answered again on a fresh connection, a write
 * is answered 503 `not_ready` with `Retry-After` instead of a 500. The handlers below end their own database
 * connection with `pg_terminate_backend(pg_backend_pid())` on their first call: a real loss through the real
 * driver, which only a server has (the embedded engine has no connection to lose).
 */
useTestDb()

const calls = { read: 0, write: 0 }

/** The first call of each endpoint loses its connection in the middle of a statement. */
async function statementThatLosesItsConnection(first: boolean): Promise<number> {
  const sql = first ? 'select pg_terminate_backend(pg_backend_pid()) as n' : 'select 1 as n'
  const [row] = await em().execute<{ n: unknown }[]>(sql)
  return Number(row!.n)
}

const read = endpoint({
  method: 'GET',
  path: '/lost/read',
  operationId: 'lostRead',
  summary: 'a read whose first call loses its connection',
  tag: 'meta',
  access: { kind: 'public' },
  handler: async () => ({ n: await statementThatLosesItsConnection(++calls.read === 1), calls: calls.read }),
})
const write = endpoint({
  method: 'POST',
  path: '/lost/write',
  operationId: 'lostWrite',
  summary: 'a write whose first call loses its connection',
  tag: 'meta',
  access: { kind: 'public' },
  handler: async () => ({ n: await statementThatLosesItsConnection(++calls.write === 1) }),
})
const routes = new Router([read, write])
const meta = { requestId: 'r1', ip: '127.0.0.1', isHttps: false }

const call = (path: string, init: RequestInit = {}) =>
  handleApiRequest(new Request(`http://internal/api/v1${path}`, init), meta, routes)

describe.runIf(testEngine() === 'postgres')('a database connection lost under a request', () => {
  it('a read is answered again on a fresh connection', async () => {
    const res = await call('/lost/read')
    expect(res.status).toBe(200)
    expect(await res.json()).toEqual({ n: 1, calls: 2 })
  })

  it('a write is not run again: 503 not_ready with Retry-After, never a 500', async () => {
    const res = await call('/lost/write', { method: 'POST' })
    expect(res.status).toBe(503)
    expect(res.headers.get('retry-after')).toBe('1')
    expect((await res.json()).error).toEqual({
      code: 'not_ready',
      message: 'The database connection was lost; try again in a moment.',
    })
    expect(calls.write).toBe(1)
    // The next read is answered, on a live connection.
    expect((await call('/lost/read')).status).toBe(200)
  })
})

describe('a page loader that lost its connection', () => {
  it('is marked for the page handler to answer again, and not logged as a bug', () => {
    const context: AppLoadContext = {}
    const lost = Object.assign(new Error('terminating connection due to administrator command'), {
      code: '57P01',
    })
    handleError(lost, { request: new Request('http://internal/terms'), context })
    expect(context.databaseLost).toBe(true)
    const other: AppLoadContext = {}
    handleError(Object.assign(new Error('syntax error'), { code: '42601' }), {
      request: new Request('http://internal/terms'),
      context: other,
    })
    expect(other.databaseLost).toBeUndefined()
  })
})
