import MarkdownIt from 'markdown-it'
import sanitizeHtml from 'sanitize-html'

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
 */

const markdown = new MarkdownIt({ html: false, linkify: true, typographer: false, breaks: false })

const ATTACHMENT_PATH = /^\/api\/v1\/attachments\/[A-Za-z0-9._~%/-]+$/
const HTTP_URL = /^https?:\/\//i

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
  },
  allowedClasses: { code: ['language-*'] },
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

/** Renders Markdown to sanitized HTML, safe to insert into a page as is. */
export function renderMarkdown(md: string): string {
  return sanitizeHtml(markdown.render(md), SANITIZE_OPTIONS)
}
