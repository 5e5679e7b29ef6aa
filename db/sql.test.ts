import { describe, expect, it } from 'vitest'
import { where } from './sql.ts'

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
