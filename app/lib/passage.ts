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

/** What an address asks for: a range and, when it names one, the revision the range was taken from. */
export interface PassageAsk extends Passage {
  revision: string | null
}

/** The passage an address names, before it is held against the page; undefined when it names none. */
export function askedPassage(search: URLSearchParams): PassageAsk | undefined {
  const match = /^(\d{1,9})-(\d{1,9})$/.exec(search.get('passage') ?? '')
  if (!match) return undefined
  return { start: Number(match[1]), end: Number(match[2]), revision: search.get('revision') }
}

/**
 * What `asked` means for a page whose text is `length` code units long at `revision`. A malformed or
 * out-of-range passage is ignored (it is a reading aid: the page is shown as it is).
 */
export function passageFor(asked: PassageAsk | undefined, length: number, revision: number): PassageRequest {
  if (!asked) return { kind: 'none' }
  const { start, end } = asked
  if (start >= end || end > length) return { kind: 'none' }
  if (asked.revision !== null && asked.revision !== String(revision)) {
    return /^\d{1,9}$/.test(asked.revision)
      ? { kind: 'stale', revision: Number(asked.revision) }
      : { kind: 'none' }
  }
  return { kind: 'mark', passage: { start, end } }
}
