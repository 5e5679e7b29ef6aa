import crypto from 'node:crypto'
import type { ServerResponse } from 'node:http'
import type { RequestHandler } from 'express'
import helmet from 'helmet'
import { isApiPath } from '#app/api/endpoint.server.ts'
import { readEmbedAncestors } from '#app/lib/config.server.ts'
import { log } from '#app/lib/logger.server.ts'

let lastInvalid = ''

/**
 * Who may frame `/embed`, from GLOSSARY_EMBED_ANCESTORS as it is at this request: the page's own origin
 * (the share builder's preview) and the listed origins (`https://*.example.com` passes through as CSP's
 * subdomain wildcard), or every origin when the variable is unset, empty or a list with no entry (`,`).
 * Start-up refuses an entry that is not an origin (config.server.ts); one set later in the process is ignored
 * and logged (once per distinct value, not on every request).
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
 * One warning line when the web process starts with GLOSSARY_EMBED_ANCESTORS set to a list with no entry
 * (`,`): it reads as unset, so every origin may frame /embed, which whoever set it hardly meant (issue 26).
 * Unset or empty is the documented default and is not warned about.
 */
function warnIfEveryOriginMayEmbed(): void {
  if (!readEmbedAncestors().listsNothing) return
  log().warn(
    'GLOSSARY_EMBED_ANCESTORS lists no origin, which reads as unset: every origin may frame /embed. ' +
      'List the origins (https://host[:port], https://*.example.com) or unset it.',
  )
}

/** The headers helmet sets besides the CSP, the same on pages and on the API. */
const COMMON = {
  // frame-ancestors is the modern control; X-Frame-Options cannot express an allow-list, so leave it off.
  xFrameOptions: false,
  referrerPolicy: { policy: 'same-origin' },
  crossOriginEmbedderPolicy: false,
  strictTransportSecurity: false,
} as const

/**
 * Security headers on every response (helmet): a CSP whose scripts need a per-request nonce, nosniff, a strict
 * referrer policy, and `frame-ancestors 'none'` everywhere except `/embed`, which reads
 * GLOSSARY_EMBED_ANCESTORS on each request (spec part 9).
 * The API and the health checks answer JSON, never a document a browser runs: their CSP allows nothing
 * (`default-src 'none'; frame-ancestors 'none'`), needs no nonce, and so their headers are the same on every
 * response — computed by helmet once, at start, and copied onto each answer (running helmet's dozen
 * middlewares and drawing a nonce was ~7% of a term lookup's time).
 */
export function securityHeaders(options: { isDev: boolean }): RequestHandler[] {
  warnIfEveryOriginMayEmbed()
  const pageHeaders = helmet({
    ...COMMON,
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
  })
  return [
    (req, res, next) => {
      if (isDataPath(req.path)) {
        setDataHeaders(res)
        next()
        return
      }
      res.locals.cspNonce = crypto.randomBytes(16).toString('base64')
      pageHeaders(req, res, next)
    },
  ]
}

/** The API's and health checks' headers, the same on every answer: helmet's, with a CSP that allows nothing. */
const DATA_HEADERS = fixedHeaders(
  helmet({
    ...COMMON,
    contentSecurityPolicy: {
      useDefaults: false,
      directives: { defaultSrc: ["'none'"], frameAncestors: ["'none'"], upgradeInsecureRequests: null },
    },
  }),
)

/** Sets the security headers of a JSON answer (the API's fast lane in http.server.ts calls it too). */
export function setDataHeaders(res: ServerResponse): void {
  for (const [name, value] of DATA_HEADERS) res.setHeader(name, value)
}

function isDataPath(path: string): boolean {
  return isApiPath(path) || path === '/healthz' || path === '/readyz'
}

/** The headers a helmet middleware whose output depends on nothing in the request sets, taken once. */
function fixedHeaders(middleware: RequestHandler): [string, string][] {
  const headers: [string, string][] = []
  const recorder = {
    setHeader: (name: string, value: string) => headers.push([name, String(value)]),
    removeHeader: () => undefined,
    getHeader: () => undefined,
    locals: {},
  }
  middleware({ path: '/', method: 'GET', headers: {} } as never, recorder as never, () => undefined)
  return headers
}
