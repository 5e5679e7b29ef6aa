import { AppError } from './errors.server.ts'
import { getConfig } from './config.server.ts'
import { authenticateApiKey, authenticateSession } from '#app/services/auth/authenticate.server.ts'
import { readProxyHeaders, trustedProxyState, userFromProxy } from '#app/services/sso/proxy.server.ts'
import { hasRole, type Actor, type Role, type Scope } from '#domain/identity.ts'

/**
 * The one auth gate: every API endpoint declares an `Access` rule (checked by `authorize`) and every page
 * loader/action calls `requireUser` / `requireUserAction` (app/pages/session.server.ts); both end here. It
 * implements the spec's scope table, the roles and the cross-site check.
 */

export type Access =
  /** Anyone; a state-changing request that carries a foreign Origin is still refused. */
  | { kind: 'public' }
  /** A signed-in cookie session only (API keys get 403), optionally with a minimum role. */
  | { kind: 'session'; minRole?: Role }
  /** A session with the minimum role (default viewer), or an API key holding `scope`. */
  | { kind: 'scoped'; scope: Scope; minRole?: Role }

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS'])

/** Reads request headers by name, case-insensitively; a Fetch `Headers` is one. */
export interface HeaderReader {
  get(name: string): string | null
}

/** What the gate reads of a request: a Fetch `Request` (pages) or the API's lighter one (app/api/api-request.server.ts). */
export interface RequestHead {
  readonly method: string
  readonly headers: HeaderReader
}

/** The origin a browser says the request came from: `Origin`, else the origin of `Referer`. */
function requestOrigin(request: RequestHead): string | undefined {
  const origin = request.headers.get('origin')
  if (origin && origin !== 'null') return origin
  const referer = request.headers.get('referer')
  if (!referer) return origin ?? undefined
  try {
    return new URL(referer).origin
  } catch {
    return 'invalid'
  }
}

/**
 * Cross-site protection for cookie sessions: a state-changing request must name an allowed origin exactly.
 * `required` is false for unauthenticated endpoints, where a missing header means a non-browser client.
 */
export function assertSameOrigin(request: RequestHead, required = true): void {
  if (SAFE_METHODS.has(request.method)) return
  const origin = requestOrigin(request)
  if (origin === undefined && !required) return
  if (!origin || !getConfig().allowedOrigins.includes(origin)) {
    throw new AppError(
      'forbidden',
      'This request must come from an allowed origin (Origin or Referer header).',
    )
  }
}

/** An API key's Authorization value; in oauth2-proxy mode nothing else takes the key path. */
const KEY_AUTHORIZATION = /^Bearer\s+glk_/i

/**
 * Who is calling. By the spec's rule an Authorization header takes the key path; in oauth2-proxy mode (trusted
 * only when the capability is on and the mode active, decision 018) the proxy may pass its own Authorization
 * header, so there only `Bearer glk_…` does, and a request carrying the proxy's email header is that identity
 * (or nobody); without it the cookie session applies.
 */
export async function identify(request: RequestHead, ip = ''): Promise<Actor | null> {
  const actor = await claimedIdentity(request, ip)
  // A deactivated account is nobody, whichever way it came (session, key or proxy headers): its key is
  // answered like an unknown key and its page requests like a visitor's (decision 026). Only an explicit
  // null passes, so a lookup that forgot the column refuses rather than admits.
  return actor && actor.user.deactivatedAt === null ? actor : null
}

/** The identity a request presents, before the deactivation check of `identify`. */
async function claimedIdentity(request: RequestHead, ip: string): Promise<Actor | null> {
  const authorization = request.headers.get('authorization')
  const proxyState = await trustedProxyState()
  if (proxyState) {
    if (authorization !== null && KEY_AUTHORIZATION.test(authorization))
      return authenticateApiKey(authorization)
    const headers = readProxyHeaders((name) => request.headers.get(name))
    if (headers.email) {
      const client = { ip, userAgent: request.headers.get('user-agent') }
      const user = await userFromProxy(headers, proxyState, client)
      return user ? { via: 'session', user, sessionId: null } : null
    }
    return authenticateSession(request.headers.get('cookie'))
  }
  if (authorization !== null) return authenticateApiKey(authorization)
  return authenticateSession(request.headers.get('cookie'))
}

/** Applies an access rule; returns the actor (null for public endpoints) or throws 401/403. */
export async function authorize(request: RequestHead, access: Access, ip = ''): Promise<Actor | null> {
  if (access.kind === 'public') {
    assertSameOrigin(request, false)
    return null
  }
  const actor = await identify(request, ip)
  if (!actor) throw new AppError('unauthorized', 'Sign in or send a valid API key.')
  if (actor.via === 'key') {
    if (access.kind === 'session') {
      throw new AppError('forbidden', 'API keys cannot call this operation; it needs a signed-in session.')
    }
    if (!actor.scopes.includes(access.scope)) {
      throw new AppError('forbidden', `This API key lacks the "${access.scope}" scope.`)
    }
    return actor
  }
  if (!hasRole(actor.user, access.minRole ?? 'viewer')) {
    throw new AppError('forbidden', 'Your role does not allow this operation.')
  }
  assertSameOrigin(request)
  return actor
}
