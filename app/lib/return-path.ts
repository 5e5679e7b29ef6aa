/**
 * The one rule of every in-app return address (issue 26, decision 012 "Round two"): the login page's
 * `redirectTo` (query and form field), the `Referer` the language switch returns to, and whatever later asks to
 * send a browser back "where it came from". The answer is always a path on this origin, normalized the way a
 * browser reads it, or the fallback — never an error, since a return address is a convenience.
 *
 * Browsers are lenient readers of a `Location`: they drop tabs and line breaks anywhere (`/\t/evil` becomes
 * `//evil`), read `\` as `/`, and resolve `//host`, `/.//host` and `http:host` to another origin. So a
 * candidate is refused when any form of it — as given, or percent-decoded once or more, since some layer may
 * decode it again — holds a control character or white space, a backslash before its query, or begins with
 * `//`; and the path the URL parser makes of it must still be a single-slash path on the same origin.
 */

/** The origin candidates are resolved against; `.invalid` can never be a real host. */
const BASE = 'http://return-path.invalid'
const BASE_ORIGIN = new URL(BASE).origin

/** Longer candidates are refused: nothing the service links to is this long, and a header has limits. */
export const RETURN_PATH_MAX_LENGTH = 2048

/** Controls (C0, DEL, C1), format characters (zero-width, bidi) and every kind of space. */
const CONTROL_OR_SPACE = /[\p{Cc}\p{Cf}\p{Z}\s]/u

/** How many times a candidate is percent-decoded to look for a hidden form (`%252F` → `%2F` → `/`). */
const DECODE_ROUNDS = 3

export interface ReturnPathOptions {
  /**
   * Origins an absolute candidate (a `Referer`) may name; its path is then judged by the same rule. Without
   * them only paths are accepted.
   */
  allowedOrigins?: readonly string[]
  /** The answer for anything refused (default `/`). */
  fallback?: string
}

/** A path on this origin for `candidate`, or `fallback` when it is anything else or unsafe in any form. */
export function returnPath(candidate: unknown, options: ReturnPathOptions = {}): string {
  const fallback = options.fallback ?? '/'
  if (typeof candidate !== 'string' || candidate.length === 0 || candidate.length > RETURN_PATH_MAX_LENGTH) {
    return fallback
  }
  if (candidate.startsWith('/')) return normalizedPath(candidate) ?? fallback
  const fromOrigin = pathOfAllowedUrl(candidate, options.allowedOrigins ?? [])
  return (fromOrigin !== undefined && normalizedPath(fromOrigin)) || fallback
}

/** The path of an absolute http(s) URL whose origin is allowed, or undefined. */
function pathOfAllowedUrl(candidate: string, allowedOrigins: readonly string[]): string | undefined {
  if (allowedOrigins.length === 0 || CONTROL_OR_SPACE.test(candidate)) return undefined
  let url: URL
  try {
    url = new URL(candidate)
  } catch {
    return undefined
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return undefined
  if (url.username || url.password || !allowedOrigins.includes(url.origin)) return undefined
  return url.pathname + url.search + url.hash
}

/** The normalized same-origin path of a candidate that starts with `/`, or undefined. */
function normalizedPath(candidate: string): string | undefined {
  if (!isSafeInEveryForm(candidate)) return undefined
  let url: URL
  try {
    url = new URL(candidate, BASE)
  } catch {
    return undefined
  }
  if (url.origin !== BASE_ORIGIN) return undefined
  // Dot segments can make a double slash (`/.//evil` → `//evil`), so the parser's answer is checked again.
  const path = url.pathname + url.search + url.hash
  return isSafeInEveryForm(path) ? path : undefined
}

function isSafeInEveryForm(text: string): boolean {
  const forms = decodedForms(text)
  return forms !== undefined && forms.every(isSafeForm)
}

/** The text and its successive percent-decodings; undefined when an escape is malformed. */
function decodedForms(text: string): string[] | undefined {
  const forms = [text]
  let current = text
  for (let round = 0; round < DECODE_ROUNDS && current.includes('%'); round++) {
    let next: string
    try {
      next = decodeURIComponent(current)
    } catch {
      return undefined
    }
    if (next === current) break
    forms.push(next)
    current = next
  }
  return forms
}

function isSafeForm(text: string): boolean {
  if (!text.startsWith('/') || text.startsWith('//')) return false
  if (CONTROL_OR_SPACE.test(text)) return false
  const end = text.search(/[?#]/)
  const path = end < 0 ? text : text.slice(0, end)
  return !path.includes('\\')
}
