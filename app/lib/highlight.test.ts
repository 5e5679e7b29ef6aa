import { describe, expect, it } from 'vitest'
import { highlightParts, queryWords } from './highlight.ts'

const marked = (text: string, query: string) =>
  highlightParts(text, query)
    .map((p) => (p.hit ? `[${p.text}]` : p.text))
    .join('')

describe('highlightParts', () => {
  it('marks every query word case-insensitively and keeps the rest as plain text', () => {
    expect(marked('The Settlement batch closes the settlement ledger.', 'settlement LEDGER')).toBe(
      'The [Settlement] batch closes the [settlement] [ledger].',
    )
  })

  it('matches Korean words inside longer words (particles), and decomposed text', () => {
    expect(marked('결제를 마감하는 야간 배치', '결제 배치')).toBe('[결제]를 마감하는 야간 [배치]')
    expect(marked('한국어'.normalize('NFD'), '한국')).toBe('[한국]어')
  })

  it('takes punctuation in the query literally as a separator, never as a pattern', () => {
    expect(marked('a+b (c) d.*e', 'd.* (c)')).toBe('a+b ([c]) [d].*e')
    expect(queryWords('<script>alert(1)</script>')).toEqual(['script', 'alert'])
  })

  it('skips one-character words unless the query has nothing longer; longer words win an overlap', () => {
    expect(queryWords('a batch')).toEqual(['batch'])
    expect(queryWords('x')).toEqual(['x'])
    expect(marked('batches', 'batch batches')).toBe('[batches]')
  })

  it('answers the text unmarked when the query has no word, and nothing for no text', () => {
    expect(highlightParts('plain', '...')).toEqual([{ text: 'plain', hit: false }])
    expect(highlightParts('', 'word')).toEqual([])
  })
})
