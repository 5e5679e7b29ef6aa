import fc from 'fast-check'
import { stringify } from 'csv-stringify/sync'
import { describe, expect, it } from 'vitest'
import { csvToRows, joinList, neutralizeFormula } from './csv.server.ts'

/** A one-row CSV written as the export writes its cells (quoted, formula cells neutralized). */
const csvOf = (row: Record<string, string>) =>
  stringify([Object.keys(row), Object.values(row)], {
    record_delimiter: 'windows',
    quoted: true,
    quoted_empty: true,
    cast: { string: neutralizeFormula },
  })

/** Text the text rule lets in (no NUL, no lone surrogate), biased to the characters that matter here. */
const text = fc
  .array(
    fc.constantFrom('=', '+', '-', '@', '\t', '\r', '\n', "'", ';', '\\', '"', ',', ' ', 'a', '한', '😀'),
    {
      maxLength: 12,
    },
  )
  .map((chars) => chars.join(''))

describe('the CSV cell format (export → import)', () => {
  it('neutralizes a cell a spreadsheet would run, and the import gives back the text exactly', () => {
    expect(neutralizeFormula('-fno-rtti')).toBe("'-fno-rtti")
    expect(neutralizeFormula("'=x")).toBe("''=x")
    expect(neutralizeFormula("'plain")).toBe("'plain")
    expect(neutralizeFormula('plain')).toBe('plain')
    fc.assert(
      fc.property(text, (definition) => {
        expect(csvToRows(csvOf({ definition }))[0]!.definition).toBe(definition)
      }),
    )
  })

  it('joins list items so a `;` or `\\` inside one survives, and reads hand-written cells as typed', () => {
    expect(joinList(['a;b', 'c\\', 'C:\\tmp'])).toBe('a\\;b;c\\\\;C:\\tmp')
    const item = text.map((s) => s.trim()).filter((s) => s.length > 0)
    fc.assert(
      fc.property(fc.array(item, { maxLength: 5 }), (tags) => {
        expect(csvToRows(csvOf({ tags: joinList(tags) }))[0]!.tags).toEqual(tags)
      }),
    )
    expect(csvToRows('tags\r\nC:\\tmp;x\\y\r\n')[0]!.tags).toEqual(['C:\\tmp', 'x\\y'])
  })
})
