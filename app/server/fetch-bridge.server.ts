import { Readable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import type { ReadableStream as NodeReadableStream } from 'node:stream/web'
import type { IncomingMessage, ServerResponse } from 'node:http'
import { AppError } from '#app/lib/errors.server.ts'
import type { HeaderReader } from '#app/lib/auth-gate.server.ts'
import { heldResponseBody } from '#app/lib/held-bodies.ts'
import { log } from '#app/lib/logger.server.ts'

/**
 * Node ↔ Fetch: the API dispatcher and the Remix pages both work on Fetch `Request`/`Response`; this module
 * is the one place that turns Node's request into one (with a body already read and bounded) and writes one
 * back (streamed, so NDJSON progress reaches the client as it is written). It needs only Node's request and
 * response, so the API's fast lane (app/server/http.server.ts) and Express's pages share it.
 */

/** The largest body any request may carry (batch validation: 10 MB of text plus JSON overhead). */
export const MAX_BODY_BYTES = 12 * 1024 * 1024

/**
 * Methods Node's HTTP parser accepts but the Fetch `Request` constructor refuses ("forbidden methods"): they
 * never reach a route, and are answered 405 before a `Request` is made.
 */
const FORBIDDEN_METHODS = new Set(['CONNECT', 'TRACE', 'TRACK'])

export function isForbiddenMethod(method: string): boolean {
  return FORBIDDEN_METHODS.has(method.toUpperCase())
}

export function requestHeaders(req: IncomingMessage): Headers {
  const headers = new Headers()
  for (const [key, value] of Object.entries(req.headers)) {
    if (value === undefined) continue
    for (const item of Array.isArray(value) ? value : [value]) headers.append(key, item)
  }
  return headers
}

/**
 * A Fetch request for `url` with Node's headers and the already read `body` (or, for a large upload, the body's
 * stream). The signal aborts when the client goes away before the answer is written (Remix stops pending
 * loaders then).
 */
export function toFetchRequest(
  req: IncomingMessage,
  res: ServerResponse,
  url: string,
  body: Uint8Array<ArrayBuffer> | ReadableStream<Uint8Array> | undefined,
  headers = requestHeaders(req),
): Request {
  const controller = new AbortController()
  let done = false
  res.on('finish', () => (done = true))
  res.on('close', () => {
    if (!done) controller.abort()
  })
  // A stream body (a large upload) is read as it arrives: fetch requires `duplex: 'half'` for one.
  const streamed = body instanceof ReadableStream ? { duplex: 'half' as const } : {}
  return new Request(url, {
    method: req.method ?? 'GET',
    headers,
    body,
    signal: controller.signal,
    ...streamed,
  })
}

/**
 * Node's request headers as the API dispatcher reads them, by name: Node has already folded repeated headers
 * (joined with ", ", cookies with "; ", and a repeated Authorization, Content-Type or Host keeps its first
 * value), and a Fetch `Headers` would check every name and value again.
 */
export function nodeHeaderReader(req: IncomingMessage): HeaderReader {
  return {
    get(name) {
      const value = req.headers[name.toLowerCase()]
      if (value === undefined) return null
      return Array.isArray(value) ? value.join(', ') : value
    },
  }
}

/** Reads the body up to the limit; past it the rest is drained unread so the client still gets its 413. */
export function readBody(req: IncomingMessage, max = MAX_BODY_BYTES): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    let size = 0
    req.on('data', (chunk: Buffer) => {
      size += chunk.length
      if (size <= max) chunks.push(chunk)
    })
    req.on('end', () => {
      if (size > max) reject(new AppError('payload_too_large', `The body is larger than ${max} bytes.`))
      else resolve(Buffer.concat(chunks))
    })
    req.on('error', reject)
  })
}

/** Writes a Fetch response to Node's, streaming its body. */
export async function sendFetchResponse(
  req: IncomingMessage,
  res: ServerResponse,
  response: Response,
): Promise<void> {
  res.statusCode = response.status
  response.headers.forEach((value, key) => {
    if (key !== 'set-cookie') res.setHeader(key, value)
  })
  const cookies = response.headers.getSetCookie()
  if (cookies.length) res.setHeader('Set-Cookie', cookies)
  // A held text is checked first: asking a held response for its `body` would build the stream it avoids.
  const held = heldResponseBody(response)
  if (req.method === 'HEAD' || (held === undefined && !response.body)) {
    // A streamed body a HEAD answer does not send is cancelled, so its producer lets go of what it holds (an
    // export's slot, app/services/share/export-slots.server.ts).
    if (held === undefined) await response.body?.cancel().catch(() => undefined)
    res.end()
    return
  }
  if (held !== undefined) {
    // A text is encoded once here: `res.end(text)` measures the text's UTF-8 length for Content-Length and then
    // encodes it, two passes over a large answer.
    res.end(typeof held === 'string' ? Buffer.from(held, 'utf8') : held)
    return
  }
  await pipeline(Readable.fromWeb(response.body as NodeReadableStream<Uint8Array>), res).catch(
    (err: unknown) => {
      // A client that goes away mid-stream is not an error of ours.
      if ((err as NodeJS.ErrnoException).code !== 'ERR_STREAM_PREMATURE_CLOSE') {
        log().warn({ err }, 'response stream failed')
      }
    },
  )
}
