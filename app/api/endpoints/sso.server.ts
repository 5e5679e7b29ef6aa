import { AppError } from '#app/lib/errors.server.ts'
import { ssoRedirectUri } from '#app/lib/public-origin.server.ts'
import {
  DiscoverSsoSchema,
  DiscoveryResponseSchema,
  ProxyCheckSchema,
  SsoRefreshResponseSchema,
  SsoResponseSchema,
  SsoUpdateResponseSchema,
  UpdateSsoSchema,
} from '#app/schemas/sso.ts'
import { discoverProvider } from '#app/services/sso/discover.server.ts'
import {
  checkProxy,
  readProxyHeaders,
  refreshFromProxy,
  trustedProxyState,
} from '#app/services/sso/proxy.server.ts'
import { getSso, loadSsoState, updateSso } from '#app/services/sso/settings.server.ts'
import { userHasIdentityOrSso } from '#app/services/sso/refresh.server.ts'
import { PROXY_HEADERS } from '#domain/sso.ts'
import { endpoint, type Endpoint, type HandlerContext } from '../endpoint.server.ts'
import { auditActorOf, clientOf, sessionOf } from './identity.server.ts'

/**
 * Password-login and SSO administration and `POST /account/sso-refresh` (spec; decision 018). Admin-session
 * only except sso-refresh (any session of an SSO user).
 */

type AnyContext = HandlerContext<unknown, unknown, unknown>

const redirectUriOf = (ctx: AnyContext) =>
  ssoRedirectUri({ headers: ctx.request.headers, isHttps: ctx.isHttps })

const ADMIN = { kind: 'session', minRole: 'admin' } as const

export const SSO_ENDPOINTS: Endpoint[] = [
  endpoint({
    method: 'GET',
    path: '/sso',
    operationId: 'getSso',
    summary: 'The SSO settings and the redirect URI to register at the identity provider',
    description: 'Never returns the client secret (`hasClientSecret` says whether one is stored).',
    tag: 'sso',
    access: ADMIN,
    response: SsoResponseSchema,
    handler: async (ctx) => ({ sso: await getSso(), redirectUri: redirectUriOf(ctx) }),
  }),
  endpoint({
    method: 'PUT',
    path: '/sso',
    operationId: 'updateSso',
    summary: 'Change SSO settings and the password-login switch (partial update)',
    description:
      'Only sent fields change. `clientSecret` `""` keeps the stored secret, `null` deletes it. Server-filled ' +
      'fields in the body, non-http(s) addresses, `oauth2-proxy` without `OAUTH2_PROXY_ENABLED=true` (or ' +
      'without your own `X-Forwarded-Email`), `disabled` while password login is off, and enabling `oidc`/`oauth2` ' +
      'without the values it needs answer 400 with `details.problems`. The stored client secret belongs to its ' +
      'provider: changing an address that was set (`issuer`, `authorizationEndpoint`, `tokenEndpoint`, ' +
      '`userinfoEndpoint`, `jwksUri`) clears it unless this request sends `clientSecret`; `clearedSecrets` says so. ' +
      'Recorded in the audit log as `settings.sso` with the names of the changed fields, never their values.',
    tag: 'sso',
    access: ADMIN,
    body: UpdateSsoSchema,
    response: SsoUpdateResponseSchema,
    handler: async (ctx) => {
      const session = sessionOf(ctx)
      const { sso, clearedSecrets } = await updateSso({
        input: ctx.body,
        actor: { ...auditActorOf(session), email: session.user.email },
        client: clientOf(ctx),
        proxyEmail: ctx.request.headers.get(PROXY_HEADERS.email),
      })
      return { sso, redirectUri: redirectUriOf(ctx), clearedSecrets }
    },
  }),
  endpoint({
    method: 'POST',
    path: '/sso/discover',
    operationId: 'discoverSso',
    summary: "Read an identity provider's published settings (nothing is stored)",
    description:
      'Reads `<issuer>/.well-known/openid-configuration` (OIDC) or `<issuer>/.well-known/oauth-authorization-server` ' +
      '(OAuth 2.0), http/https only, within 5 s and 1 MiB, redirects only to the same scheme.',
    tag: 'sso',
    access: ADMIN,
    body: DiscoverSsoSchema,
    response: DiscoveryResponseSchema,
    handler: async (ctx) => ({ discovery: await discoverProvider(ctx.body.issuer, ctx.body.protocol) }),
  }),
  endpoint({
    method: 'GET',
    path: '/sso/proxy-check',
    operationId: 'checkSsoProxy',
    summary: 'What the oauth2-proxy headers of this very request say, and whether they are trusted',
    tag: 'sso',
    access: ADMIN,
    response: ProxyCheckSchema,
    handler: (ctx) => checkProxy(readProxyHeaders((name) => ctx.request.headers.get(name))),
  }),
  endpoint({
    method: 'POST',
    path: '/account/sso-refresh',
    operationId: 'refreshSsoAccount',
    summary: 'Apply your company account again (name, email, admin group)',
    description:
      'oauth2-proxy mode: the current headers are applied at once (`{ user }`). Direct OIDC/OAuth 2.0 modes: ' +
      'answers `{ redirectTo }`, the sign-in address to navigate to; afterwards the browser returns to ' +
      '`/settings?ssoRefresh=success`. Another company account than the linked one: 409 `identity_mismatch`, ' +
      'nothing overwritten.',
    tag: 'accounts',
    access: { kind: 'session' },
    response: SsoRefreshResponseSchema,
    errors: ['identity_mismatch'],
    handler: async (ctx) => {
      const session = sessionOf(ctx)
      if (!(await userHasIdentityOrSso(session.user))) {
        throw new AppError('forbidden', 'Only accounts signed in through SSO can be refreshed.')
      }
      const proxyState = await trustedProxyState()
      if (proxyState) {
        // A failure is an SsoFailure, an AppError: 409 identity_mismatch, else 403 forbidden.
        const headers = readProxyHeaders((name) => ctx.request.headers.get(name))
        const user = await refreshFromProxy(session.user.id, headers, proxyState, clientOf(ctx))
        return {
          user: { id: user.id, email: user.email, name: user.name, role: user.role, authType: user.authType },
        }
      }
      const mode = (await loadSsoState()).settings.mode
      if (mode !== 'oidc' && mode !== 'oauth2') {
        throw new AppError('forbidden', 'SSO is not enabled on this server.')
      }
      return { redirectTo: '/auth/sso/start?intent=refresh' }
    },
  }),
]
