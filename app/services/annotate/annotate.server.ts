import type { Markup } from '#app/schemas/validation.ts'
import type { Passage } from '#app/lib/passage.ts'
import { renderMarkdown, type TermLinker } from '#app/services/markdown/render.server.ts'
import type { Match } from '#app/services/matching/matcher.ts'
import { useFacts, type UseFacts } from '#app/services/validation/findings.server.ts'
import { maskMarkdown } from '#app/services/validation/markdown-mask.ts'
import {
  matcherCache,
  type FormPayload,
  type MatcherSnapshot,
} from '#app/services/validation/matcher-cache.server.ts'
import { em } from '#db/orm.ts'
import { selectDefinitions } from './store.server.ts'

/**
 * Term links (issue 32): the uses of glossary terms in running text, found by the glossary's matcher (Korean
 * particles, letter case and boundaries as validation reads them), as spans and as HTML. A use of a preferred or
 * admitted notation links to its term, with the term's definition as a tooltip shown on hover and on keyboard
 * focus (CSS only: it works without JavaScript, and the link is described by it for screen readers); a
 * deprecated notation is marked, its tooltip naming the form to write. Computed against the current glossary;
 * the wiki page keeps a cache keyed by its revision and the glossary version (page-links.server.ts).
 */

/** Longest definition a tooltip shows; the term's page has the rest. */
export const TOOLTIP_DEFINITION_MAX = 280

/** The words of a tooltip, in the reader's language (the API's are English). */
export interface TermLinkLabels {
  /** The language they are in (a rendering is cached per language). */
  lang: string
  /** A deprecated notation's tooltip: `{preferred}` is the form to write. */
  useInstead: string
  /** A deprecated term named in full. */
  deprecatedTerm: string
}

export const ENGLISH_LABELS: TermLinkLabels = {
  lang: 'en',
  useInstead: 'Deprecated: write “{preferred}”.',
  deprecatedTerm: 'This term is deprecated.',
}

export interface TermSpan {
  start: number
  end: number
  text: string
  notation: string
  term: UseFacts['term']
  kind: UseFacts['kind']
  finding: UseFacts['finding']
  preferred: string | null
  definition: string
  url: string
}

export interface Annotation {
  spans: TermSpan[]
  html: string
  glossary: { version: number; upToDate: boolean }
}

const termUrl = (slug: string) => `/terms/${encodeURIComponent(slug)}`

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`)

const cut = (text: string) =>
  text.length > TOOLTIP_DEFINITION_MAX ? `${text.slice(0, TOOLTIP_DEFINITION_MAX).trimEnd()}…` : text

/** The matches of `text` that do not overlap: at each place the longest, left to right. */
function nonOverlapping(matches: readonly Match<FormPayload>[]): Match<FormPayload>[] {
  const out: Match<FormPayload>[] = []
  const sorted = [...matches].sort((a, b) => a.start - b.start || b.end - a.end)
  let end = -1
  for (const match of sorted) {
    if (match.start < end) continue
    out.push(match)
    end = match.end
  }
  return out
}

/** What a use says: a deprecated notation, if it is one; else the first term it names. */
function verdictOf(match: Match<FormPayload>): UseFacts | undefined {
  const facts = useFacts(match.entries, match.wrongCase)
  return facts.find((f) => f.finding === 'deprecated-notation') ?? facts[0]
}

/**
 * Makes the linker of one rendering: it numbers the tooltips of one document (ids stay unique) and reads the
 * definitions from `definitions`. Text is escaped here; nothing of it reaches the page as markup.
 */
function linkerOf(
  snapshot: MatcherSnapshot,
  definitions: Map<string, string>,
  labels: TermLinkLabels,
): TermLinker {
  let next = 0
  return (text) => {
    const matches = nonOverlapping(snapshot.matcher.scan(text))
    if (matches.length === 0) return undefined
    let html = ''
    let at = 0
    for (const match of matches) {
      const facts = verdictOf(match)
      if (!facts) continue
      html += escapeHtml(text.slice(at, match.start))
      const id = `term-def-${++next}`
      const shown = escapeHtml(match.text)
      if (facts.finding === 'deprecated-notation' || facts.finding === 'deprecated-term') {
        const hint =
          facts.finding === 'deprecated-notation' && facts.preferred
            ? labels.useInstead.replace('{preferred}', facts.preferred)
            : labels.deprecatedTerm
        html +=
          `<span class="term"><mark class="term-deprecated" tabindex="0" aria-describedby="${id}">${shown}</mark>` +
          `<span class="term-def" role="tooltip" id="${id}">${escapeHtml(hint)}</span></span>`
      } else {
        const definition = cut(definitions.get(facts.term.id) ?? '')
        html +=
          `<span class="term"><a class="term-link" href="${escapeHtml(termUrl(facts.term.slug))}" aria-describedby="${id}">${shown}</a>` +
          `<span class="term-def" role="tooltip" id="${id}"><strong>${escapeHtml(facts.term.name)}</strong>` +
          `${definition ? ` — ${escapeHtml(definition)}` : ''}</span></span>`
      }
      at = match.end
    }
    return html + escapeHtml(text.slice(at))
  }
}

/** The terms whose definitions a rendering of `prose` can show. */
async function definitionsFor(snapshot: MatcherSnapshot, prose: string): Promise<Map<string, string>> {
  const ids = new Set<string>()
  for (const match of snapshot.matcher.scan(prose)) {
    for (const entry of match.entries) if (entry.payload) ids.add(entry.payload.term.id)
  }
  return selectDefinitions(em(), [...ids])
}

/**
 * HTML of `text` with its term uses linked: Markdown rendered and sanitized (marking `passage`, if given), or
 * plain text escaped.
 */
export async function renderWithTermLinks(
  text: string,
  markup: Markup,
  labels: TermLinkLabels,
  snapshot: MatcherSnapshot,
  passage?: Passage,
): Promise<string> {
  const prose = markup === 'markdown' ? maskMarkdown(text) : text
  return renderLinked(
    text,
    markup,
    linkerOf(snapshot, await definitionsFor(snapshot, prose), labels),
    passage,
  )
}

function renderLinked(text: string, markup: Markup, linker: TermLinker, passage?: Passage): string {
  if (markup === 'markdown') return renderMarkdown(text, { termLinks: linker, passage })
  return linker(text) ?? escapeHtml(text)
}

/**
 * `POST /annotate`: every use of a term in the prose of `text` (Markdown: code, URLs, link destinations and
 * HTML are not prose, as for validation) as spans with UTF-16 offsets of the input, and the text as HTML with
 * the uses linked (outside links, code and headings). Against the newest committed glossary, as validation.
 */
export async function annotate(input: { text: string; markup: Markup }): Promise<Annotation> {
  const { snapshot, upToDate } = await matcherCache.getFresh()
  const prose = input.markup === 'markdown' ? maskMarkdown(input.text) : input.text
  const definitions = await definitionsFor(snapshot, prose)
  const spans: TermSpan[] = []
  for (const match of nonOverlapping(snapshot.matcher.scan(prose))) {
    const facts = verdictOf(match)
    if (!facts) continue
    spans.push({
      start: match.start,
      end: match.end,
      text: match.text,
      notation: facts.notation,
      term: facts.term,
      kind: facts.kind,
      finding: facts.finding,
      preferred: facts.preferred,
      definition: cut(definitions.get(facts.term.id) ?? ''),
      url: termUrl(facts.term.slug),
    })
  }
  const html = renderLinked(input.text, input.markup, linkerOf(snapshot, definitions, ENGLISH_LABELS))
  return { spans, html, glossary: { version: snapshot.version, upToDate } }
}
