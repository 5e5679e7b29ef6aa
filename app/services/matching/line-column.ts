/** A 1-based line and column; the column counts UTF-16 code units. */
export interface LineColumn {
  line: number
  column: number
}

/**
 * Line and column for each offset (UTF-16 code units into `text`), in one pass over the text for all
 * offsets together: O(text + offsets log offsets), not O(text) per offset. Line breaks are '\n',
 * '\r\n' and a lone '\r'. Offsets may come in any order; the result follows the input order.
 */
export function lineColumnAt(text: string, offsets: readonly number[]): LineColumn[] {
  const order = offsets.map((_, k) => k)
  order.sort((a, b) => offsets[a] - offsets[b])
  const result: LineColumn[] = new Array<LineColumn>(offsets.length)
  const cursor = new LineCursor(text)
  for (const k of order) {
    cursor.advance(offsets[k])
    result[k] = { line: cursor.line, column: offsets[k] - cursor.lineStart + 1 }
  }
  return result
}

/**
 * Walks a text once, for non-decreasing offsets, keeping the current line number and where it
 * starts. It jumps from break to break with indexOf, so it never looks at every character.
 */
export class LineCursor {
  /** 1-based line of the last offset passed to advance(). */
  line = 1
  /** Offset where that line starts. */
  lineStart = 0
  private readonly text: string
  private nextLF: number
  private nextCR: number
  private last = 0

  constructor(text: string) {
    this.text = text
    this.nextLF = text.indexOf('\n')
    this.nextCR = text.indexOf('\r')
  }

  /** Move to `offset` (must not be less than the previous one). */
  advance(offset: number): void {
    if (offset < this.last) throw new RangeError('offsets must be non-decreasing')
    this.last = offset
    for (;;) {
      const lf = this.nextLF < 0 ? Infinity : this.nextLF
      const cr = this.nextCR < 0 ? Infinity : this.nextCR
      const brk = Math.min(lf, cr)
      if (brk >= offset) return
      if (brk === cr) {
        this.nextCR = this.text.indexOf('\r', brk + 1)
        if (lf === brk + 1) continue // '\r\n': counted once, at the '\n'
      } else {
        this.nextLF = this.text.indexOf('\n', brk + 1)
      }
      this.line++
      this.lineStart = brk + 1
    }
  }
}
