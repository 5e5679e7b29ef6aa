import { parse, serialize } from 'cookie'

/**
 * The one place cookies are read from a `Cookie` header and written as `Set-Cookie` lines (issue 26): the
 * session (`app/services/auth/sessions.server.ts`), the SSO flow (`app/services/sso/flow.server.ts`) and the
 * language preference (`app/routes/lang.tsx`, read by the root loader) each declare their cookie as a
 * `CookieSpec` and go through here. Reading and encoding are the `cookie` package's (the one Remix and Express
 * use); every cookie of the service is `SameSite=Lax`, and `Secure` when the request came over HTTPS.
 */

export interface CookieSpec {
  name: string
  path: string
  maxAgeSeconds: number
  /** Hidden from scripts: the session and the SSO flow are; the language preference need not be. */
  httpOnly: boolean
}

/** The `Set-Cookie` line that stores `value`. */
export function setCookieLine(spec: CookieSpec, value: string, options: { secure: boolean }): string {
  return line(spec, value, spec.maxAgeSeconds, options.secure)
}

/** The `Set-Cookie` line that removes the cookie (empty value, `Max-Age=0`, the same name and path). */
export function clearCookieLine(spec: CookieSpec, options: { secure: boolean }): string {
  return line(spec, '', 0, options.secure)
}

/** The value of the first cookie called `name` in a `Cookie` header; undefined when absent or empty. */
export function readCookie(cookieHeader: string | null | undefined, name: string): string | undefined {
  if (!cookieHeader) return undefined
  return parse(cookieHeader)[name] || undefined
}

function line(spec: CookieSpec, value: string, maxAge: number, secure: boolean): string {
  // `serialize` checks the name, value and path against RFC 6265 and encodes the value; the attributes after
  // it keep the order the service has always sent (`name=value; Path; HttpOnly; SameSite; Max-Age; Secure`).
  const attributes = [serialize(spec.name, value, { path: spec.path })]
  if (spec.httpOnly) attributes.push('HttpOnly')
  attributes.push('SameSite=Lax', `Max-Age=${maxAge}`)
  if (secure) attributes.push('Secure')
  return attributes.join('; ')
}
