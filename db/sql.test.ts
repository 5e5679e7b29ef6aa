import type { EntityManager } from '@mikro-orm/postgresql'
import { describe, expect, it } from 'vitest'
import { where, pageTotal } from './sql.ts'

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
