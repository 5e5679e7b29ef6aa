import MarkdownIt from 'markdown-it'
import { lineStarts } from '#app/services/markdown/source-lines.ts'
import { HIDDEN_TEXT } from '#app/services/matching/letter-case.ts'

/**
 * Validation of Markdown (decision 022): what is not prose — code, URLs, link destinations and titles,
 * reference definitions, HTML, front matter — is hidden from the matcher, so `github` in a URL or
 * `javascript` after a code fence is not a finding. The text keeps its length and its line breaks: every
 * hidden UTF-16 code unit becomes MASK, so offsets, lines and columns of the findings are the original's, and
 * a finding's text (sliced at those offsets) is the original's too, since no finding can cover a hidden part.
 *
 * Blocks (fenced and indented code, HTML blocks) come from markdown-it's block parser, whose line maps are
 * exact; inline parts (code spans, autolinks, bare URLs, link destinations, inline HTML) are found by the
 * rules below on the text that is left. micromark would give every inline part its exact offsets, but it
 * parsed 1 MB in ~700 ms where validating that megabyte takes ~35 ms; markdown-it's block pass takes ~15 ms.
 */

/**
 * The matcher's character for hidden text (U+FFFC): kept by NFKC, neither a letter nor a space, so the matcher
 * sees a boundary (a word next to hidden code is still found) and never joins words across it into a phrase
 * (`API` `x` `Gateway` is not `API Gateway`); the sentence-start rule looks through it as through markup.
 */
export const MASK = HIDDEN_TEXT

const blocks = new MarkdownIt({ html: true })

/** `text` with its non-prose parts hidden (see the module's comment). */
export function maskMarkdown(text: string): string {
  const hidden: Array<[number, number]> = []
  const starts = lineStarts(text)
  const hideLines = (from: number, to: number) => {
    if (from < to) hidden.push([starts[from]!, starts[Math.min(to, starts.length - 1)]!])
  }

  const frontMatterEnd = frontMatterLines(text)
  hideLines(0, frontMatterEnd)
  // markdown-it's block parser reads LF only; CR LF and a lone CR are one line break each (source-lines.ts).
  const state = new blocks.block.State(text.replace(/\r\n?/g, '\n'), blocks, {}, [])
  blocks.block.tokenize(state, frontMatterEnd, state.lineMax)
  for (const token of state.tokens) {
    if (!token.map) continue
    if (token.type === 'fence' || token.type === 'code_block' || token.type === 'html_block') {
      hideLines(token.map[0], token.map[1])
    }
  }
  let masked = applyMask(text, hidden)

  // Inline parts, on what the blocks left: code spans first (nothing inside one is a link or HTML), then the rest.
  masked = applyMask(masked, codeSpans(masked))
  const inline: Array<[number, number]> = []
  for (const rule of INLINE_RULES) {
    for (const m of masked.matchAll(rule)) {
      const group = m.indices?.[1] ?? m.indices![0]!
      inline.push([group[0], group[1]])
      if (m.indices?.[2]) inline.push([m.indices[2][0], m.indices[2][1]])
    }
  }
  return applyMask(masked, inline)
}

/**
 * Inline rules. Each hides its whole match, or its first group (and second, if any) when it has groups.
 * - reference definitions (`[label]: url "title"`), a whole line;
 * - autolinks (`<https://…>`, `<name@host>`) and inline HTML tags and comments;
 * - link and image destinations and titles (`](url "title")`), keeping the link's text;
 * - bare URLs (`https://…`, `www.…`), as GitHub links them, without trailing punctuation.
 */
const INLINE_RULES: RegExp[] = [
  /^ {0,3}\[(?:[^\]\\\n]|\\.)+\]:[ \t]*\S.*$/dgm,
  /<[A-Za-z][A-Za-z0-9+.-]{1,31}:[^\s<>]*>|<[\w.!#$%&'*+/=?^`{|}~-]+@[\w-]+(?:\.[\w-]+)*>/dg,
  /<\/?[A-Za-z][A-Za-z0-9-]*(?:\s+[A-Za-z_:][\w.:-]*(?:\s*=\s*(?:"[^"]*"|'[^']*'|[^\s"'=<>`]+))?)*\s*\/?>|<!--[\s\S]*?-->/dg,
  /\]\(\s*(<[^<>\n]*>|[^\s()]*(?:\([^\s()]*\)[^\s()]*)*)(?:\s+("[^"]*"|'[^']*'|\([^()]*\)))?\s*\)/dg,
  /(?:\b[A-Za-z][A-Za-z0-9+.-]{1,31}:\/\/|\bwww\.)[^\s<>]*[^\s<>?!.,:;*_~'")\]]/dg,
]

/**
 * Code spans as CommonMark reads them: a run of N backticks up to the next run of exactly N in the same
 * paragraph (no blank line between); an opening run with no such closing run is text, and a backslash before
 * a run makes its first backtick text. Linear: each run is paired through the next run of its length.
 */
function codeSpans(text: string): Array<[number, number]> {
  const runs: Array<{ at: number; length: number; paragraph: number }> = []
  let paragraph = 0
  for (const m of text.matchAll(/`+|\n[ \t]*(?=\r?\n)/g)) {
    if (m[0][0] !== '`') {
      paragraph++
      continue
    }
    const escaped = m.index > 0 && text[m.index - 1] === '\\' ? 1 : 0
    if (m[0].length > escaped) runs.push({ at: m.index + escaped, length: m[0].length - escaped, paragraph })
  }
  const nextSame = new Array<number>(runs.length).fill(-1)
  const lastSeen = new Map<string, number>()
  for (let j = runs.length - 1; j >= 0; j--) {
    const key = `${runs[j]!.paragraph}:${runs[j]!.length}`
    nextSame[j] = lastSeen.get(key) ?? -1
    lastSeen.set(key, j)
  }
  const spans: Array<[number, number]> = []
  for (let j = 0; j < runs.length; j++) {
    const close = nextSame[j]!
    if (close === -1) continue
    spans.push([runs[j]!.at, runs[close]!.at + runs[close]!.length])
    j = close
  }
  return spans
}

/** The number of lines of a YAML front matter (`---` on the first line up to a `---` or `...` line), or 0. */
function frontMatterLines(text: string): number {
  const match = /^---[ \t]*\r?\n(?:.*\r?\n)*?(?:---|\.\.\.)[ \t]*(?:\r?\n|$)/.exec(text)
  if (!match) return 0
  const breaks = match[0].match(/\r\n?|\n/g)?.length ?? 0
  return breaks + (/[\r\n]$/.test(match[0]) ? 0 : 1)
}

/** `text` with every code unit of the ranges but line breaks replaced by MASK. */
function applyMask(text: string, ranges: Array<[number, number]>): string {
  if (ranges.length === 0) return text
  ranges.sort((a, b) => a[0] - b[0])
  const parts: string[] = []
  let at = 0
  for (const [start, end] of ranges) {
    const from = Math.max(start, at)
    if (from >= end) continue
    parts.push(text.slice(at, from), text.slice(from, end).replace(/[^\r\n]/g, MASK))
    at = end
  }
  parts.push(text.slice(at))
  return parts.join('')
}
