import { getConfig } from './config.server.ts'

/**
 * The origin this service is reached at, for addresses we hand to others (the SSO redirect URI: docs/decisions/
 * 018-single-sign-on.md). The request's scheme and host (`X-Forwarded-Host` only when
 * GLOSSARY_TRUST_PROXY_HEADERS is on; the scheme the caller judged, which already honours `X-Forwarded-Proto`
 * only then) are kept only when that origin is one of GLOSSARY_ALLOWED_ORIGINS; otherwise the first listed
 * origin. A forged Host header therefore never changes the answer to an address we did not configure.
 */
export function publicOrigin(request: { headers: Headers; isHttps: boolean }): string {
  const config = getConfig()
  const forwardedHost = config.trustProxyHeaders
    ? request.headers.get('x-forwarded-host')?.split(',')[0]?.trim()
    : undefined
  const host = forwardedHost || request.headers.get('host')
  if (host) {
    const candidate = `${request.isHttps ? 'https' : 'http'}://${host.toLowerCase()}`
    try {
      const origin = new URL(candidate).origin
      if (config.allowedOrigins.includes(origin)) return origin
    } catch {
      // not a host: fall through to the configured origin
    }
  }
  return config.allowedOrigins[0]!
}

/** The one redirect URI of the SSO flow, as registered at the identity provider. */
export const SSO_CALLBACK_PATH = '/auth/sso/callback'
export function ssoRedirectUri(request: { headers: Headers; isHttps: boolean }): string {
  return publicOrigin(request) + SSO_CALLBACK_PATH
}
