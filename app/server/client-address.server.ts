import type { IncomingMessage } from 'node:http'
import type { TLSSocket } from 'node:tls'
import proxyaddr from 'proxy-addr'

/** Who sent a request, as this process trusts it: the address rate limits and the audit log use, and the scheme. */
export interface ClientAddress {
  ip: string
  /** The request reached us over HTTPS (Secure cookies, SSO redirect addresses). */
  isHttps: boolean
}

/**
 * The client's address and scheme by the rule Express applies with `trust proxy` = 1 or false
 * (docs/decisions/005-rate-limits.md): with `GLOSSARY_TRUST_PROXY_HEADERS`, exactly one hop is trusted (the
 * reverse proxy in front), so the address is the last `X-Forwarded-For` entry (the one that proxy added; the
 * left-most can be written by any client) and the scheme the first `X-Forwarded-Proto` value; without it, the
 * socket's own. One reader for the API's fast lane and for the pages Express serves, so both see the same
 * client; a test holds it to Express's `req.ip` and `req.secure`.
 */
export function clientAddressReader(trustProxyHeaders: boolean): (req: IncomingMessage) => ClientAddress {
  const trust = (_address: string, hop: number) => trustProxyHeaders && hop < 1
  return (req) => {
    const socket = req.socket as TLSSocket
    const ownScheme = socket.encrypted ? 'https' : 'http'
    let scheme = ownScheme
    if (trust(socket.remoteAddress ?? '', 0)) {
      const header = req.headers['x-forwarded-proto']
      const value = (Array.isArray(header) ? header[0] : header) || ownScheme
      scheme = value.split(',')[0]!.trim()
    }
    return { ip: proxyaddr(req, trust) ?? '', isHttps: scheme === 'https' }
  }
}
