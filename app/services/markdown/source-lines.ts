/**
 * Line numbers of a Markdown source as markdown-it counts them in its token maps: it normalizes CR LF and a
 * lone CR to LF before parsing, so each of the three is one line break here too. Used to put a character range
 * on markdown-it's blocks (the wiki's passage marks, the validation's Markdown pass).
 */

/** Offset where each line starts, then the text's length (the start of the line after the last). */
export function lineStarts(text: string): number[] {
  const starts = [0]
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (c === 0x0a || (c === 0x0d && text.charCodeAt(i + 1) !== 0x0a)) starts.push(i + 1)
  }
  starts.push(text.length)
  return starts
}

/** The 0-based line that holds `offset`, given the text's `lineStarts`. */
export function lineOf(starts: readonly number[], offset: number): number {
  let low = 0
  let high = starts.length - 2
  while (low < high) {
    const mid = (low + high + 1) >> 1
    if (starts[mid]! <= offset) low = mid
    else high = mid - 1
  }
  return low
}
