/**
 * The words of a search query marked in a result's text (the search page). Pure and shared by server and
 * browser: it answers the text cut into plain and marked parts, and the page renders each part as text, so
 * nothing of the text is ever read as HTML.
 */

export interface TextPart {
  text: string
  hit: boolean
}

/** Letters and digits in any script; everything else separates words. */
const WORD = /[\p{L}\p{N}]+/gu

/**
 * The query's words worth marking: one-character words only when the query has nothing longer (a single
 * letter would mark most of a text), longest first so a longer word wins where two overlap.
 */
export function queryWords(query: string): string[] {
  const words = [...new Set((query.toLowerCase().match(WORD) ?? []).map((w) => w.normalize('NFC')))]
  const long = words.filter((w) => [...w].length > 1)
  return (long.length ? long : words).sort((a, b) => b.length - a.length)
}

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')

/**
 * `text` cut at every occurrence of a query word, case-insensitively. Words match inside longer words too
 * (Korean attaches particles to the word, `결제를` holds `결제`), so the parts are a reading aid, not the
 * search's own notion of a match (search is by meaning, and the best chunk may share no word at all).
 */
export function highlightParts(text: string, query: string): TextPart[] {
  // One form of composed characters on both sides, so a decomposed 한 in the text still matches.
  const source = text.normalize('NFC')
  const words = queryWords(query)
  if (source === '') return []
  if (words.length === 0) return [{ text: source, hit: false }]
  const pattern = new RegExp(words.map(escapeRegExp).join('|'), 'giu')
  const parts: TextPart[] = []
  let at = 0
  for (const match of source.matchAll(pattern)) {
    if (match.index > at) parts.push({ text: source.slice(at, match.index), hit: false })
    parts.push({ text: match[0], hit: true })
    at = match.index + match[0].length
  }
  if (at < source.length) parts.push({ text: source.slice(at), hit: false })
  return parts
}
