import { redirect, type LoaderFunctionArgs } from '@remix-run/node'
import { log } from '#app/lib/logger.server.ts'
import { clientOfPage, getSessionActor, isHttpsPage } from '#app/pages/session.server.ts'
import { ssoRedirectUri } from '#app/lib/public-origin.server.ts'
import { sessionCookie } from '#app/services/auth/sessions.server.ts'
import { SsoFailure } from '#app/services/sso/accounts.server.ts'
import { clearedFlowCookie, finishSignIn, readFlowCookie } from '#app/services/sso/flow.server.ts'

/**
 * `GET /auth/sso/callback` (spec "Browser redirects"): always 302 — home (or `/settings?ssoRefresh=success`)
 * with the session cookie, or `/login?sso=<code>`. The flow cookie is cleared in every answer, so a state or
 * a code is used once.
 */
export async function loader({ request, context }: LoaderFunctionArgs) {
  const secure = isHttpsPage(context)
  const headers = new Headers({ 'Set-Cookie': clearedFlowCookie(secure) })
  try {
    const actor = await getSessionActor(request)
    const { token, redirectTo } = await finishSignIn({
      search: new URL(request.url).searchParams,
      cookieValue: readFlowCookie(request.headers.get('cookie')),
      redirectUri: ssoRedirectUri({ headers: request.headers, isHttps: secure }),
      signedInUserId: actor?.user.id,
      client: clientOfPage(request, context),
    })
    if (token) headers.append('Set-Cookie', sessionCookie(token, { secure }))
    return redirect(redirectTo, { headers })
  } catch (error) {
    if (error instanceof SsoFailure) return redirect(`/login?sso=${error.code}`, { headers })
    log().error({ err: error }, 'sso callback failed')
    return redirect('/login?sso=server', { headers })
  }
}
