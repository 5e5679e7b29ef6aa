import { redirect } from '@remix-run/node'
import { log } from '#app/lib/logger.server.ts'
import { SsoFailure } from '#app/services/sso/accounts.server.ts'
import type { SsoFailureCode } from '#domain/sso.ts'

/**
 * The one mapping of a failed browser sign-in to a page (spec "Browser redirects"; the codes are
 * `SSO_FAILURE_CODES` in domain/sso.ts): 302 to `/login?sso=<code>`, and `server` for anything unexpected
 * (logged with its stack, never shown). The sign-in routes and the login page's proxy sign-up use it; the API
 * answers the same `SsoFailure` through the error mapper like any AppError.
 */

/** The login page that explains a failure code. */
export function ssoFailurePath(code: SsoFailureCode): string {
  return `/login?sso=${code}`
}

/**
 * Runs one step of a sign-in; a failure becomes the redirect to the login page, carrying `headers` (the
 * callback clears the flow cookie in every answer). A thrown Response (a route's own redirect) passes through.
 */
export async function orSsoFailure(
  step: string,
  run: () => Promise<Response>,
  headers?: Headers,
): Promise<Response> {
  try {
    return await run()
  } catch (error) {
    if (error instanceof Response) throw error
    if (error instanceof SsoFailure) return redirect(ssoFailurePath(error.ssoCode), { headers })
    log().error({ err: error }, `sso ${step} failed`)
    return redirect(ssoFailurePath('server'), { headers })
  }
}
