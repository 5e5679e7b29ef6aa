import { describe, expect, it } from 'vitest'
import { AppError } from './errors.server.ts'
import { assertValidText, decodeUtf8Text, textDefect, textProblems } from './text-input.ts'

describe('the text rule', () => {
  it('accepts ordinary text of every script, other control characters and surrogate pairs', () => {
    for (const text of ['', 'plain', '한국어 용어', '\t\r\n', '\u0001\u001f', '😀', 'e\u0301', '\ufeff']) {
      expect(textDefect(text), JSON.stringify(text)).toBeUndefined()
    }
  })

  it('refuses NUL and unpaired surrogates wherever they are', () => {
    expect(textDefect('\u0000')).toMatch(/NUL/)
    expect(textDefect('a\u0000')).toMatch(/NUL/)
    expect(textDefect('\ud800')).toMatch(/surrogate/)
    expect(textDefect('x\udc00y')).toMatch(/surrogate/)
    expect(textDefect('\ude00\ud83d')).toMatch(/surrogate/) // a pair in the wrong order is two halves
  })

  it('names every bad string of a nested value by its path, keys included', () => {
    const problems = textProblems(
      { name: 'ok', notations: [{ text: 'ok' }, { text: 'b\u0000d' }], ['k\u0000']: 'v', tags: ['\ud800'] },
      'body',
    )
    expect(problems.map((p) => p.path)).toEqual(['body.notations.1.text', 'body.(key)', 'body.tags.0'])
    expect(problems.every((p) => p.code === 'invalid_text')).toBe(true)
    expect(textProblems([1, true, null, { n: 2 }], '')).toEqual([])
  })

  it('stops listing after 20 problems', () => {
    expect(textProblems(Array(100).fill('\u0000'), 'q')).toHaveLength(20)
  })

  it('throws validation_failed for a bad value and decodes only valid UTF-8', () => {
    expect(() => assertValidText({ a: 'x\u0000' }, '')).toThrow(AppError)
    expect(decodeUtf8Text(new TextEncoder().encode('용어 ok'), '(body)')).toBe('용어 ok')
    try {
      decodeUtf8Text(new Uint8Array([0x61, 0xff, 0xfe]), '(body)')
      expect.unreachable()
    } catch (error) {
      expect((error as AppError).details).toEqual({
        problems: [{ path: '(body)', message: 'The text is not valid UTF-8.', code: 'invalid_text' }],
      })
    }
    expect(() => decodeUtf8Text(new Uint8Array([0x61, 0x00]), '(body)')).toThrow(AppError)
  })
})
