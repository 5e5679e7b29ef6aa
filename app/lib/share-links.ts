import { DEFAULT_SHEET_COLUMNS, type SheetColumn } from '#domain/share.ts'

/**
 * The links the "share this view" builder hands out (`/sheet?…`, and the `<iframe>` of `/embed?…`). Shared by
 * the server (no-JavaScript builder) and the browser (live builder), so it reads no environment.
 */
export interface SheetLinkOptions {
  columns: readonly SheetColumn[]
  compact: boolean
  links: boolean
  border: boolean
  filters: { q?: string; status?: string; domain?: string[]; category?: string[]; tag?: string[] }
}

/** The query string of a sheet link: only what differs from the defaults, filters last. */
export function sheetQueryString(options: SheetLinkOptions): string {
  const params = new URLSearchParams()
  const columns = options.columns.join(',')
  if (columns !== DEFAULT_SHEET_COLUMNS.join(',')) params.set('columns', columns)
  if (options.compact) params.set('compact', '1')
  if (!options.links) params.set('links', '0')
  if (!options.border) params.set('border', '0')
  const f = options.filters
  if (f.q) params.set('q', f.q)
  if (f.status) params.set('status', f.status)
  for (const d of f.domain ?? []) params.append('domain', d)
  for (const c of f.category ?? []) params.append('category', c)
  for (const t of f.tag ?? []) params.append('tag', t)
  const text = params.toString()
  return text ? `?${text}` : ''
}

/** HTML attribute escaping for the snippet. */
const attr = (value: string) =>
  value.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;')

/** The `<iframe>` snippet that embeds `/embed` with the same options. */
export function embedSnippet(origin: string, options: SheetLinkOptions, title: string): string {
  const src = `${origin}/embed${sheetQueryString(options)}`
  return `<iframe src="${attr(src)}" title="${attr(title)}" width="100%" height="480" style="border:0" loading="lazy"></iframe>`
}
