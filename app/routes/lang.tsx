import { redirect, type ActionFunctionArgs } from '@remix-run/node'
import { setCookieLine, type CookieSpec } from '#app/lib/cookies.server.ts'
import { isLang, LANG_COOKIE } from '#app/lib/i18n.ts'
import { isHttpsPage, returnPathOf } from '#app/pages/session.server.ts'

/** The label language preference, kept a year; nothing secret, so scripts may read it. */
const LANG: CookieSpec = { name: LANG_COOKIE, path: '/', maxAgeSeconds: 31536000, httpOnly: false }

/**
 * Switches the label language (a preference cookie only); returns to the page the form was on, as its
 * `Referer` says — by the one return-address rule, so only a path of an allowed origin, else `/`.
 */
export async function action({ request, context }: ActionFunctionArgs) {
  const form = await request.formData()
  const lang = form.get('lang')
  return redirect(returnPathOf(request.headers.get('referer')), {
    headers: isLang(lang)
      ? { 'Set-Cookie': setCookieLine(LANG, lang, { secure: isHttpsPage(context) }) }
      : {},
  })
}

export async function loader() {
  return redirect('/')
}
