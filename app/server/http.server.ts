import crypto from 'node:crypto'
import http, { type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { Socket } from 'node:net'
import { setTimeout } from 'node:timers/promises'
import path from 'node:path'
import {
  createRequestHandler as createRemixHandler,
  type AppLoadContext,
  type ServerBuild,
} from '@remix-run/node'
import express, {
  type NextFunction,
  type Request as ExpressRequest,
  type Response as ExpressResponse,
} from 'express'
import { handleApiRequest, rejectUnsupportedMethod } from '#app/api/handler.server.ts'
import { ApiRequest } from '#app/api/api-request.server.ts'
import { API_PREFIX, isApiPath } from '#app/api/endpoint.server.ts'
import { getConfig } from '#app/lib/config.server.ts'
import { AppError, errorBody, toErrorResponse } from '#app/lib/errors.server.ts'
import { log, withRequestContext } from '#app/lib/logger.server.ts'
import { observeHttpRequest } from '#app/lib/metrics.server.ts'
import { markRequest } from '#app/lib/quiet-moments.server.ts'
import { LOST_CONNECTION_PAUSES_MS } from '#db/sql.ts'
import {
  isForbiddenMethod,
  nodeHeaderReader,
  readBody,
  sendFetchResponse,
  toFetchRequest,
} from './fetch-bridge.server.ts'
import { clientAddressReader, type ClientAddress } from './client-address.server.ts'
import { PageInputError, readPageRequest } from './page-input.server.ts'
import { checkReadiness } from './readiness.server.ts'
import { metricsHandler } from './metrics.server.ts'
import { markStatic, routeLabeler, type RouteLabeler } from './route-label.server.ts'
import { langOfRequest, withPageLang } from '#app/lib/request-lang.server.ts'
import { handleMcpRequest, MCP_MAX_BODY_BYTES, MCP_PATH } from '#app/mcp/http.server.ts'
import { securityHeaders, setDataHeaders } from './security-headers.server.ts'

export interface HttpAppOptions {
  /** The Remix server build; without it only the API and health routes are served (API tests). */
  build?: ServerBuild | (() => Promise<ServerBuild>)
  /** Folder of the client build (hashed assets). */
  clientDir?: string
  isDev?: boolean
  /** Extra middleware run before Remix (the Vite dev server in development). */
  before?: express.RequestHandler[]
}

/** The web process's request listener; `listen` serves it on a port, as Express's `app.listen` does. */
export interface HttpApp {
  (req: IncomingMessage, res: ServerResponse): void
  listen(port: number, host?: string): Server
}

/**
 * The web process: security headers and a request id for everything, `/healthz` and `/readyz`, the API
 * dispatcher on `/api/v1`, then the Remix app for every page.
 *
 * API requests take a fast lane around Express: its router, request and response prototypes and middleware
 * chain cost ~0.5 ms of main thread a request on this host, as much as the dispatcher and a 500-text lookup's
 * remembered answer together (decision 013, session 9). The lane gives them what Express did: the request id
 * and access log (`beginRequest`), the JSON security headers, the client's address by the same trust rule
 * (client-address.server.ts), and the same dispatcher (`serveApi`). A path that only Express would route to
 * the API (its prefix in another letter case, an absolute-form URL) still goes through Express to the same
 * dispatcher.
 */
export function createHttpApp(options: HttpAppOptions = {}): HttpApp {
  const config = getConfig()
  const clientOf = clientAddressReader(config.trustProxyHeaders)
  const app = express()
  app.disable('x-powered-by')
  // Trust exactly one hop (the reverse proxy in front of us): with `true`, Express would take the left-most
  // X-Forwarded-For entry, which any client can write itself and so pick its own rate-limit bucket. Our own
  // reads of the client go through `clientOf`, which applies the same rule.
  app.set('trust proxy', config.trustProxyHeaders ? 1 : false)
  const routeOf = routeLabeler(options.build)

  app.use((req, res, next) => {
    const requestId = beginRequest(req, res, req.path, routeOf)
    res.locals.requestId = requestId
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
  const serveMetrics = metricsHandler(clientOf)
  app.get('/metrics', (req, res, next) => {
    serveMetrics(req, res).catch(next)
  })

  app.use(API_PREFIX, (req, res) => {
    answerApi(req, res, req.originalUrl, res.locals.requestId, clientOf)
  })
  app.all(MCP_PATH, (req, res, next) => {
    // MCP for AI agents (app/mcp/): JSON answers, so the API's security headers, not a page's.
    setDataHeaders(res)
    serveMcp(req, res, res.locals.requestId, clientOf).catch(next)
  })

  for (const middleware of options.before ?? []) app.use(middleware)
  if (options.clientDir) {
    app.use(
      '/assets',
      express.static(path.join(options.clientDir, 'assets'), {
        immutable: true,
        maxAge: '1y',
        setHeaders: markStatic,
      }),
    )
    app.use(express.static(options.clientDir, { maxAge: '1h', index: false, setHeaders: markStatic }))
  }
  if (options.build) {
    // Remix in production mode unless this is `npm run dev`: errors reach the browser without their stacks,
    // whatever NODE_ENV says (docs/decisions/012-hardening.md).
    const handleRemix = createRemixHandler(options.build, options.isDev ? 'development' : 'production')
    app.use((req, res, next) => {
      void (async () => {
        const request = await readPageRequest(req, res)
        const client = clientOf(req)
        // The reader's language, for messages server code words without the request (refused forms).
        const lang = langOfRequest({
          cookie: request.headers.get('cookie'),
          acceptLanguage: request.headers.get('accept-language'),
        })
        const context: AppLoadContext = {
          cspNonce: res.locals.cspNonce,
          requestId: res.locals.requestId,
          ip: client.ip,
          isHttps: client.isHttps,
        }
        let response = await withPageLang(lang, () => handleRemix(request, context))
        for (const pause of LOST_CONNECTION_PAUSES_MS) {
          if (!context.databaseLost || response.status < 500 || !PAGE_READS.has(request.method)) break
          // A loader lost its database connection (a restart, a failover): a read is answered again on a
          // fresh one, as the API does (app/api/handler.server.ts).
          await response.body?.cancel()
          context.databaseLost = false
          await setTimeout(pause)
          response = await withPageLang(lang, () => handleRemix(request, context))
        }
        await sendFetchResponse(req, res, response)
      })().catch(next)
    })
  }
  app.use((_req, res) => {
    sendPlainPage(res, 404, 'This page does not exist.')
  })
  app.use(finalErrorHandler(options.isDev ?? false))

  const handle: HttpApp = (req, res) => {
    const url = req.url ?? '/'
    const path = pathOf(url)
    if (!isApiPath(path)) {
      app(req, res)
      return
    }
    const requestId = beginRequest(req, res, path, routeOf)
    setDataHeaders(res)
    withRequestContext(requestId, () => answerApi(req, res, url, requestId, clientOf))
  }
  handle.listen = (port, host) => http.createServer(handle).listen(port, host)
  return handle
}

/** Page requests that only read: answered again after a lost database connection. */
const PAGE_READS = new Set(['GET', 'HEAD'])

const REQUEST_ID = /^[A-Za-z0-9._-]{1,64}$/

/**
 * What every request gets first: its id (a well-formed incoming `X-Request-Id`, else a new one) on the answer
 * and in the log, a mark while it is in flight (background writes wait for a quiet moment:
 * quiet-moments.server.ts), and an access-log line and the request metrics (route by `routeOf`, never the
 * raw path: app/lib/metrics.server.ts) when it is answered. Returns the id.
 */
function beginRequest(
  req: IncomingMessage,
  res: ServerResponse,
  path: string,
  routeOf: RouteLabeler,
): string {
  const incoming = req.headers['x-request-id']
  const requestId = typeof incoming === 'string' && REQUEST_ID.test(incoming) ? incoming : crypto.randomUUID()
  res.setHeader('X-Request-Id', requestId)
  const started = process.hrtime.bigint()
  const ended = markRequest()
  res.once('close', ended)
  res.on('finish', () => {
    ended()
    const ms = Number(process.hrtime.bigint() - started) / 1e6
    const method = req.method ?? 'GET'
    observeHttpRequest(method, routeOf(method, path, res), res.statusCode, ms / 1e3)
    withRequestContext(requestId, () =>
      log().info({ method: req.method, path, status: res.statusCode, ms }, 'request'),
    )
  })
  return requestId
}

/** The path of a request line's target (before its query). */
function pathOf(url: string): string {
  const query = url.indexOf('?')
  return query < 0 ? url : url.slice(0, query)
}

/** Runs the dispatcher for a request; a failure to write the answer is logged and the connection closed. */
function answerApi(
  req: IncomingMessage,
  res: ServerResponse,
  url: string,
  requestId: string,
  clientOf: (req: IncomingMessage) => ClientAddress,
): void {
  serveApi(req, res, url, requestId, clientOf).catch((err: unknown) => {
    log().error({ err }, 'could not send an API answer')
    res.destroy()
  })
}

/**
 * The last stop of every error Express sees outside the API (a page refused at its input boundary, a path
 * the static server cannot decode, a failure of the Remix adapter): a plain page with a status and a short
 * message, never a stack or a source path. Only `npm run dev` shows the error itself.
 */
function finalErrorHandler(isDev: boolean) {
  return (error: unknown, _req: ExpressRequest, res: ExpressResponse, _next: NextFunction): void => {
    if (res.headersSent) {
      res.destroy()
      return
    }
    if (error instanceof PageInputError) {
      res.set(error.headers)
      sendPlainPage(res, error.status, error.message)
      return
    }
    const status = (error as { status?: unknown; statusCode?: unknown }).status
    if (typeof status === 'number' && status >= 400 && status < 500) {
      sendPlainPage(res, status, status === 404 ? 'This page does not exist.' : 'The request is not valid.')
      return
    }
    log().error({ err: error }, 'unhandled page error')
    sendPlainPage(
      res,
      500,
      isDev ? String((error as Error)?.stack ?? error) : 'Something went wrong on the server.',
    )
  }
}

const PAGE_TITLES: Record<number, string> = {
  400: 'Bad request / 잘못된 요청',
  403: 'Forbidden / 금지됨',
  404: 'Not found / 찾을 수 없음',
  405: 'Method not allowed / 허용되지 않는 메서드',
  413: 'Too large / 너무 큼',
  415: 'Not a form / 양식이 아님',
  500: 'Error / 오류',
}

/** A self-contained error page (no scripts, no build assets: it must render when nothing else works). */
function sendPlainPage(res: ExpressResponse, status: number, message: string): void {
  const title = PAGE_TITLES[status] ?? `Error ${status}`
  const html =
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${status} ${escapeHtml(title)}</title>` +
    `</head><body><main><h1>${status} ${escapeHtml(title)}</h1><p>${escapeHtml(message)}</p>` +
    '<p><a href="/">Home / 홈</a></p></main></body></html>'
  res.status(status).type('text/html; charset=utf-8').send(html)
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`)
}

/** The API dispatcher over Node's request; `target` is the request line's target (before any mount). */
async function serveApi(
  req: IncomingMessage,
  res: ServerResponse,
  target: string,
  requestId: string,
  clientOf: (req: IncomingMessage) => ClientAddress,
): Promise<void> {
  let response: Response
  const method = req.method ?? 'GET'
  try {
    if (isForbiddenMethod(method)) {
      response = rejectUnsupportedMethod(method.toUpperCase(), target)
    } else {
      const body = method === 'GET' || method === 'HEAD' ? undefined : new Uint8Array(await readBody(req))
      // A fixed base keeps a hostile Host header or a `//host` path from changing what the URL means.
      const url = `http://internal${target}`
      const request = new ApiRequest(method, url, nodeHeaderReader(req), body, () =>
        toFetchRequest(req, res, url, body),
      )
      response = await handleApiRequest(request, { requestId, ...clientOf(req) })
    }
  } catch (error) {
    response = toErrorResponse(error)
  }
  await sendFetchResponse(req, res, response)
}

/** An MCP request over Node's: the body read (bounded) and handed on with a Fetch `Request` (app/mcp/). */
async function serveMcp(
  req: IncomingMessage,
  res: ServerResponse,
  requestId: string,
  clientOf: (req: IncomingMessage) => ClientAddress,
): Promise<void> {
  let response: Response
  try {
    const body = req.method === 'POST' ? new Uint8Array(await readBody(req, MCP_MAX_BODY_BYTES)) : undefined
    const request = toFetchRequest(req, res, `http://internal${MCP_PATH}`, undefined)
    response = await handleMcpRequest(request, body, { requestId, ...clientOf(req) })
  } catch (error) {
    response = toErrorResponse(error)
  }
  await sendFetchResponse(req, res, response)
}

/**
 * Errors Node's HTTP parser answers before any of our code runs (a request line or headers over its limit,
 * bytes that are not HTTP): answered in the API's JSON envelope instead of an empty body. Attach to every
 * server that serves this app.
 */
export function answerClientErrors(server: Server): Server {
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Socket) => {
    if (!socket.writable || (socket as Socket & { _httpMessage?: unknown })._httpMessage) {
      socket.destroy()
      return
    }
    const tooLarge = error.code === 'HPE_HEADER_OVERFLOW'
    const appError = tooLarge
      ? new AppError('header_too_large', 'The request line and headers are larger than the server accepts.')
      : new AppError('bad_request', 'The request is not valid HTTP (malformed request line, header or path).')
    const body = JSON.stringify(errorBody(appError))
    socket.end(
      `HTTP/1.1 ${appError.status} ${tooLarge ? 'Request Header Fields Too Large' : 'Bad Request'}\r\n` +
        'Content-Type: application/json; charset=utf-8\r\n' +
        `Content-Length: ${Buffer.byteLength(body)}\r\n` +
        'Connection: close\r\n\r\n' +
        body,
    )
  })
  return server
}
