import MarkdownIt, { type Token } from 'markdown-it'
import sanitizeHtml from 'sanitize-html'
import { PASSAGE_ANCHOR, type Passage } from '#app/lib/passage.ts'
import { lineOf, lineStarts } from './source-lines.ts'

/**
 * Markdown → safe HTML for wiki pages and relation evidence. Two maintained layers, each enough on its own
 * for the common attacks: markdown-it with raw HTML disabled (a `<script>` in the source is shown as text,
 * and its link validator refuses `javascript:`/`vbscript:`/`file:` URLs), then sanitize-html with an
 * allow-list, so nothing the renderer might let through (a future option, a parser bug) reaches the page:
 * - tags: text structure, lists, code, tables, links and images only (no script, style, iframe, form, svg…);
 * - attributes: `href`/`title` on links, `src`/`alt`/`title` on images, `start` on ordered lists, the
 *   `language-*` class on code, `text-align` on table cells; never an `on…` handler or a `style` elsewhere;
 * - links: http, https, mailto or relative (same site); protocol-relative `//host` is refused;
 * - images: http(s), or our own attachments (`/api/v1/attachments/...`); anything else is dropped.
 * Links get `rel="nofollow noopener noreferrer"`.
 * The one addition of our own is the passage a search result points at (below): the class `passage` and the
 * id `passage` on the blocks that hold it, nothing a page's source can produce.
 */

const markdown = new MarkdownIt({ html: false, linkify: true, typographer: false, breaks: false })

const ATTACHMENT_PATH = /^\/api\/v1\/attachments\/[A-Za-z0-9._~%/-]+$/
const HTTP_URL = /^https?:\/\//i

/** The block tags that can carry the passage's mark, and its id (with that one value only). */
const PASSAGE_BLOCKS = ['p', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'li', 'pre', 'code', 'tr']
const PASSAGE_ID = { name: 'id', multiple: false, values: [PASSAGE_ANCHOR] }

const SANITIZE_OPTIONS: sanitizeHtml.IOptions = {
  allowedTags: [
    'p',
    'h1',
    'h2',
    'h3',
    'h4',
    'h5',
    'h6',
    'blockquote',
    'ul',
    'ol',
    'li',
    'code',
    'pre',
    'em',
    'strong',
    's',
    'del',
    'a',
    'img',
    'table',
    'thead',
    'tbody',
    'tr',
    'th',
    'td',
    'hr',
    'br',
  ],
  allowedAttributes: {
    a: ['href', 'title', 'rel'],
    img: ['src', 'alt', 'title'],
    ol: ['start'],
    code: ['class'],
    th: ['style'],
    td: ['style'],
    ...Object.fromEntries(PASSAGE_BLOCKS.map((tag) => [tag, ['class', PASSAGE_ID]])),
  },
  allowedClasses: {
    ...Object.fromEntries(PASSAGE_BLOCKS.map((tag) => [tag, ['passage']])),
    code: ['language-*', 'passage'],
  },
  allowedStyles: {
    th: { 'text-align': [/^(left|right|center)$/] },
    td: { 'text-align': [/^(left|right|center)$/] },
  },
  allowedSchemes: ['http', 'https', 'mailto'],
  allowedSchemesByTag: { img: ['http', 'https'] },
  allowedSchemesAppliedToAttributes: ['href', 'src', 'cite'],
  allowProtocolRelative: false,
  disallowedTagsMode: 'discard',
  transformTags: {
    a: (tagName, attribs) => ({ tagName, attribs: { ...attribs, rel: 'nofollow noopener noreferrer' } }),
    img: (tagName, attribs) => {
      const src = (attribs.src ?? '').trim()
      const allowed = HTTP_URL.test(src) || ATTACHMENT_PATH.test(src)
      const { src: _src, ...rest } = attribs
      return { tagName, attribs: allowed ? { ...rest, src } : rest }
    },
  },
  // An image whose address was not allowed is left out entirely (its alt text goes with it).
  exclusiveFilter: (frame) => frame.tag === 'img' && !frame.attribs.src,
}

/**
 * Turns a run of prose into HTML with its term uses linked (escaped by the caller), or undefined to leave it
 * as text. Called for text outside links, code, images and headings only.
 */
export type TermLinker = (text: string) => string | undefined

/**
 * Renders Markdown to sanitized HTML, safe to insert into a page as is. With `passage` (a character range of
 * `md`), the blocks that hold it are marked (see `markPassage`); with `termLinks`, the prose outside links,
 * code, images and headings goes through it (see `linkTerms`).
 */
export function renderMarkdown(
  md: string,
  options: { passage?: Passage; termLinks?: TermLinker } = {},
): string {
  if (!options.passage && !options.termLinks) return sanitizeHtml(markdown.render(md), SANITIZE_OPTIONS)
  const env = {}
  const tokens = markdown.parse(options.termLinks ? md.replace(SLOT_MARKS, '\ufffd') : md, env)
  if (options.passage) markPassage(tokens, linesOf(md, options.passage))
  const linked = options.termLinks ? linkTerms(tokens, options.termLinks) : []
  const html = sanitizeHtml(markdown.renderer.render(tokens, markdown.options, env), SANITIZE_OPTIONS)
  return linked.length ? html.replace(SLOT, (_, n: string) => linked[Number(n)]!) : html
}

/**
 * Where a linked run of prose goes: a slot, two private-use characters around its number, stands in for it
 * through rendering and sanitizing, and is replaced by the linker's HTML afterwards. The linker's HTML is made
 * by our code with every text in it escaped, so it need not go through the sanitizer (which, at 4× the bytes
 * with the tooltips, cost more than the matching). A page's own private-use slot characters are replaced
 * before parsing, so nothing in its source can name a slot.
 */
const SLOT = /\ue000(\d+)\ue001/g
const SLOT_MARKS = /[\ue000\ue001]/g

/**
 * Replaces the text tokens of prose with slots for what `linker` makes of them; answers the HTML of each slot.
 * Never inside a link (a link in a link is invalid and unusable), code (inline code is its own token, code
 * blocks are not inline), an image's alt text, or a heading (its text is the anchor readers and tables of
 * contents point at).
 */
function linkTerms(tokens: Token[], linker: TermLinker): string[] {
  const slots: string[] = []
  tokens.forEach((token, i) => {
    if (token.type !== 'inline' || !token.children || tokens[i - 1]?.type === 'heading_open') return
    let inLink = 0
    for (const child of token.children) {
      if (child.type === 'link_open') inLink++
      if (child.type === 'link_close') inLink--
      const html = child.type === 'text' && inLink === 0 ? linker(child.content) : undefined
      if (html === undefined) continue
      child.content = `\ue000${slots.length}\ue001`
      slots.push(html)
    }
  })
  return slots
}

/** The first and last source line (0-based, as markdown-it counts them) of a character range. */
function linesOf(md: string, passage: Passage): [number, number] {
  const starts = lineStarts(md)
  return [lineOf(starts, passage.start), lineOf(starts, Math.max(passage.start, passage.end - 1))]
}

/**
 * Marks the innermost blocks whose source lines meet `lines`: paragraphs, headings, code, table rows, and the
 * items of tight lists (whose paragraphs are not rendered). The first gets the id, so the page opens there.
 * A block is the unit: Markdown's inline formatting moves characters, so a range inside a block cannot be
 * mapped onto the rendered text exactly.
 */
function markPassage(tokens: Token[], [first, last]: [number, number]): void {
  let anchored = false
  tokens.forEach((token, i) => {
    if (!token.map || token.map[0] > last || token.map[1] <= first) return
    const next = tokens[i + 1]
    const block =
      token.type === 'heading_open' ||
      token.type === 'fence' ||
      token.type === 'code_block' ||
      token.type === 'tr_open' ||
      (token.type === 'paragraph_open' && !token.hidden) ||
      (token.type === 'list_item_open' && next?.type === 'paragraph_open' && next.hidden)
    if (!block) return
    token.attrJoin('class', 'passage')
    if (!anchored) token.attrSet('id', PASSAGE_ANCHOR)
    anchored = true
  })
}
