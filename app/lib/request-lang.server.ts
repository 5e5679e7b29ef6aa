import { AsyncLocalStorage } from 'node:async_hooks'
import { readCookie } from '#app/lib/cookies.server.ts'
import { detectLang, LANG_COOKIE, type Lang } from '#app/lib/i18n.ts'

/**
 * The language of the page request being handled, for server code that words a message for the reader
 * without being handed the request: the form adapter (app/pages/forms.server.ts) translates a refused form's
 * messages with it, so no route passes a language. The HTTP layer runs every page request inside
 * `withPageLang` (app/server/http.server.ts); the API never does, and outside a page request the language is
 * English, the API's.
 */
const storage = new AsyncLocalStorage<Lang>()

/** The language of a page request: the `lang` cookie, else Accept-Language (the root loader's rule). */
export function langOfRequest(headers: {
  cookie?: string | null | undefined
  acceptLanguage?: string | null | undefined
}): Lang {
  return detectLang(readCookie(headers.cookie, LANG_COOKIE), headers.acceptLanguage ?? null)
}

/** Runs `fn` (a page request's handling) with `lang` as the request's language. */
export function withPageLang<T>(lang: Lang, fn: () => T): T {
  return storage.run(lang, fn)
}

/** The language of the page request being handled; English outside one. */
export function pageLang(): Lang {
  return storage.getStore() ?? 'en'
}
