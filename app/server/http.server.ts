import crypto from 'node:crypto'
import path from 'node:path'
import { Readable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import type { ReadableStream as NodeReadableStream } from 'node:stream/web'
import { createRequestHandler } from '@remix-run/express'
import type { ServerBuild } from '@remix-run/node'
import express, { type Request as ExpressRequest, type Response as ExpressResponse } from 'express'
import { handleApiRequest } from '#app/api/handler.server.ts'
import { API_PREFIX } from '#app/api/registry.server.ts'
import { getConfig } from '#app/lib/config.server.ts'
import { AppError, toErrorResponse } from '#app/lib/errors.server.ts'
import { log, withRequestContext } from '#app/lib/logger.server.ts'
import { checkReadiness } from './readiness.server.ts'
import { securityHeaders } from './security-headers.server.ts'

/** The largest body any endpoint accepts (batch validation: 10 MB of text plus JSON overhead). */
const MAX_BODY_BYTES = 12 * 1024 * 1024
const REQUEST_ID = /^[A-Za-z0-9._-]{1,64}$/

export interface HttpAppOptions {
  /** The Remix server build; without it only the API and health routes are served (API tests). */
  build?: ServerBuild | (() => Promise<ServerBuild>)
  /** Folder of the client build (hashed assets). */
  clientDir?: string
  isDev?: boolean
  /** Extra middleware run before Remix (the Vite dev server in development). */
  before?: express.RequestHandler[]
}

/**
 * The web process: security headers and a request id for everything, `/healthz` and `/readyz`, the API
 * dispatcher on `/api/v1`, then the Remix app for every page.
 */
export function createHttpApp(options: HttpAppOptions = {}): express.Express {
  const config = getConfig()
  const app = express()
  app.disable('x-powered-by')
  // Trust exactly one hop (the reverse proxy in front of us): with `true`, Express would take the left-most
  // X-Forwarded-For entry, which any client can write itself and so pick its own rate-limit bucket.
  app.set('trust proxy', config.trustProxyHeaders ? 1 : false)

  app.use((req, res, next) => {
    const incoming = req.get('x-request-id')
    const requestId = incoming && REQUEST_ID.test(incoming) ? incoming : crypto.randomUUID()
    res.locals.requestId = requestId
    res.setHeader('X-Request-Id', requestId)
    const started = process.hrtime.bigint()
    const path = req.path
    res.on('finish', () => {
      withRequestContext(requestId, () =>
        log().info(
          {
            method: req.method,
            path,
            status: res.statusCode,
            ms: Number(process.hrtime.bigint() - started) / 1e6,
          },
          'request',
        ),
      )
    })
    withRequestContext(requestId, next)
  })
  app.use(securityHeaders({ isDev: options.isDev ?? false }))

  app.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' })
  })
  app.get('/readyz', async (_req, res) => {
    const report = await checkReadiness()
    res.status(report.ready ? 200 : 503).json(report)
  })

  app.use(API_PREFIX, (req, res) => {
    void serveApi(req, res)
  })

  for (const middleware of options.before ?? []) app.use(middleware)
  if (options.clientDir) {
    app.use(
      '/assets',
      express.static(path.join(options.clientDir, 'assets'), { immutable: true, maxAge: '1y' }),
    )
    app.use(express.static(options.clientDir, { maxAge: '1h', index: false }))
  }
  if (options.build) {
    app.all(
      '*',
      createRequestHandler({
        build: options.build,
        mode: options.isDev ? 'development' : 'production',
        getLoadContext: (req, res) => ({
          cspNonce: res.locals.cspNonce,
          requestId: res.locals.requestId,
          ip: req.ip ?? req.socket.remoteAddress ?? '',
          isHttps: req.secure,
        }),
      }),
    )
  }
  return app
}

async function serveApi(req: ExpressRequest, res: ExpressResponse): Promise<void> {
  let response: Response
  try {
    const body = ['GET', 'HEAD'].includes(req.method) ? undefined : new Uint8Array(await readBody(req))
    const headers = new Headers()
    for (const [key, value] of Object.entries(req.headers)) {
      if (value === undefined) continue
      for (const item of Array.isArray(value) ? value : [value]) headers.append(key, item)
    }
    // A fixed base keeps a hostile Host header or a `//host` path from changing what the URL means.
    const request = new Request(`http://internal${req.originalUrl}`, { method: req.method, headers, body })
    response = await handleApiRequest(request, {
      requestId: res.locals.requestId,
      ip: req.ip ?? req.socket.remoteAddress ?? '',
      isHttps: req.secure,
    })
  } catch (error) {
    response = toErrorResponse(error)
  }
  res.status(response.status)
  response.headers.forEach((value, key) => {
    if (key !== 'set-cookie') res.setHeader(key, value)
  })
  const cookies = response.headers.getSetCookie()
  if (cookies.length) res.setHeader('Set-Cookie', cookies)
  if (req.method === 'HEAD' || !response.body) {
    res.end()
    return
  }
  // Streamed, not buffered: progress streams (application/x-ndjson) must reach the client as they are written.
  await pipeline(Readable.fromWeb(response.body as NodeReadableStream<Uint8Array>), res).catch(
    (err: unknown) => {
      // A client that goes away mid-stream is not an error of ours.
      if ((err as NodeJS.ErrnoException).code !== 'ERR_STREAM_PREMATURE_CLOSE') {
        log().warn({ err, requestId: res.locals.requestId }, 'response stream failed')
      }
    },
  )
}

/** Reads the body up to the limit; past it the rest is drained unread so the client still gets its 413. */
function readBody(req: ExpressRequest): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    let size = 0
    req.on('data', (chunk: Buffer) => {
      size += chunk.length
      if (size <= MAX_BODY_BYTES) chunks.push(chunk)
    })
    req.on('end', () => {
      if (size > MAX_BODY_BYTES) {
        reject(new AppError('payload_too_large', `The body is larger than ${MAX_BODY_BYTES} bytes.`))
      } else {
        resolve(Buffer.concat(chunks))
      }
    })
    req.on('error', reject)
  })
}
