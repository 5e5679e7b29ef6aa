import type { EntityManager } from '@mikro-orm/postgresql'
import { describe, expect, it } from 'vitest'
import { isConnectionLost, isDatabaseBusy, where, pageTotal, vectorLiteral } from './sql.ts'

describe('where', () => {
  it('joins the present conditions with and, their parameters in order', () => {
    const role: string | undefined = 'admin'
    const q: string | undefined = undefined
    expect(where(role && ['role = ?', role], q && ['name = ?', q], ['(a = ? or b = ?)', 1, 2])).toEqual({
      sql: 'where role = ? and (a = ? or b = ?)',
      params: ['admin', 1, 2],
    })
  })

  it('is empty when no condition is present (an empty string counts as absent)', () => {
    const text: string = ''
    expect(where(undefined, false, text && ['x = ?', text])).toEqual({ sql: '', params: [] })
  })
})

describe('pageTotal', () => {
  const rowsOf = (n: number) => Array.from({ length: n }, (_, i) => ({ id: i }))
  /** A stand-in manager that answers `n` to a count and records the statements of its transactions. */
  const counter = (n: number) => {
    const calls: string[] = []
    const tx = {
      execute: async (sql: string) => (
        calls.push(sql),
        sql.startsWith('select count') ? [{ n: String(n) }] : []
      ),
    }
    const manager = { transactional: (fn: (t: typeof tx) => Promise<unknown>) => fn(tx) }
    return {
      calls,
      count: { manager: manager as unknown as EntityManager, from: 'terms t where x = ?', params: [1] },
    }
  }

  it('takes the total from a page that ends the list, without counting', async () => {
    const c = counter(99)
    expect(await pageTotal({ rows: rowsOf(3), offset: 0, limit: 20 }, c.count)).toBe(3)
    expect(await pageTotal({ rows: rowsOf(7), offset: 40, limit: 20 }, c.count)).toBe(47)
    expect(await pageTotal({ rows: rowsOf(0), offset: 0, limit: 20 }, c.count)).toBe(0)
    expect(c.calls).toHaveLength(0)
  })

  it('counts when a full page or a page past the end cannot tell', async () => {
    const c = counter(57)
    expect(await pageTotal({ rows: rowsOf(20), offset: 0, limit: 20 }, c.count)).toBe(57)
    expect(await pageTotal({ rows: rowsOf(0), offset: 100, limit: 20 }, c.count)).toBe(57)
    // Each count in its own transaction that allows a sequential read (the embedded engine starts without).
    expect(c.calls).toEqual([
      "select set_config('enable_seqscan', 'on', true)",
      'select count(*) as n from terms t where x = ?',
      "select set_config('enable_seqscan', 'on', true)",
      'select count(*) as n from terms t where x = ?',
    ])
  })

  it('takes a total that the page statement carried', async () => {
    const c = counter(57)
    const rows = [
      { id: 1, total: '41' },
      { id: 2, total: '41' },
    ]
    expect(await pageTotal({ rows, offset: 0, limit: 2 }, c.count)).toBe(41)
    expect(c.calls).toHaveLength(0)
  })
})

describe('vectorLiteral', () => {
  it('names each value as the float4 the binary path stores, also one halfway between two float4s', () => {
    // 1 + 2^-24 lies halfway between 1 and the next float4: rounding makes it 1, parsing its decimal would not.
    expect(vectorLiteral([1 + 2 ** -24, -0.1, 0])).toBe('[1,-0.10000000149011612,0]')
  })
})

describe('isConnectionLost', () => {
  const withCode = (message: string, code?: string) => Object.assign(new Error(message), { code })

  it('knows the server ending a connection, connection exceptions and failed sockets', () => {
    expect(isConnectionLost(withCode('terminating connection due to administrator command', '57P01'))).toBe(
      true,
    )
    expect(isConnectionLost(withCode('the database system is starting up', '57P03'))).toBe(true)
    expect(isConnectionLost(withCode('connection failure', '08006'))).toBe(true)
    expect(isConnectionLost(withCode('read ECONNRESET', 'ECONNRESET'))).toBe(true)
    // MikroORM's wrapping: the statement's text, then the driver's words, no code.
    expect(isConnectionLost(new Error('select 1 - Connection terminated unexpectedly'))).toBe(true)
    expect(isConnectionLost(new Error('x', { cause: withCode('y', '57P01') }))).toBe(true)
  })

  it('leaves every other failure alone', () => {
    expect(isConnectionLost(withCode('duplicate key value', '23505'))).toBe(false)
    expect(isConnectionLost(withCode('canceling statement due to lock timeout', '55P03'))).toBe(false)
    expect(isConnectionLost(new Error('something else'))).toBe(false)
    expect(isConnectionLost(undefined)).toBe(false)
  })
})

describe('isDatabaseBusy', () => {
  it('knows a statement that found no free connection in time, as knex and MikroORM hand it on', () => {
    const knex = Object.assign(
      new Error('Knex: Timeout acquiring a connection. The pool is probably full.'),
      {
        name: 'KnexTimeoutError',
      },
    )
    expect(isDatabaseBusy(knex)).toBe(true)
    expect(
      isDatabaseBusy(
        new Error('select 1 - Knex: Timeout acquiring a connection. The pool is probably full.'),
      ),
    ).toBe(true)
    expect(isDatabaseBusy(new Error('wrapped', { cause: knex }))).toBe(true)
    expect(isDatabaseBusy(new Error('canceling statement due to statement timeout'))).toBe(false)
    expect(isDatabaseBusy(undefined)).toBe(false)
  })
})
