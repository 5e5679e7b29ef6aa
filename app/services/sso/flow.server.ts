import crypto from 'node:crypto'
import * as oidc from 'openid-client'
import { clearCookieLine, readCookie, setCookieLine, type CookieSpec } from '#app/lib/cookies.server.ts'
import { log } from '#app/lib/logger.server.ts'
import { boundedFetch } from '#app/lib/outbound.server.ts'
import { signingKey } from '#app/lib/secrets.server.ts'
import type { ClientInfo } from '#app/services/audit/audit.server.ts'
import { createSession } from '#app/services/auth/sessions.server.ts'
import { sha256 } from '#app/services/auth/tokens.server.ts'
import { em } from '#db/orm.ts'
import type { SsoMode } from '#domain/sso.ts'
import { accountForIdentity, mapClaims, SsoFailure } from './accounts.server.ts'
import { verifyIdToken } from './jwks.server.ts'
import { clientSecretOf, loadSsoState, type SsoState } from './settings.server.ts'
import { insertUsedState, updateLastLogin } from './store.server.ts'

/**
 * The direct sign-in (spec "Browser redirects"; decision 018): `startSignIn` makes the PKCE verifier, state and
 * (OIDC) nonce and the signed flow cookie; `finishSignIn` checks them, exchanges the code with openid-client,
 * verifies the ID token against the cached JWKS (OIDC) or fetches userinfo (OAuth 2.0), records the flow as
 * used, maps the claims and signs the account in. Every failure is an `SsoFailure` with one of the spec's codes.
 */

export const FLOW_COOKIE = 'glossary_sso_flow'
export const FLOW_COOKIE_PATH = '/auth/sso'
const FLOW_SECONDS = 600
const SCOPE = 'openid email profile'
const ASYMMETRIC_ALGS = [
  'RS256',
  'RS384',
  'RS512',
  'PS256',
  'PS384',
  'PS512',
  'ES256',
  'ES384',
  'ES512',
  'EdDSA',
]

interface Flow {
  state: string
  nonce?: string
  verifier: string
  mode: 'oidc' | 'oauth2'
  provider: string
  /** sso-refresh: the account that asked. */
  userId?: string
  exp: number
}

function sign(payload: string): string {
  return crypto.createHmac('sha256', signingKey('sso-flow')).update(payload).digest('base64url')
}

export function encodeFlow(flow: Flow): string {
  const payload = Buffer.from(JSON.stringify(flow)).toString('base64url')
  return `${payload}.${sign(payload)}`
}

/** The flow of a cookie value, or undefined when missing, tampered or expired. */
export function decodeFlow(value: string | undefined): Flow | undefined {
  if (!value) return undefined
  const [payload, mac] = value.split('.')
  if (!payload || !mac) return undefined
  const expected = Buffer.from(sign(payload))
  const given = Buffer.from(mac)
  if (expected.length !== given.length || !crypto.timingSafeEqual(expected, given)) return undefined
  try {
    const flow = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as Flow
    return typeof flow.exp === 'number' && flow.exp > Date.now() / 1000 ? flow : undefined
  } catch {
    return undefined
  }
}

const FLOW: CookieSpec = {
  name: FLOW_COOKIE,
  path: FLOW_COOKIE_PATH,
  maxAgeSeconds: FLOW_SECONDS,
  httpOnly: true,
}

export function flowCookie(value: string, secure: boolean): string {
  return setCookieLine(FLOW, value, { secure })
}
export function clearedFlowCookie(secure: boolean): string {
  return clearCookieLine(FLOW, { secure })
}
export function readFlowCookie(cookieHeader: string | null): string | undefined {
  return readCookie(cookieHeader, FLOW_COOKIE)
}

/** The key of identities of the configured provider in `user_identities.provider`. */
export function providerKey(state: SsoState): string {
  const { settings } = state
  return settings.issuer || new URL(settings.authorizationEndpoint).origin
}

function directMode(mode: SsoMode): mode is 'oidc' | 'oauth2' {
  return mode === 'oidc' || mode === 'oauth2'
}

function clientConfig(state: SsoState): oidc.Configuration {
  const s = state.settings
  const secret = clientSecretOf(state)
  const config = new oidc.Configuration(
    {
      issuer: providerKey(state),
      authorization_endpoint: s.authorizationEndpoint,
      token_endpoint: s.tokenEndpoint,
      ...(s.userinfoEndpoint ? { userinfo_endpoint: s.userinfoEndpoint } : {}),
      ...(s.jwksUri ? { jwks_uri: s.jwksUri } : {}),
      id_token_signing_alg_values_supported: ASYMMETRIC_ALGS,
    },
    s.clientId,
    secret ? { client_secret: secret } : {},
    secret ? oidc.ClientSecretPost(secret) : oidc.None(),
  )
  config[oidc.customFetch] = (url, options) => boundedFetch(url, options as RequestInit)
  const addresses = [s.authorizationEndpoint, s.tokenEndpoint, s.userinfoEndpoint, s.jwksUri]
  if (addresses.some((a) => a.startsWith('http:'))) oidc.allowInsecureRequests(config)
  return config
}

/** `GET /auth/sso/start`: the authorization address and the flow cookie value. */
export async function startSignIn(options: {
  redirectUri: string
  refreshUserId?: string
}): Promise<{ location: string; cookieValue: string }> {
  const state = await loadSsoState()
  const mode = state.settings.mode
  if (!directMode(mode)) throw new SsoFailure('disabled', 'Direct sign-in is not enabled.')
  const flow: Flow = {
    state: oidc.randomState(),
    verifier: oidc.randomPKCECodeVerifier(),
    mode,
    provider: providerKey(state),
    exp: Math.floor(Date.now() / 1000) + FLOW_SECONDS,
    ...(mode === 'oidc' ? { nonce: oidc.randomNonce() } : {}),
    ...(options.refreshUserId ? { userId: options.refreshUserId } : {}),
  }
  const url = oidc.buildAuthorizationUrl(clientConfig(state), {
    redirect_uri: options.redirectUri,
    scope: SCOPE,
    state: flow.state,
    code_challenge: await oidc.calculatePKCECodeChallenge(flow.verifier),
    code_challenge_method: 'S256',
    ...(flow.nonce ? { nonce: flow.nonce } : {}),
  })
  return { location: url.href, cookieValue: encodeFlow(flow) }
}

function constantEqual(a: string, b: string): boolean {
  const x = Buffer.from(a)
  const y = Buffer.from(b)
  return x.length === y.length && crypto.timingSafeEqual(x, y)
}

/**
 * `GET /auth/sso/callback`. `signedInUserId` is the current session's account (for a refresh). Answers the new
 * session token (null for a refresh: the current session stays) and where to go.
 */
export async function finishSignIn(options: {
  search: URLSearchParams
  cookieValue: string | undefined
  redirectUri: string
  signedInUserId: string | undefined
  client: ClientInfo
}): Promise<{ token: string | null; redirectTo: string }> {
  const state = await loadSsoState()
  const mode = state.settings.mode
  if (!directMode(mode)) throw new SsoFailure('disabled', 'Direct sign-in is not enabled.')
  const flow = decodeFlow(options.cookieValue)
  const returned = options.search.get('state') ?? ''
  if (
    !flow ||
    !constantEqual(flow.state, returned) ||
    flow.mode !== mode ||
    flow.provider !== providerKey(state)
  ) {
    throw new SsoFailure('state', 'The sign-in could not be matched to one started here.')
  }
  if (options.search.has('error')) throw new SsoFailure('idp', 'The identity provider refused the sign-in.')
  if (flow.userId !== undefined && flow.userId !== options.signedInUserId) {
    throw new SsoFailure('identity_mismatch', 'The refresh was started by another session.')
  }
  const config = clientConfig(state)
  const currentUrl = new URL(options.redirectUri)
  currentUrl.search = options.search.toString()
  let claims: Record<string, unknown>
  try {
    const tokens = await oidc.authorizationCodeGrant(config, currentUrl, {
      pkceCodeVerifier: flow.verifier,
      expectedState: flow.state,
      expectedNonce: flow.nonce,
      idTokenExpected: mode === 'oidc',
    })
    if (mode === 'oidc') {
      claims = {
        ...(await verifyIdToken(tokens.id_token!, {
          jwksUri: state.settings.jwksUri,
          issuer: providerKey(state),
          audience: state.settings.clientId,
        })),
      }
      if (typeof claims.email !== 'string' && state.settings.userinfoEndpoint) {
        const info = await oidc.fetchUserInfo(config, tokens.access_token, String(claims.sub))
        claims = { ...info, ...claims, email: info.email }
      }
    } else {
      claims = { ...(await oidc.fetchUserInfo(config, tokens.access_token, oidc.skipSubjectCheck)) }
    }
  } catch (error) {
    if (error instanceof oidc.AuthorizationResponseError) {
      throw new SsoFailure('idp', 'The identity provider refused the sign-in.')
    }
    log().warn(
      { err: error instanceof Error ? { name: error.name, message: error.message } : String(error) },
      'sso token step failed',
    )
    throw new SsoFailure('token', 'The sign-in could not be verified.')
  }
  // Single use (issue 26): a flow whose code was redeemed once is refused with any later code, in every web
  // process sharing the database. Recorded after the exchange, so a replayed code stays the provider's refusal
  // (`token`) and a replayed flow with a new code is `state`.
  if (!(await insertUsedState(em(), sha256(flow.state), new Date(flow.exp * 1000)))) {
    throw new SsoFailure('state', 'This sign-in was already completed; start it again.')
  }
  await updateLastLogin(em(), Object.keys(claims).sort())
  const identity = mapClaims(claims, state.settings, flow.provider)
  return em().transactional(async (tx) => {
    const { user } = await accountForIdentity(tx, identity, state.settings, {
      refreshUserId: flow.userId,
      liftBlock: true,
      client: options.client,
      audit: true,
    })
    if (flow.userId) return { token: null, redirectTo: '/settings?ssoRefresh=success' }
    const { token } = await createSession(user.id, options.client, tx)
    return { token, redirectTo: '/' }
  })
}
