import { redirect, type LoaderFunctionArgs } from '@remix-run/node'
import { getSessionActor, isHttpsPage } from '#app/pages/session.server.ts'
import { orSsoFailure } from '#app/pages/sso-failure.server.ts'
import { ssoRedirectUri } from '#app/lib/public-origin.server.ts'
import { SsoFailure } from '#app/services/sso/accounts.server.ts'
import { flowCookie, startSignIn } from '#app/services/sso/flow.server.ts'

/**
 * `GET /auth/sso/start` (spec "Browser redirects"): 302 to the authorization endpoint with the flow cookie, or
 * 302 `/login?sso=<code>`. `?intent=refresh` (from sso-refresh) binds the flow to the signed-in account.
 */
export async function loader({ request, context }: LoaderFunctionArgs) {
  const secure = isHttpsPage(context)
  return orSsoFailure('start', async () => {
    let refreshUserId: string | undefined
    if (new URL(request.url).searchParams.get('intent') === 'refresh') {
      const actor = await getSessionActor(request)
      if (!actor) throw new SsoFailure('identity_mismatch', 'A refresh needs the signed-in account.')
      refreshUserId = actor.user.id
    }
    const { location, cookieValue } = await startSignIn({
      redirectUri: ssoRedirectUri({ headers: request.headers, isHttps: secure }),
      refreshUserId,
    })
    return redirect(location, { headers: { 'Set-Cookie': flowCookie(cookieValue, secure) } })
  })
}
