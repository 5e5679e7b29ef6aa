import crypto from 'node:crypto'
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { exportJWK, generateKeyPair } from 'jose'
import Provider from 'oidc-provider'

/**
 * A real OpenID provider (oidc-provider 9) on 127.0.0.1 for SSO tests and the benchmark. Its login is driven
 * without a browser: the custom interaction address signs in the account named by `login_hint` (an email of
 * `accounts`) through `interactionFinished`; `loadExistingGrant` grants the requested scope, so there is no
 * consent step. With `devInteractions: true` the provider's own login form is used instead (Chromium test).
 */

export interface TestAccount {
  email: string
  name?: string
  groups?: string[]
  /** The subject; the email when omitted. */
  sub?: string
}

export interface TestProvider {
  issuer: string
  clientId: string
  clientSecret: string
  accounts: Map<string, TestAccount>
  close(): Promise<void>
}

export const TEST_CLIENT_SECRET = 'a+b/c secret=&%'

export async function startTestProvider(options: {
  redirectUri: string
  accounts?: TestAccount[]
  devInteractions?: boolean
  idTokenTtl?: number
}): Promise<TestProvider> {
  const accounts = new Map((options.accounts ?? []).map((a) => [a.sub ?? a.email, a]))
  const { privateKey } = await generateKeyPair('RS256', { extractable: true })
  const jwk = { ...(await exportJWK(privateKey)), kid: 'test-key-1', alg: 'RS256', use: 'sig' }
  const server = http.createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  const clientId = `glossary-${crypto.randomUUID().slice(0, 8)}`
  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: clientId,
        client_secret: TEST_CLIENT_SECRET,
        redirect_uris: [options.redirectUri],
        grant_types: ['authorization_code'],
        response_types: ['code'],
        token_endpoint_auth_method: 'client_secret_post',
      },
    ],
    jwks: { keys: [jwk] },
    conformIdTokenClaims: false,
    claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name', 'groups'] },
    scopes: ['openid', 'email', 'profile'],
    pkce: { required: () => true },
    features: {
      devInteractions: { enabled: options.devInteractions ?? false },
      userinfo: { enabled: true },
    },
    ttl: options.idTokenTtl ? { IdToken: options.idTokenTtl } : undefined,
    ...(options.devInteractions
      ? {}
      : {
          interactions: {
            url: (_ctx: unknown, interaction: { uid: string }) => `/test-login/${interaction.uid}`,
          },
        }),
    async findAccount(_ctx: unknown, id: string) {
      const account = accounts.get(id)
      if (!account && !options.devInteractions) return undefined
      const claims = account ?? { email: id, name: id, groups: [] }
      return {
        accountId: id,
        claims: async () => ({
          sub: id,
          email: claims.email,
          email_verified: true,
          name: claims.name,
          groups: claims.groups,
        }),
      }
    },
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- oidc-provider has no types
    async loadExistingGrant(ctx: any) {
      const existing =
        ctx.oidc.result?.consent?.grantId || ctx.oidc.session.grantIdFor(ctx.oidc.client.clientId)
      if (existing) return ctx.oidc.provider.Grant.find(existing)
      const grant = new ctx.oidc.provider.Grant({
        clientId: ctx.oidc.client.clientId,
        accountId: ctx.oidc.session.accountId,
      })
      grant.addOIDCScope('openid email profile')
      await grant.save()
      return grant
    },
  })
  const callback = provider.callback()
  server.on('request', (req, res) => {
    const match = /^\/test-login\/([^/?]+)/.exec(req.url ?? '')
    if (!match) return callback(req, res)
    void (async () => {
      const details = await provider.interactionDetails(req, res)
      const hint = String(details.params.login_hint ?? '')
      const account = [...accounts.entries()].find(([, a]) => a.email === hint)
      const result = account ? { login: { accountId: account[0] } } : { error: 'access_denied' }
      await provider.interactionFinished(req, res, result, { mergeWithLastSubmission: false })
    })().catch((error: unknown) => {
      res.statusCode = 500
      res.end(String(error))
    })
  })
  return {
    issuer,
    clientId,
    clientSecret: TEST_CLIENT_SECRET,
    accounts,
    close: async () => {
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
}

/** The Set-Cookie lines of a response (Remix's installGlobals removes `getSetCookie`, hence the fallback). */
export function setCookies(res: Response): string[] {
  const headers = res.headers as Headers & {
    getSetCookie?: () => string[]
    raw?: () => Record<string, string[]>
  }
  if (typeof headers.getSetCookie === 'function') return headers.getSetCookie()
  if (typeof headers.raw === 'function') return headers.raw()['set-cookie'] ?? []
  const joined = res.headers.get('set-cookie')
  return joined ? joined.split(/,(?=\s*[A-Za-z0-9_.-]+=)/) : []
}

/**
 * Plays a browser at the provider: follows redirects from the authorization address with a cookie jar until
 * the provider sends the browser back to `redirectPrefix`; answers that address.
 */
export async function followToCallback(authorizationUrl: string, redirectPrefix: string): Promise<string> {
  const jar = new Map<string, string>()
  let url = authorizationUrl
  for (let hop = 0; hop < 10; hop++) {
    if (url.startsWith(redirectPrefix)) return url
    const res = await fetch(url, {
      redirect: 'manual',
      headers: { cookie: [...jar].map(([k, v]) => `${k}=${v}`).join('; ') },
    })
    for (const line of setCookies(res)) {
      const [pair] = line.split(';')
      const eq = pair!.indexOf('=')
      jar.set(pair!.slice(0, eq).trim(), pair!.slice(eq + 1))
    }
    const location = res.headers.get('location')
    if (!location)
      throw new Error(`the provider answered ${res.status} without a redirect: ${await res.text()}`)
    await res.body?.cancel()
    url = new URL(location, url).href
  }
  throw new Error('too many redirects at the provider')
}
