import { describe, expect, it } from 'vitest'
import { askedPassage, passageFor, passageHref } from './passage.ts'

describe('passage', () => {
  const read = (query: string, length = 100, revision = 3) =>
    passageFor(askedPassage(new URLSearchParams(query)), length, revision)

  it('links to a source with the range, its revision and the anchor', () => {
    expect(passageHref('/wiki/a%20b', { startOffset: 5, endOffset: 40, revision: 3 })).toBe(
      '/wiki/a%20b?passage=5-40&revision=3#passage',
    )
  })

  it('reads a range of the revision shown', () => {
    expect(read('passage=5-40&revision=3')).toEqual({ kind: 'mark', passage: { start: 5, end: 40 } })
    expect(read('passage=0-100')).toEqual({ kind: 'mark', passage: { start: 0, end: 100 } })
  })

  it('says when the range is of another revision', () => {
    expect(read('passage=5-40&revision=2')).toEqual({ kind: 'stale', revision: 2 })
  })

  it('ignores what is malformed or out of range', () => {
    for (const query of [
      '',
      'passage=40-5',
      'passage=5-5',
      'passage=5-101',
      'passage=-1-5',
      'passage=a-b',
      'passage=5-40&revision=x',
      'passage=1e3-2e3',
      'passage=5-40x',
    ]) {
      expect(read(query), query).toEqual({ kind: 'none' })
    }
  })
})
