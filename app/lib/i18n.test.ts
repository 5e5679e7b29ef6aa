import { describe, expect, it } from 'vitest'
import { formatNumber, translateCount } from './i18n.ts'

describe('translateCount', () => {
  it('uses the English singular for one and the plural for every other number', () => {
    expect(translateCount('en', 'count.term', 1)).toBe('1 term')
    expect(translateCount('en', 'count.term', 0)).toBe('0 terms')
    expect(translateCount('en', 'count.term', 2)).toBe('2 terms')
    expect(translateCount('en', 'count.finding', 1)).toBe('1 finding')
    expect(translateCount('en', 'count.wikiPage', 1)).toBe('1 wiki page')
    expect(translateCount('en', 'count.meeting', 3)).toBe('3 meetings')
  })

  it('uses the one Korean form for every number (Korean has no plural) and never falls back to English', () => {
    expect(translateCount('ko', 'count.term', 1)).toBe('용어 1개')
    expect(translateCount('ko', 'count.term', 2)).toBe('용어 2개')
    expect(translateCount('ko', 'count.finding', 1)).toBe('1건')
  })
})

describe('formatNumber', () => {
  it('groups the digits of a quantity by thousands, in English and Korean alike', () => {
    expect(formatNumber('en', 1200)).toBe('1,200')
    expect(formatNumber('ko', 100000)).toBe('100,000')
    expect(formatNumber('en', 999)).toBe('999')
    expect(formatNumber('en', 0)).toBe('0')
  })

  it('is what counts are written with', () => {
    expect(translateCount('en', 'count.term', 12000)).toBe('12,000 terms')
    expect(translateCount('ko', 'count.term', 12000)).toBe('용어 12,000개')
  })
})
