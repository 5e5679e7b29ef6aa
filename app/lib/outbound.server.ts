import http from 'node:http'
import https from 'node:https'
import { deadline } from './deadline.ts'

/**
 * Every request to an address an administrator typed (AI providers, SSO discovery, token, userinfo and JWKS
 * requests) goes through `boundedFetch`: http and https only, a time limit on the whole exchange, a size limit
 * on the answer (read as a stream, so an endless body is cut off), and redirects followed by hand — at most
 * `maxRedirects`, never to another scheme, never for a request with a body. It answers a fully read
 * `Response`, so libraries can use it as their `fetch` (openid-client's `customFetch`, jose's JWKS fetch).
 * `boundedJson` is the JSON call of the AI providers (the same rules, no redirect followed) and
 * `boundedStream` their streamed chat answers.
 */

export interface OutboundLimits {
  /** Whole exchange, headers and body, every redirect included. */
  timeoutMs: number
  /** Largest answer body read, in bytes. */
  maxBytes: number
  /** Redirects followed (0: a redirect is an error). */
  maxRedirects: number
}

export const OUTBOUND_LIMITS: OutboundLimits = { timeoutMs: 5000, maxBytes: 1024 * 1024, maxRedirects: 3 }

/** Why an outbound request did not produce an answer. */
export type OutboundFailure = 'timeout' | 'network' | 'too_large' | 'redirect' | 'scheme'

export class OutboundError extends Error {
  constructor(
    readonly kind: OutboundFailure,
    message: string,
  ) {
    super(message)
    this.name = 'OutboundError'
  }
}

/** An http(s) URL, or an `OutboundError` naming the problem. */
export function checkOutboundUrl(value: string | URL): URL {
  let url: URL
  try {
    url = new URL(value)
  } catch {
    throw new OutboundError('scheme', 'The address is not a valid URL.')
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new OutboundError('scheme', 'Only http:// and https:// addresses can be requested.')
  }
  return url
}

/** `fetch` with the limits above. Network failures and limit breaches throw `OutboundError`. */
export async function boundedFetch(
  input: string | URL,
  init: RequestInit = {},
  limits: Partial<OutboundLimits> = {},
): Promise<Response> {
  const { timeoutMs, maxBytes, maxRedirects } = { ...OUTBOUND_LIMITS, ...limits }
  const timeout = deadline(timeoutMs)
  const signal = init.signal ? AbortSignal.any([init.signal, timeout.signal]) : timeout.signal
  let url = checkOutboundUrl(input)
  const scheme = url.protocol
  try {
    for (let hop = 0; ; hop++) {
      const response = await fetch(url, { ...init, redirect: 'manual', signal })
      if (response.status >= 300 && response.status < 400) {
        await response.body?.cancel().catch(() => undefined)
        const location = response.headers.get('location')
        const method = (init.method ?? 'GET').toUpperCase()
        if (!location || hop >= maxRedirects || (method !== 'GET' && method !== 'HEAD')) {
          throw new OutboundError(
            'redirect',
            `The server answered with a redirect (HTTP ${response.status}).`,
          )
        }
        const next = checkOutboundUrl(new URL(location, url))
        if (next.protocol !== scheme) {
          throw new OutboundError('redirect', 'A redirect to another scheme is not followed.')
        }
        url = next
        continue
      }
      const body = await readLimited(response, maxBytes)
      return new Response(response.status === 204 || response.status === 304 ? null : body, {
        status: response.status,
        statusText: response.statusText,
        headers: response.headers,
      })
    }
  } catch (error) {
    if (error instanceof OutboundError) throw error
    if (timeout.signal.aborted) throw new OutboundError('timeout', `No answer within ${timeoutMs} ms.`)
    throw new OutboundError('network', 'The server could not be reached.')
  } finally {
    timeout.clear()
  }
}

async function readLimited(response: Response, maxBytes: number): Promise<Uint8Array<ArrayBuffer>> {
  const tooLarge = () => new OutboundError('too_large', `The answer is larger than ${maxBytes} bytes.`)
  const declared = Number(response.headers.get('content-length') ?? '0')
  if (declared > maxBytes) {
    await response.body?.cancel().catch(() => undefined)
    throw tooLarge()
  }
  if (!response.body) return new Uint8Array(new ArrayBuffer(0))
  const reader = response.body.getReader()
  const chunks: Uint8Array[] = []
  let size = 0
  for (;;) {
    const { done, value } = await reader.read()
    if (done) break
    size += value.byteLength
    if (size > maxBytes) {
      await reader.cancel().catch(() => undefined)
      throw tooLarge()
    }
    chunks.push(value)
  }
  const out = new Uint8Array(new ArrayBuffer(size))
  let offset = 0
  for (const chunk of chunks) {
    out.set(chunk, offset)
    offset += chunk.byteLength
  }
  return out
}

export interface JsonRequest {
  method: 'GET' | 'POST'
  headers: Record<string, string>
  body?: unknown
  timeoutMs: number
  maxBytes: number
}

export interface JsonAnswer {
  status: number
  /** The answer parsed as JSON, or undefined when it is not JSON. */
  json: unknown
  /** `Retry-After` in seconds, when given. */
  retryAfter: number | undefined
}

/**
 * Kept-alive connections for `boundedJson`, one pool per scheme: a search embeds its query with one call, and a
 * new connection per call would add a handshake (and, over https, a TLS one) to every search.
 */
const AGENTS = {
  'http:': new http.Agent({ keepAlive: true, maxSockets: 64, maxFreeSockets: 16 }),
  'https:': new https.Agent({ keepAlive: true, maxSockets: 64, maxFreeSockets: 16 }),
}

/**
 * A JSON call that follows no redirect: the status, the parsed answer and `Retry-After`. Over `node:http(s)`
 * rather than `fetch`: it is on the path of every search by meaning (the query's embedding), and undici's fetch
 * cost the service ~0.5 ms of CPU a call more there (bench/rag-search.bench.ts, decision 016).
 */
export async function boundedJson(url: string, request: JsonRequest): Promise<JsonAnswer> {
  const target = checkOutboundUrl(url)
  const body = request.body === undefined ? undefined : Buffer.from(JSON.stringify(request.body))
  const headers: Record<string, string> = {
    accept: 'application/json',
    ...(body === undefined
      ? {}
      : { 'content-type': 'application/json', 'content-length': String(body.length) }),
    ...request.headers,
  }
  const client = target.protocol === 'https:' ? https : http
  return new Promise<JsonAnswer>((resolve, reject) => {
    let settled = false
    const fail = (error: OutboundError) => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      call.destroy()
      reject(error)
    }
    const timer = setTimeout(
      () => fail(new OutboundError('timeout', `No answer within ${request.timeoutMs} ms.`)),
      request.timeoutMs,
    )
    let call: http.ClientRequest
    try {
      call = client.request(
        target,
        { method: request.method, headers, agent: AGENTS[target.protocol as keyof typeof AGENTS] },
        (response) => {
          const status = response.statusCode ?? 0
          if (status >= 300 && status < 400) {
            response.resume()
            return fail(
              new OutboundError('redirect', `The server answered with a redirect (HTTP ${status}).`),
            )
          }
          const tooLarge = () =>
            new OutboundError('too_large', `The answer is larger than ${request.maxBytes} bytes.`)
          if (Number(response.headers['content-length'] ?? '0') > request.maxBytes) return fail(tooLarge())
          const chunks: Buffer[] = []
          let size = 0
          response.on('data', (chunk: Buffer) => {
            size += chunk.length
            if (size > request.maxBytes) return fail(tooLarge())
            chunks.push(chunk)
          })
          const cut = () =>
            fail(new OutboundError('network', 'The connection was cut before the answer ended.'))
          response.on('error', cut)
          response.on('close', () => {
            if (!response.complete) cut()
          })
          response.on('end', () => {
            if (settled) return
            settled = true
            clearTimeout(timer)
            const text = Buffer.concat(chunks, size).toString('utf8')
            let json: unknown
            try {
              json = text ? JSON.parse(text) : undefined
            } catch {
              json = undefined
            }
            const retryAfter = response.headers['retry-after']
            resolve({ status, json, retryAfter: retryAfterSeconds(retryAfter ?? null) })
          })
        },
      )
    } catch {
      // An address or header node:http refuses (as fetch did): nothing was sent.
      clearTimeout(timer)
      return reject(new OutboundError('network', 'The server could not be reached.'))
    }
    call.on('error', () => fail(new OutboundError('network', 'The server could not be reached.')))
    call.end(body)
  })
}

/** `Retry-After` as seconds from now: delay-seconds, or an HTTP date (RFC 9110 §10.2.3); undefined otherwise. */
export function retryAfterSeconds(header: string | null, now = Date.now()): number | undefined {
  if (header === null || header.trim() === '') return undefined
  if (/^\s*\d+\s*$/.test(header)) return Number(header)
  const at = Date.parse(header)
  return Number.isFinite(at) ? Math.max(0, Math.ceil((at - now) / 1000)) : undefined
}

export interface StreamRequest {
  method: 'GET' | 'POST'
  headers: Record<string, string>
  body?: unknown
  /** Until the answer's status and headers arrive (connecting included). */
  firstByteTimeoutMs: number
  /** The whole exchange, the last byte of the body included. */
  timeoutMs: number
  /** Largest answer body read, in bytes. */
  maxBytes: number
}

export interface StreamAnswer {
  status: number
  contentType: string
  /** `Retry-After` in seconds, when given. */
  retryAfter: number | undefined
  /**
   * The body, piece by piece as it arrives, within the limits: a breach throws `OutboundError` (`timeout`,
   * `too_large`), and a connection cut before the body ended throws `OutboundError('network')`. Read it once.
   */
  body: AsyncIterable<Uint8Array>
  /** Stops reading and closes the connection (after a non-success status, or when the caller gives up). */
  cancel(): Promise<void>
}

/**
 * The streaming variant of `boundedJson` for answers read as they arrive (a chat model's server-sent events):
 * the same URL rules, no redirect followed, a time limit until the first byte (the status and headers), a time
 * limit on the whole exchange and a size limit on the body, both enforced while the caller reads `body`.
 */
export async function boundedStream(url: string, request: StreamRequest): Promise<StreamAnswer> {
  const target = checkOutboundUrl(url)
  // The total limit runs until the body is read to its end, cancelled or broken off (`done` below).
  const total = deadline(request.timeoutMs)
  const firstByte = deadline(request.firstByteTimeoutMs)
  const signal = AbortSignal.any([total.signal, firstByte.signal])
  const done = () => total.clear()
  const timedOut = () =>
    new OutboundError(
      'timeout',
      firstByte.signal.aborted
        ? `No answer within ${request.firstByteTimeoutMs} ms.`
        : `The answer did not end within ${request.timeoutMs} ms.`,
    )
  let response: Response
  try {
    response = await fetch(target, {
      method: request.method,
      headers: {
        ...(request.body === undefined ? {} : { 'content-type': 'application/json' }),
        ...request.headers,
      },
      body: request.body === undefined ? undefined : JSON.stringify(request.body),
      redirect: 'manual',
      signal,
    })
  } catch {
    done()
    throw signal.aborted ? timedOut() : new OutboundError('network', 'The server could not be reached.')
  } finally {
    firstByte.clear()
  }
  const cancel = async () => {
    done()
    await response.body?.cancel().catch(() => undefined)
  }
  if (response.status >= 300 && response.status < 400) {
    await cancel()
    throw new OutboundError('redirect', `The server answered with a redirect (HTTP ${response.status}).`)
  }
  const declared = Number(response.headers.get('content-length') ?? '0')
  if (declared > request.maxBytes) {
    await cancel()
    throw new OutboundError('too_large', `The answer is larger than ${request.maxBytes} bytes.`)
  }
  async function* body(): AsyncGenerator<Uint8Array> {
    if (!response.body) return
    const reader = response.body.getReader()
    let size = 0
    let finished = false
    try {
      for (;;) {
        let chunk: ReadableStreamReadResult<Uint8Array>
        try {
          chunk = await reader.read()
        } catch {
          throw signal.aborted
            ? timedOut()
            : new OutboundError('network', 'The connection was cut before the answer ended.')
        }
        if (chunk.done) break
        size += chunk.value.byteLength
        if (size > request.maxBytes) {
          throw new OutboundError('too_large', `The answer is larger than ${request.maxBytes} bytes.`)
        }
        yield chunk.value
      }
      finished = true
    } finally {
      // A caller that stops early, a breach or a cut: close the connection rather than drain it.
      if (!finished) await reader.cancel().catch(() => undefined)
      reader.releaseLock()
      done()
    }
  }
  return {
    status: response.status,
    contentType: response.headers.get('content-type') ?? '',
    retryAfter: retryAfterSeconds(response.headers.get('retry-after')),
    body: body(),
    cancel,
  }
}
