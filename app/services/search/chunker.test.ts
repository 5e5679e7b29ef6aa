import { describe, expect, it } from 'vitest'
import { documentChunks, splitText, termChunks } from './chunker.ts'

describe('splitText', () => {
  it('covers the text with windows of at most `size`, overlapping, cut at spaces, offsets exact', () => {
    const text = Array.from({ length: 400 }, (_, i) => `word${i}`).join(' ')
    const pieces = splitText(text, 500, 100)
    expect(pieces.length).toBeGreaterThan(5)
    for (const p of pieces) {
      expect(p.end - p.start).toBeLessThanOrEqual(500)
      expect(text.slice(p.start, p.end)).toBe(p.text)
    }
    for (let i = 1; i < pieces.length; i++) {
      expect(pieces[i]!.start).toBeLessThan(pieces[i - 1]!.end) // overlap
      expect(pieces[i]!.start).toBeGreaterThan(pieces[i - 1]!.start) // progress
      expect(text[pieces[i - 1]!.end - 1]).toBe(' ') // cut after a space
    }
    expect(pieces.at(-1)!.end).toBe(text.length)
  })

  it('never splits a surrogate pair and skips blank windows', () => {
    const text = '😀'.repeat(1000)
    for (const p of splitText(text, 401, 0)) {
      expect(p.text.isWellFormed()).toBe(true)
    }
    expect(splitText('   \n  ', 400, 0)).toEqual([])
  })
})

describe('chunks of sources', () => {
  it('a term: a name chunk with its classification, then definition and body with the name embedded in front', () => {
    const chunks = termChunks(
      {
        slug: 's',
        name: 'Ledger',
        fullName: 'General Ledger',
        nameEn: null,
        nameKo: '원장',
        notations: [{ text: 'GL', kind: 'admitted', lang: null }],
        domains: ['finance'],
        categories: ['accounting'],
        tags: ['core'],
        status: 'active',
        definition: 'The book of accounts.',
        body: '',
      },
      400,
      0,
    )
    expect(chunks.map((c) => c.sourceField)).toEqual(['name', 'definition'])
    expect(chunks[0]!.content).toContain('Notations: GL')
    expect(chunks[0]!.content).toContain('Domain: finance')
    expect(chunks[1]!.content).toBe('The book of accounts.')
    expect(chunks[1]!.embedText).toBe('Ledger\nThe book of accounts.')
    expect(chunks[1]!.contentHash).toMatch(/^[0-9a-f]{64}$/)
  })

  it('a document: offsets into the original text', () => {
    const text = 'x '.repeat(600)
    for (const c of documentChunks('Title', text, 400, 40)) {
      expect(text.slice(c.startOffset!, c.endOffset!)).toBe(c.content)
      expect(c.embedText.startsWith('Title\n')).toBe(true)
    }
  })
})
