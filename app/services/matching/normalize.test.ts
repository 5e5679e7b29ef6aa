import { describe, expect, it } from 'vitest'
import { prng } from '#tests/prng.ts'
import { normalizeKey, normalizeText, normalizeWithMap, toOriginalRange, unitsToString } from './normalize.ts'

/** Normalized string plus, for every normalized unit, the original range it maps to. */
function mapped(text: string): { norm: string; ranges: [number, number][] } {
  const n = normalizeWithMap(text)
  const ranges: [number, number][] = []
  for (let k = 0; k < n.length; k++) ranges.push(toOriginalRange(n, k, k + 1))
  return { norm: unitsToString(n.units), ranges }
}

describe('normalizeKey', () => {
  it('trims, collapses inner whitespace, applies NFKC and lowercases', () => {
    expect(normalizeKey('  Data \t  Pipeline\n')).toBe('data pipeline')
    expect(normalizeKey('ＡＰＩ')).toBe('api')
    expect(normalizeKey('BullMQ')).toBe('bullmq')
    expect(normalizeKey('㈜')).toBe('(주)')
    expect(normalizeKey('데이터\u3000파이프라인')).toBe('데이터 파이프라인')
    expect(normalizeKey('   ')).toBe('')
  })

  it('gives composed and decomposed forms the same key', () => {
    expect(normalizeKey('cafe\u0301')).toBe(normalizeKey('café'))
    // Conjoining jamo compose into the syllable.
    expect(normalizeKey('\u1100\u1161')).toBe('가')
  })

  it('takes its fast path (plain text, single inner spaces) to the same key as the full path', () => {
    // The full path, as the fast path must agree with it.
    const fullKey = (s: string) => normalizeText(s.normalize('NFKC').trim().replace(/\s+/g, ' ')).trim()
    const rand = prng(13)
    // Every kind of unit the fast path must take or leave: ASCII letters, digits and controls, spaces in runs
    // and at the ends, other whitespace, Hangul, Hanja, a jamo, full-width and compatibility forms, a
    // combining accent, a surrogate pair.
    const units = [
      'a',
      'Z',
      '7',
      '.',
      '\u0000',
      '\u007f',
      ' ',
      ' ',
      '\t',
      '\n',
      '\u00a0',
      '\u3000',
      '가',
      '힣',
      '中',
      '\u1100',
      'Ａ',
      'ﬁ',
      '㈜',
      '\u0301',
      'É',
      '😀',
      'İ',
    ]
    for (let n = 0; n < 5000; n++) {
      let s = ''
      const length = Math.floor(rand() * 8)
      for (let k = 0; k < length; k++) s += units[Math.floor(rand() * units.length)]
      expect(normalizeKey(s), JSON.stringify(s)).toBe(fullKey(s))
    }
  })
})

describe('normalizeText', () => {
  it('takes the fast path and the full path to the same result', () => {
    for (const s of ['API 게이트웨이', 'Ａｐｉ', 'ﬁle', 'a  b', 'Straße', 'İstanbul', 'ΟΔΟΣ']) {
      expect(normalizeText(s)).toBe(unitsToString(normalizeWithMap(s).units))
    }
  })
})

describe('normalizeWithMap', () => {
  it('leaves plain ASCII and Hangul index-for-index, with no map pieces', () => {
    const n = normalizeWithMap('Hello 용어를 World.')
    expect(unitsToString(n.units)).toBe('hello 용어를 world.')
    expect(n.pieceCount).toBe(0)
  })

  it('folds full-width letters in place (same length)', () => {
    const { norm, ranges } = mapped('xＡＰＩy')
    expect(norm).toBe('xapiy')
    expect(ranges).toEqual([
      [0, 1],
      [1, 2],
      [2, 3],
      [3, 4],
      [4, 5],
    ])
  })

  it('maps a ligature expansion back to the single original unit', () => {
    const { norm, ranges } = mapped('ﬁx')
    expect(norm).toBe('fix')
    expect(ranges).toEqual([
      [0, 1],
      [0, 1],
      [1, 2],
    ])
  })

  it('maps a composition back to both original units', () => {
    const { norm, ranges } = mapped('e\u0301t')
    expect(norm).toBe('ét')
    expect(ranges).toEqual([
      [0, 2],
      [2, 3],
    ])
  })

  it('keeps surrogate pairs (emoji) two units wide', () => {
    const { norm, ranges } = mapped('😀a')
    expect(norm).toBe('😀a')
    expect(ranges[2]).toEqual([2, 3])
  })

  it('collapses whitespace runs; a paragraph break becomes a newline', () => {
    const { norm, ranges } = mapped('a \t b\r\nc\n\n\nd')
    expect(norm).toBe('a b c\nd')
    expect(ranges[1]).toEqual([1, 4])
    expect(ranges[3]).toEqual([5, 7])
    expect(ranges[5]).toEqual([8, 11])
    expect(ranges[6]).toEqual([11, 12])
  })

  it('handles empty text', () => {
    const n = normalizeWithMap('')
    expect(n.length).toBe(0)
  })

  it('keeps offsets right after many length changes', () => {
    const text = '㈜'.repeat(50) + 'ab' + '\u2026'.repeat(30) + 'cd'
    const n = normalizeWithMap(text)
    const s = unitsToString(n.units)
    const ab = s.indexOf('ab')
    expect(toOriginalRange(n, ab, ab + 2)).toEqual([50, 52])
    const cd = s.indexOf('cd')
    expect(toOriginalRange(n, cd, cd + 2)).toEqual([82, 84])
  })
})
