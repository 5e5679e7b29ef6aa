import { randomBytes } from 'node:crypto'
import { redirect, type AppLoadContext } from '@remix-run/node'
import { clearCookieLine, readCookie, setCookieLine, type CookieSpec } from './cookies.server.ts'
import { FLASH_KINDS, type Flash, type ShownFlash } from './flash.ts'
import { isMessageKey } from './i18n.ts'

/**
 * The flash message's cookie: written by an action's answer (usually a redirect, so it also works without
 * JavaScript: post → redirect → page with the message), read and removed by the root loader of the next page.
 * It holds a label key and short values, never free text, so a forged cookie can only show one of our labels.
 */
const FLASH: CookieSpec = { name: 'glossary_flash', path: '/', maxAgeSeconds: 60, httpOnly: true }

/** Values are names and counts; longer ones are cut so the cookie stays far below the 4 KiB limit. */
const MAX_VALUE_LENGTH = 200
const MAX_VALUES = 8

/** The `Set-Cookie` line that shows `flash` on the next page. */
export function flashCookieLine(flash: Flash, context: AppLoadContext): string {
  const written: ShownFlash = { ...cleanFlash(flash), id: randomBytes(6).toString('hex') }
  return setCookieLine(FLASH, JSON.stringify(written), { secure: context.isHttps ?? false })
}

/** A redirect that shows `flash` on the page it leads to (post → redirect → get, with or without JavaScript). */
export function redirectWithFlash(
  to: string,
  flash: Flash,
  context: AppLoadContext,
  init: { headers?: HeadersInit } = {},
) {
  const headers = new Headers(init.headers)
  headers.append('Set-Cookie', flashCookieLine(flash, context))
  return redirect(to, { headers })
}

/**
 * The flash message a request carries (null when none, or when the cookie is not one we wrote) and the
 * `Set-Cookie` line that removes it, so it is shown once.
 */
export function takeFlash(
  request: Request,
  context: AppLoadContext,
): { flash: ShownFlash | null; clearLine: string | null } {
  const raw = readCookie(request.headers.get('cookie'), FLASH.name)
  if (!raw) return { flash: null, clearLine: null }
  return {
    flash: parseFlash(raw),
    clearLine: clearCookieLine(FLASH, { secure: context.isHttps ?? false }),
  }
}

function parseFlash(raw: string): ShownFlash | null {
  let value: unknown
  try {
    value = JSON.parse(raw)
  } catch {
    return null
  }
  if (typeof value !== 'object' || value === null) return null
  const { kind, message, values, id } = value as Record<string, unknown>
  if (!(FLASH_KINDS as readonly unknown[]).includes(kind) || !isMessageKey(message)) return null
  if (typeof id !== 'string' || !/^[0-9a-f]{1,32}$/.test(id)) return null
  const flash = cleanFlash({
    kind: kind as Flash['kind'],
    message,
    values: typeof values === 'object' && values !== null ? (values as Record<string, string>) : undefined,
  })
  return { ...flash, id }
}

function cleanFlash(flash: Flash): Flash {
  const values: Record<string, string> = {}
  for (const [name, value] of Object.entries(flash.values ?? {}).slice(0, MAX_VALUES)) {
    if (typeof value === 'string' || typeof value === 'number')
      values[name] = String(value).slice(0, MAX_VALUE_LENGTH)
  }
  return { kind: flash.kind, message: flash.message, ...(Object.keys(values).length ? { values } : {}) }
}
