import { UpdateTermSchema } from '#app/schemas/terms.ts'
import { updateTerm } from '#app/services/terms/write.server.ts'
import { em } from '#db/orm.ts'
import { dispatch } from '#tests/http.ts'

/** Calls the real API dispatcher (every registered endpoint, the real auth gate) with a JSON body. */
export const call = dispatch

/** The error code of a failed response. */
export async function errorCode(res: Response): Promise<string> {
  return ((await res.json()) as { error: { code: string } }).error.code
}

/** Saves a new revision of a term (a changed definition) through the glossary service. */
export async function editTermDefinition(
  termId: string,
  baseRevision: number,
  definition: string,
  actorId: string,
): Promise<void> {
  await updateTerm({
    idOrSlug: termId,
    input: UpdateTermSchema.parse({ baseRevision, definition }),
    actorId,
  })
}

export interface QueueRow {
  source_type: string
  source_id: string
  revision: number
  action: 'index' | 'remove'
  status: string
}

/** The index queue rows of one source. */
export async function queueRows(sourceType: string, sourceId: string): Promise<QueueRow[]> {
  return em().execute<QueueRow[]>(
    `select source_type, source_id, revision, action, status from rag_index_queue
      where source_type = ? and source_id = ? order by created_at, status`,
    [sourceType, sourceId],
  )
}

const SAFE_TAGS = new Set(
  'p h1 h2 h3 h4 h5 h6 blockquote ul ol li code pre em strong s del a img table thead tbody tr th td hr br'.split(
    ' ',
  ),
)

/**
 * Throws unless every real tag in the HTML (text is escaped, so a literal `<` only starts a tag) is on the
 * allow-list, carries no event-handler attribute and no script-capable URL.
 */
export function assertSafeHtml(html: string): void {
  if (/<script/i.test(html)) throw new Error(`script element in ${html}`)
  for (const [tag] of html.matchAll(/<\/?([a-zA-Z][a-zA-Z0-9]*)\b[^>]*>/g)) {
    const name = /^<\/?([a-zA-Z0-9]+)/.exec(tag)![1]!.toLowerCase()
    if (!SAFE_TAGS.has(name)) throw new Error(`element <${name}> in ${html}`)
    if (/\son[a-z]+\s*=/i.test(tag)) throw new Error(`event handler attribute in ${html}`)
    if (/\sstyle\s*=/i.test(tag) && !/^<t[hd]\s+style="text-align:(left|right|center)"\s*>$/.test(tag)) {
      throw new Error(`style attribute in ${html}`)
    }
    for (const [, url] of tag.matchAll(/\s(?:href|src)\s*=\s*"([^"]*)"/gi)) {
      // What a browser would see: entities decoded, tabs and line breaks dropped (the URL parser does).
      const decoded = url!
        .replace(/&#(x?)([0-9a-f]+);?/gi, (_m, hex: string, n: string) =>
          String.fromCodePoint(parseInt(n, hex ? 16 : 10)),
        )
        .replace(/&colon;/gi, ':')
        .replace(/[\t\n\r]/g, '')
        .trim()
      const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(decoded)?.[1]?.toLowerCase()
      if (scheme && !['http', 'https', 'mailto'].includes(scheme)) throw new Error(`unsafe URL in ${html}`)
      if (decoded.startsWith('//')) throw new Error(`protocol-relative URL in ${html}`)
    }
  }
}

/** Payloads that try to run script through Markdown. */
export const XSS_PAYLOADS = [
  '<script>alert(1)</script>',
  '<img src=x onerror=alert(1)>',
  '[click](javascript:alert(1))',
  '[click](JaVaScRiPt:alert(1))',
  '[click](jav&#x09;ascript:alert(1))',
  '[click](&#106;avascript:alert(1))',
  '![x](javascript:alert(1))',
  '![x](data:image/svg+xml;base64,PHN2ZyBvbmxvYWQ9YWxlcnQoMSk+)',
  '<a href="javascript:alert(1)">x</a>',
  '<iframe src="https://evil.example"></iframe>',
  '<svg onload=alert(1)>',
  '<style>body{display:none}</style>',
  '[x](vbscript:msgbox(1))',
  '<div style="background:url(javascript:alert(1))" onclick="alert(1)">x</div>',
  '[a]: javascript:alert(1)\n\n[link][a]',
  '`<script>alert(1)</script>`',
  '```html\n<script>alert(1)</script>\n```',
  '<<script>script>alert(1)<</script>/script>',
  '[x](" onmouseover="alert(1))',
  '![x](https://ok.example/a.png" onerror="alert(1))',
]
