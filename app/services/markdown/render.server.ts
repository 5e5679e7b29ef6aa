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
 * Renders Markdown to sanitized HTML, safe to insert into a page as is. With `passage` (a character range of
 * `md`), the blocks that hold it are marked (see `markPassage`).
 */
export function renderMarkdown(md: string, options: { passage?: Passage } = {}): string {
  if (!options.passage) return sanitizeHtml(markdown.render(md), SANITIZE_OPTIONS)
  const env = {}
  const tokens = markdown.parse(md, env)
  markPassage(tokens, linesOf(md, options.passage))
  return sanitizeHtml(markdown.renderer.render(tokens, markdown.options, env), SANITIZE_OPTIONS)
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
