import crypto from 'node:crypto'
import type { RequestHandler } from 'express'
import helmet from 'helmet'
import { readEmbedAncestors } from '#app/lib/config.server.ts'

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
          (req) => {
            if ((req as { path?: string }).path !== '/embed') return "'none'"
            const allowed = readEmbedAncestors()
            return allowed.length ? allowed.join(' ') : '*'
          },
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
