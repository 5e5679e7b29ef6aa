import { PASSAGE_ANCHOR, passageFor, type PassageAsk } from '#app/lib/passage.ts'
import { matcherCache } from '#app/services/validation/matcher-cache.server.ts'
import { renderWithTermLinks, type TermLinkLabels } from './annotate.server.ts'

/**
 * Wiki pages and meeting records as readers see them, with term links (issue 32): computed at render time
 * against the current glossary, and kept in a small cache keyed by the source's revision, the glossary version
 * and the reader's language, so a page read again is not matched again. A source opened at a search result's
 * passage (marked) is rendered for that request only.
 */

/** Pages kept (least recently used goes first): a 50 KB page's HTML with its tooltips is ~100–200 KB. */
export const PAGE_LINK_CACHE_SIZE = 200

const cache = new Map<string, string>()

/** A wiki page's sanitized HTML with its term uses linked (marking the passage asked, if it applies). */
export async function pageHtmlWithTermLinks(
  page: { id: string; revision: number; content: string },
  asked: PassageAsk | undefined,
  labels: TermLinkLabels,
): Promise<string> {
  const snapshot = await matcherCache.get()
  const passage = passageFor(asked, page.content.length, page.revision)
  if (passage.kind === 'mark') {
    return renderWithTermLinks(page.content, 'markdown', labels, snapshot, passage.passage)
  }
  return cached(`wiki:${page.id}:${page.revision}:${snapshot.version}:${labels.lang}`, () =>
    renderWithTermLinks(page.content, 'markdown', labels, snapshot),
  )
}

/**
 * A meeting record's text, exactly as recorded (plain text, escaped), with its term uses linked, and the passage
 * asked marked (`<mark class="passage" id="passage">`, as the page marks it without links).
 */
export async function recordHtmlWithTermLinks(
  record: { id: string; revision: number; content: string },
  asked: PassageAsk | undefined,
  labels: TermLinkLabels,
): Promise<string> {
  const snapshot = await matcherCache.get()
  const text = record.content
  const passage = passageFor(asked, text.length, record.revision)
  if (passage.kind === 'mark') {
    const { start, end } = passage.passage
    // Each part linked on its own: a use across the passage's edge is left as text rather than cut.
    const [before, inside, after] = await Promise.all(
      [text.slice(0, start), text.slice(start, end), text.slice(end)].map((part) =>
        renderWithTermLinks(part, 'text', labels, snapshot),
      ),
    )
    return `${before}<mark class="passage" id="${PASSAGE_ANCHOR}">${inside}</mark>${after}`
  }
  return cached(`meeting:${record.id}:${record.revision}:${snapshot.version}:${labels.lang}`, () =>
    renderWithTermLinks(text, 'text', labels, snapshot),
  )
}

async function cached(key: string, render: () => Promise<string>): Promise<string> {
  const hit = cache.get(key)
  if (hit !== undefined) {
    cache.delete(key) // to the end: the least recently used goes first
    cache.set(key, hit)
    return hit
  }
  const html = await render()
  cache.set(key, html)
  if (cache.size > PAGE_LINK_CACHE_SIZE) cache.delete(cache.keys().next().value!)
  return html
}

/** Empties the cache (tests). */
export function clearPageLinkCache(): void {
  cache.clear()
}
