import { describe, expect, it } from 'vitest'
import { jsonDepthProblem, MAX_JSON_DEPTH, nestsDeeperThan } from './json-depth.ts'

const arrays = (n: number) => '['.repeat(n) + ']'.repeat(n)
const objects = (n: number) => '{"a":'.repeat(n) + '1' + '}'.repeat(n)

/** The true depth of a parsed value, for comparing the scan with what JSON.parse builds. */
function parsedDepth(value: unknown): number {
  if (value === null || typeof value !== 'object') return 0
  const children = Array.isArray(value) ? value : Object.values(value)
  return 1 + Math.max(0, ...children.map(parsedDepth))
}

describe('the nesting depth of a JSON text', () => {
  it('accepts exactly the limit and refuses one level more, for arrays, objects and both', () => {
    for (const make of [arrays, objects, (n: number) => '[{"a":'.repeat(n / 2) + '0' + '}]'.repeat(n / 2)]) {
      expect(nestsDeeperThan(make(64), 64)).toBe(false)
      expect(nestsDeeperThan(make(66), 64)).toBe(true)
    }
    expect(nestsDeeperThan(arrays(65), 64)).toBe(true)
    expect(nestsDeeperThan(objects(65), 64)).toBe(true)
  })

  it('scans 100,000 and 1,000,000 levels without recursion, and stops at the limit', () => {
    expect(nestsDeeperThan(arrays(100_000), MAX_JSON_DEPTH)).toBe(true)
    expect(nestsDeeperThan(objects(1_000_000), MAX_JSON_DEPTH)).toBe(true)
    // unclosed brackets count as well: the parser would refuse them, the scan must not be the one to fail
    expect(nestsDeeperThan('['.repeat(1_000_000), MAX_JSON_DEPTH)).toBe(true)
  })

  it('counts only brackets outside strings, escaped quotes and backslashes included', () => {
    const deepText = '['.repeat(200) + '{'.repeat(200)
    expect(nestsDeeperThan(JSON.stringify({ text: deepText }), 2)).toBe(false)
    expect(nestsDeeperThan(JSON.stringify([`"${deepText}"`, '\\', `\\"[[[`]), 1)).toBe(false)
    expect(nestsDeeperThan(JSON.stringify({ '[[[[': '{{{{' }), 1)).toBe(false)
    // after a string ending in an escaped backslash the brackets count again
    expect(nestsDeeperThan('["\\\\", [[1]]]', 2)).toBe(true)
    expect(nestsDeeperThan('["\\\\", [[1]]]', 3)).toBe(false)
    // an unterminated string ends the scan; the parser refuses the text
    expect(nestsDeeperThan('["[[[[[[', 1)).toBe(false)
  })

  it('agrees with the depth JSON.parse builds on mixed documents', () => {
    const docs = [
      '{"terms":[{"name":"a [b]","notations":[{"text":"{x}","kind":"admitted"}]}],"q":"\\"[["}',
      '[[],[[]],{"a":[{"b":{}}]}]',
      '{"a":"\\\\","b":["\\\\\\"",[1,[2,[3]]]]}',
      '"just a string [[["',
      '42',
    ]
    for (const doc of docs) {
      const depth = parsedDepth(JSON.parse(doc))
      expect(nestsDeeperThan(doc, depth), doc).toBe(false)
      if (depth > 0) expect(nestsDeeperThan(doc, depth - 1), doc).toBe(true)
    }
  })

  it('names the field and the limit in the problem', () => {
    expect(jsonDepthProblem(arrays(MAX_JSON_DEPTH), '(body)')).toBeUndefined()
    const problem = jsonDepthProblem(arrays(MAX_JSON_DEPTH + 1), '(body)')
    expect(problem).toMatchObject({ path: '(body)', code: 'too_deep' })
    expect(problem?.message).toContain('64')
  })
})
