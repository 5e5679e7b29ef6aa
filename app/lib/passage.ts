/**
 * The passage a search result points at: a character range (UTF-16 code units, the unit of the chunks'
 * `startOffset`/`endOffset`) of one revision of a wiki page's or meeting's text. The search page links to the
 * source with it (`?passage=START-END&revision=N#passage`), and the source page marks that range and scrolls
 * to it (decision 020, "Passages"). Shared by the search page and the pages it links to.
 */

export interface Passage {
  start: number
  end: number
}

/** The anchor the marked passage carries, so the browser scrolls to it without JavaScript. */
export const PASSAGE_ANCHOR = 'passage'

/** `path` with the passage of a search result. */
export function passageHref(
  path: string,
  item: { startOffset: number; endOffset: number; revision: number },
): string {
  const params = new URLSearchParams({
    passage: `${item.startOffset}-${item.endOffset}`,
    revision: String(item.revision),
  })
  return `${path}?${params}#${PASSAGE_ANCHOR}`
}

export type PassageRequest =
  | { kind: 'none' }
  | { kind: 'mark'; passage: Passage }
  /** The address names another revision than the one shown: its offsets would mark the wrong words. */
  | { kind: 'stale'; revision: number }

/**
 * What the address asks of a page whose text is `length` code units long at `revision`. A malformed or
 * out-of-range passage is ignored (it is a reading aid: the page is shown as it is).
 */
export function readPassage(search: URLSearchParams, length: number, revision: number): PassageRequest {
  const match = /^(\d{1,9})-(\d{1,9})$/.exec(search.get('passage') ?? '')
  if (!match) return { kind: 'none' }
  const start = Number(match[1])
  const end = Number(match[2])
  if (start >= end || end > length) return { kind: 'none' }
  const asked = search.get('revision')
  if (asked !== null && asked !== String(revision)) {
    return /^\d{1,9}$/.test(asked) ? { kind: 'stale', revision: Number(asked) } : { kind: 'none' }
  }
  return { kind: 'mark', passage: { start, end } }
}
