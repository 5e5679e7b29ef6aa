import crypto from 'node:crypto'
import type { RequestHandler } from 'express'
import helmet from 'helmet'
import { readEmbedAncestors } from '#app/lib/config.server.ts'
import { log } from '#app/lib/logger.server.ts'

let lastInvalid = ''

/**
 * Who may frame `/embed`, from GLOSSARY_EMBED_ANCESTORS as it is at this request: the page's own origin
 * (the share builder's preview) and the listed origins, or every origin when the variable is unset or empty.
 * An entry that is not an origin is ignored and logged (once per distinct value, not on every request).
 */
export function embedAncestors(): string {
  const { origins, invalid } = readEmbedAncestors()
  const invalidKey = invalid.join(',')
  if (invalid.length && invalidKey !== lastInvalid) {
    log().warn(
      { ignored: invalid },
      'GLOSSARY_EMBED_ANCESTORS: entries that are not an origin (https://host[:port]) are ignored',
    )
  }
  lastInvalid = invalidKey
  // Unset or empty allows every origin; a list whose every entry was ignored allows none but our own, since
  // whoever set it meant to restrict.
  if (!origins.length && !invalid.length) return '*'
  return ["'self'", ...origins].join(' ')
}

/**
 * Security headers on every response (helmet): a CSP whose scripts need a per-request nonce, nosniff, a strict
 * referrer policy, and `frame-ancestors 'none'` everywhere except `/embed`, which reads
 * GLOSSARY_EMBED_ANCESTORS on each request (spec part 9).
 */
export function securityHeaders(options: { isDev: boolean }): RequestHandler[] {
  const nonce: RequestHandler = (_req, res, next) => {
    res.locals.cspNonce = crypto.randomBytes(16).toString('base64')
    next()
  }
  const headers = helmet({
    contentSecurityPolicy: {
      useDefaults: false,
      directives: {
        defaultSrc: ["'self'"],
        scriptSrc: [
          "'self'",
          (_req, res) => `'nonce-${(res as unknown as { locals: { cspNonce: string } }).locals.cspNonce}'`,
          ...(options.isDev ? ["'unsafe-inline'"] : []),
        ],
        styleSrc: ["'self'", "'unsafe-inline'"],
        imgSrc: ["'self'", 'data:', 'blob:'],
        fontSrc: ["'self'"],
        connectSrc: ["'self'", ...(options.isDev ? ['ws:'] : [])],
        objectSrc: ["'none'"],
        baseUri: ["'self'"],
        formAction: ["'self'"],
        frameAncestors: [
          (req) => ((req as { path?: string }).path === '/embed' ? embedAncestors() : "'none'"),
        ],
        upgradeInsecureRequests: null,
      },
    },
    // frame-ancestors is the modern control; X-Frame-Options cannot express an allow-list, so leave it off.
    xFrameOptions: false,
    referrerPolicy: { policy: 'same-origin' },
    crossOriginEmbedderPolicy: false,
    strictTransportSecurity: false,
  })
  return [nonce, headers]
}
