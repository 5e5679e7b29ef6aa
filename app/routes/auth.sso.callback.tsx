import { redirect, type LoaderFunctionArgs } from '@remix-run/node'
import { clientOfPage, getSessionActor, isHttpsPage } from '#app/pages/session.server.ts'
import { orSsoFailure } from '#app/pages/sso-failure.server.ts'
import { ssoRedirectUri } from '#app/lib/public-origin.server.ts'
import { sessionCookie } from '#app/services/auth/sessions.server.ts'
import { clearedFlowCookie, finishSignIn, readFlowCookie } from '#app/services/sso/flow.server.ts'

/**
 * `GET /auth/sso/callback` (spec "Browser redirects"): always 302 — home (or `/settings?ssoRefresh=success`)
 * with the session cookie, or `/login?sso=<code>`. The flow cookie is cleared in every answer, and the flow's
 * state is recorded as used once a code was redeemed with it (decision 018), so a replayed flow signs no one in.
 */
export async function loader({ request, context }: LoaderFunctionArgs) {
  const secure = isHttpsPage(context)
  const headers = new Headers({ 'Set-Cookie': clearedFlowCookie(secure) })
  return orSsoFailure(
    'callback',
    async () => {
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
    },
    headers,
  )
}
