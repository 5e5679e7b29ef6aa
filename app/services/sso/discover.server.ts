import { validationError } from '#app/lib/errors.server.ts'
import { boundedFetch, OutboundError } from '#app/lib/outbound.server.ts'
import type { Discovery } from '#app/schemas/sso.ts'
import type { SsoProtocol } from '#domain/sso.ts'

/**
 * `POST /sso/discover` (spec rule 6): reads `<issuer>/.well-known/openid-configuration` (OIDC) or
 * `<issuer>/.well-known/oauth-authorization-server` (OAuth 2.0) through the bounded fetch and answers the
 * endpoints. Stores nothing. Anything unreadable is 400 `validation_failed` naming why.
 */

const WELL_KNOWN: Record<SsoProtocol, string> = {
  oidc: '/.well-known/openid-configuration',
  oauth2: '/.well-known/oauth-authorization-server',
}

const cannotRead = (message: string) =>
  validationError([{ path: 'issuer', message }], 'The provider settings cannot be read.')

function httpUrl(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined
  try {
    const url = new URL(value)
    return url.protocol === 'http:' || url.protocol === 'https:' ? value : undefined
  } catch {
    return undefined
  }
}

const strings = (value: unknown): string[] =>
  Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string').slice(0, 500) : []

/** The document address of an issuer. */
export function discoveryAddress(issuer: string, protocol: SsoProtocol): string {
  return issuer.replace(/\/+$/, '') + WELL_KNOWN[protocol]
}

export async function discoverProvider(issuer: string, protocol: SsoProtocol): Promise<Discovery> {
  const address = discoveryAddress(issuer, protocol)
  let document: Record<string, unknown>
  try {
    const response = await boundedFetch(address, { headers: { accept: 'application/json' } })
    if (response.status !== 200) throw cannotRead(`${address} answered HTTP ${response.status}.`)
    const parsed: unknown = JSON.parse(await response.text())
    if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) {
      throw cannotRead(`${address} is not a JSON object.`)
    }
    document = parsed as Record<string, unknown>
  } catch (error) {
    if (error instanceof OutboundError) throw cannotRead(`${address}: ${error.message}`)
    if (error instanceof SyntaxError) throw cannotRead(`${address} is not JSON.`)
    throw error
  }
  const authorizationEndpoint = httpUrl(document.authorization_endpoint)
  const tokenEndpoint = httpUrl(document.token_endpoint)
  const jwksUri = httpUrl(document.jwks_uri)
  const missing = [
    !authorizationEndpoint && 'authorization_endpoint',
    !tokenEndpoint && 'token_endpoint',
    protocol === 'oidc' && !jwksUri && 'jwks_uri',
    protocol === 'oidc' && typeof document.issuer !== 'string' && 'issuer',
  ].filter(Boolean)
  if (missing.length) throw cannotRead(`${address} lacks ${missing.join(', ')} (or they are not http/https).`)
  return {
    issuer: typeof document.issuer === 'string' ? document.issuer : issuer,
    authorizationEndpoint: authorizationEndpoint!,
    tokenEndpoint: tokenEndpoint!,
    userinfoEndpoint: httpUrl(document.userinfo_endpoint) ?? '',
    jwksUri: jwksUri ?? '',
    scopesSupported: strings(document.scopes_supported),
    claimsSupported: strings(document.claims_supported),
  }
}
