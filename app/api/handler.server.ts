import type { z } from 'zod'
import type { Actor } from '#domain/identity.ts'
import { setTimeout } from 'node:timers/promises'
import { isConnectionLost, LOST_CONNECTION_PAUSES_MS } from '#db/sql.ts'
import { authorize } from '#app/lib/auth-gate.server.ts'
import { getConfig } from '#app/lib/config.server.ts'
import { withDeferredWrites } from '#app/lib/deferred-writes.server.ts'
import { AppError, toErrorResponse, validationError, zodProblems } from '#app/lib/errors.server.ts'
import { bytesResponse, jsonResponse } from '#app/lib/held-bodies.ts'
import { jsonDepthProblem } from '#app/lib/json-depth.ts'
import { log } from '#app/lib/logger.server.ts'
import { decodeUtf8Text, textProblems } from '#app/lib/text-input.ts'
import { ApiRequest } from './api-request.server.ts'
import type { Endpoint, HandlerContext } from './endpoint.server.ts'
import { API_PREFIX } from './endpoint.server.ts'
import { router } from './registry.server.ts'
import type { RouteMatch, Router } from './router.server.ts'

export interface RequestMeta {
  requestId: string
  ip: string
  isHttps: boolean
}

const DEFAULT_MAX_BODY = 1024 * 1024

/**
 * The one wrapper every `/api/v1` call goes through: route, authorize, parse with the endpoint's zod schemas,
 * call its handler, and turn any failure into the spec's error envelope through `toErrorResponse`.
 */
export async function handleApiRequest(
  incoming: ApiRequest | Request,
  meta: RequestMeta,
  routes: Router = router(),
): Promise<Response> {
  try {
    const request = incoming instanceof ApiRequest ? incoming : await ApiRequest.fromFetch(incoming)
    for (const pause of LOST_CONNECTION_PAUSES_MS) {
      try {
        return await answer(request, meta, routes)
      } catch (error) {
        if (!READS.has(request.method) || !isConnectionLost(error)) throw error
        // The database ended a connection under a read (a restart, a failover, `pg_terminate_backend`). A
        // read changes nothing the caller asked to change, so it is answered again on a fresh connection
        // instead of failing (the fault matrix's "webs answering throughout").
        log().warn({ err: error }, 'database connection lost during a read; answering it again')
        await setTimeout(pause)
      }
    }
    return await answer(request, meta, routes)
  } catch (error) {
    return toErrorResponse(error)
  }
}

/** Methods that only read: answered again after a lost database connection. */
const READS = new Set(['GET', 'HEAD'])

/** One attempt at a call: route, authorize, parse, run the handler, shape the answer; failures are thrown. */
async function answer(request: ApiRequest, meta: RequestMeta, routes: Router): Promise<Response> {
  const url = new URL(request.url)
  const match = resolveRoute(request.method, url, routes)
  const { endpoint } = match
  const actor = await authorize(request, endpoint.access, meta.ip)
  const rawQuery = readQuery(url)
  const rawBody = endpoint.body ? readJsonBody(request, endpoint) : undefined
  // The text rule of every operation, checked once before any schema or service sees the input.
  const textIssues = [
    ...textProblems(match.params, 'params'),
    ...textProblems(rawQuery, 'query'),
    ...textProblems(rawBody, ''),
  ]
  if (textIssues.length) throw validationError(textIssues)
  const params = parsePart(endpoint.params, match.params, 'params')
  const query = parsePart(endpoint.query, rawQuery, 'query')
  const body = endpoint.body ? parsePart(endpoint.body, rawBody, 'body') : undefined
  const ctx: HandlerContext<unknown, unknown, unknown> = new CallContext(
    request,
    params,
    query,
    body,
    actor,
    meta,
  )
  // Bookkeeping a handler defers (an AI run's record) is written before its answer goes out.
  const result = await withDeferredWrites(() => endpoint.handler(ctx as HandlerContext<never, never, never>))
  if (!getConfig().isProduction) assertDocumentedAnswer(endpoint, result)
  return toResponse(result, endpoint, ctx.responseHeaders)
}

/**
 * What a handler is given. A class, not an object literal with a `get request()`: a getter in a literal gets
 * an accessor pair of its own in V8's old generation for every object made, and that pair, dead but not yet
 * collected, kept the getter's closure, and with it the whole call (the body's texts, zod's output, the
 * results), alive through every young-generation collection until the next full one. Over a stream of
 * lookups ~1.1 MB was promoted per young collection, against a few KB without the literal as long as V8 does
 * not pretenure some other site (decision 013, session 11). A getter on the prototype is made once.
 */
class CallContext implements HandlerContext<unknown, unknown, unknown> {
  readonly responseHeaders = new Headers()
  readonly requestId: string
  readonly ip: string
  readonly isHttps: boolean
  readonly #apiRequest: ApiRequest

  constructor(
    apiRequest: ApiRequest,
    readonly params: unknown,
    readonly query: unknown,
    readonly body: unknown,
    readonly actor: Actor | null,
    meta: RequestMeta,
  ) {
    this.#apiRequest = apiRequest
    this.requestId = meta.requestId
    this.ip = meta.ip
    this.isHttps = meta.isHttps
  }

  /** A Fetch Request, made only for the few handlers that ask (uploads, some header reads). */
  get request(): Request {
    return this.#apiRequest.toRequest()
  }
}

/** Routes a method and URL; an unknown path, a wrong method or a malformed path throws the matching AppError. */
function resolveRoute(method: string, url: URL, routes: Router): Extract<RouteMatch, { kind: 'found' }> {
  const path = url.pathname.startsWith(API_PREFIX) ? url.pathname.slice(API_PREFIX.length) : url.pathname
  const match = routes.match(method, path)
  if (match.kind === 'bad_encoding') {
    throw validationError([{ path: '(path)', message: 'The path has malformed percent-encoding.' }])
  }
  if (match.kind === 'not_found') throw new AppError('not_found', `No API route ${method} ${url.pathname}.`)
  if (match.kind === 'method_not_allowed') {
    throw new AppError('method_not_allowed', `${method} is not allowed on ${url.pathname}.`, {
      headers: { Allow: [...new Set(match.allow)].join(', ') },
    })
  }
  return match
}

/**
 * The answer to a method no `Request` can carry (TRACE, CONNECT, TRACK): 405 with the path's `Allow`, or 404
 * when the path is unknown, in the same envelope as every other error.
 */
export function rejectUnsupportedMethod(
  method: string,
  pathAndQuery: string,
  routes: Router = router(),
): Response {
  try {
    resolveRoute(method, new URL(`http://internal${pathAndQuery}`), routes)
    return toErrorResponse(new AppError('method_not_allowed', `${method} is not supported.`))
  } catch (error) {
    return toErrorResponse(error)
  }
}

/**
 * Outside production (tests, development), every JSON answer is checked against the endpoint's documented
 * response schema — the one the OpenAPI document shows — so the document cannot drift from what the service
 * really answers: a mismatch fails the request (500, logged with the problems) and so the test that made it.
 * Production skips the check (its cost grows with the answer: a 1 MB validation answer takes milliseconds).
 */
function assertDocumentedAnswer(endpoint: Endpoint, result: unknown): void {
  if (!endpoint.response || result === undefined || result instanceof Response) return
  const parsed = endpoint.response.safeParse(JSON.parse(JSON.stringify(result)))
  if (!parsed.success) {
    const problems = zodProblems(parsed.error)
      .slice(0, 5)
      .map((p) => `${p.path}: ${p.message}`)
    throw new Error(
      `${endpoint.operationId} answered outside its documented schema (${problems.join('; ')}).`,
    )
  }
}

function toResponse(result: unknown, endpoint: Endpoint, headers: Headers): Response {
  if (result instanceof Response) {
    headers.forEach((value, key) => result.headers.append(key, value))
    return result
  }
  const status = endpoint.successStatus ?? 200
  if (status === 204 || result === undefined) {
    return new Response(null, { status: status === 200 ? 204 : status, headers })
  }
  headers.set('Content-Type', 'application/json; charset=utf-8')
  if (endpoint.encode) return bytesResponse(endpoint.encode(result as never), { status, headers })
  return jsonResponse(result, { status, headers })
}

function parsePart(
  schema: z.ZodType | undefined,
  value: unknown,
  part: 'params' | 'query' | 'body',
): unknown {
  if (!schema) return part === 'body' ? undefined : value
  const result = schema.safeParse(value)
  if (!result.success) throw validationError(zodProblems(result.error, part === 'body' ? undefined : part))
  return result.data
}

/** Query string to an object; a repeated key becomes an array. Malformed percent-encoding is refused. */
function readQuery(url: URL): Record<string, string | string[]> {
  for (const piece of url.search.slice(1).split('&')) {
    try {
      decodeURIComponent(piece.replace(/\+/g, ' '))
    } catch {
      throw validationError([{ path: 'query', message: 'The query string has malformed percent-encoding.' }])
    }
  }
  const out: Record<string, string | string[]> = {}
  for (const [key, value] of url.searchParams) {
    const prev = out[key]
    out[key] = prev === undefined ? value : Array.isArray(prev) ? [...prev, value] : [prev, value]
  }
  return out
}

function readJsonBody(request: ApiRequest, endpoint: Endpoint): unknown {
  const max = endpoint.maxBodyBytes ?? DEFAULT_MAX_BODY
  const declared = Number(request.headers.get('content-length') ?? '0')
  if (declared > max) throw new AppError('payload_too_large', `The body is larger than ${max} bytes.`)
  const bytes = request.body ?? new Uint8Array()
  if (bytes.byteLength > max) throw new AppError('payload_too_large', `The body is larger than ${max} bytes.`)
  const text = decodeUtf8Text(bytes, '(body)')
  if (text.trim() === '') return undefined
  const type = (request.headers.get('content-type') ?? '').split(';')[0]!.trim().toLowerCase()
  if (type !== 'application/json' && !type.endsWith('+json')) {
    throw validationError([
      { path: '(body)', message: `Send the body as application/json (got "${type || 'no content type'}").` },
    ])
  }
  // Before the parse: the text rule's walk and zod recurse over what it builds (issue 26, decision 012).
  const tooDeep = jsonDepthProblem(text, '(body)')
  if (tooDeep) throw validationError([tooDeep])
  try {
    return JSON.parse(text)
  } catch {
    throw validationError([{ path: '(body)', message: 'The body is not valid JSON.' }])
  }
}
