import { SheetQuerySchema } from '#app/schemas/share.ts'
import { loadSheet } from '#app/services/share/sheet.server.ts'
import { SHEET_MAX_ROWS } from '#domain/share.ts'
import type { ShareBuilderData } from '#app/components/share/share-builder.tsx'
import { orErrorPage } from './forms.server.ts'
import { getSessionActor, requireUser } from './session.server.ts'

/** The query of a page as an object; a repeated key becomes an array, empty values are dropped. */
export function rawQuery(url: URL): Record<string, string | string[]> {
  const raw: Record<string, string | string[]> = {}
  for (const key of new Set(url.searchParams.keys())) {
    const all = url.searchParams.getAll(key).filter((v) => v !== '')
    if (all.length) raw[key] = all.length === 1 ? all[0]! : all
  }
  return raw
}

/** The term list with the sheet's filters (and nothing else), where the cap note sends readers. */
function fullListHref(url: URL): string {
  const params = new URLSearchParams()
  for (const key of ['q', 'status', 'domain', 'category', 'tag']) {
    for (const value of url.searchParams.getAll(key)) if (value) params.append(key, value)
  }
  const text = params.toString()
  return `/terms${text ? `?${text}` : ''}`
}

/**
 * The loader of `/sheet` and `/embed` (spec part 9). Both need a signed-in session (an API key is not one).
 * `/sheet` sends a visitor to the login page, which returns to the sheet. `/embed` cannot: inside another
 * site's frame the session cookie is not sent (`SameSite=Lax`) and the login page refuses to be framed, so
 * it answers a page with a sign-in link that opens in a new tab, pointing at the same view as `/sheet`.
 */
export async function sheetLoader(request: Request, mode: 'sheet' | 'embed') {
  const url = new URL(request.url)
  const sheetPath = `/sheet${url.search}`
  if (mode === 'sheet') await requireUser(request)
  else if (!(await getSessionActor(request))) {
    return {
      signedIn: false as const,
      loginHref: `/login?redirectTo=${encodeURIComponent(sheetPath)}`,
    }
  }
  const query = SheetQuerySchema.parse(rawQuery(url))
  const sheet = await orErrorPage(() => loadSheet(query))
  return {
    signedIn: true as const,
    mode,
    query,
    ...sheet,
    max: SHEET_MAX_ROWS,
    fullListHref: fullListHref(url),
  }
}

/**
 * The builder's state from the list page's address: the list's filters, and once the builder's form was sent
 * (`share=1`) its columns and switches (an unchecked box sends nothing, so there absent means off).
 */
export function shareBuilderData(url: URL): ShareBuilderData {
  const raw = rawQuery(url)
  const built = url.searchParams.get('share') === '1'
  const parsed = SheetQuerySchema.parse(built ? raw : { ...raw, columns: undefined })
  const on = (key: string, fallback: boolean) => (built ? url.searchParams.get(key) === '1' : fallback)
  return {
    origin: url.origin,
    built,
    options: {
      columns: parsed.columns,
      compact: on('compact', false),
      links: on('links', true),
      border: on('border', true),
      filters: {
        q: parsed.q,
        status: parsed.status,
        domain: parsed.domain,
        category: parsed.category,
        tag: parsed.tag,
      },
    },
  }
}
