import { describe, expect, it } from 'vitest'
import { encodeWithFrozenItems } from './immutable-json.ts'

const deepFreeze = <T extends object>(value: T): T => {
  for (const part of Object.values(value)) if (typeof part === 'object' && part !== null) deepFreeze(part)
  return Object.freeze(value)
}

describe('encodeWithFrozenItems', () => {
  const frozen = deepFreeze({
    text: '용어집 "API"\n',
    found: true,
    matches: [{ term: { slug: 'a' }, preferred: null }],
  })
  const plain = { text: 'plain', found: false, matches: [] }

  it('writes the same JSON as JSON.stringify, other members first', () => {
    const value = { results: [frozen, plain, frozen, 3, null, 'x'] }
    expect(encodeWithFrozenItems(value, 'results').toString('utf8')).toBe(JSON.stringify(value))
    const withOthers = { glossary: { version: 7 }, results: [frozen] }
    expect(JSON.parse(encodeWithFrozenItems(withOthers, 'results').toString('utf8'))).toEqual(withOthers)
    expect(encodeWithFrozenItems({ results: [] }, 'results').toString('utf8')).toBe('{"results":[]}')
    expect(encodeWithFrozenItems({ other: 1 }, 'results').toString('utf8')).toBe('{"other":1}')
  })

  it('serializes a frozen item once, and a mutable one every time', () => {
    const first = encodeWithFrozenItems({ results: [frozen, plain] }, 'results')
    plain.text = 'changed'
    const second = encodeWithFrozenItems({ results: [frozen, plain] }, 'results')
    expect(JSON.parse(second.toString('utf8')).results[1].text).toBe('changed')
    expect(second.toString('utf8')).not.toBe(first.toString('utf8'))
    expect(second.toString('utf8').startsWith(first.toString('utf8').slice(0, 40))).toBe(true)
  })
})
