/**
 * Every request to an address an administrator typed (AI providers today) goes through `boundedFetch`: only
 * http and https, no redirect followed at all (so never to another scheme or host), a time limit on the whole
 * exchange and a size limit on the answer, read as a stream so an endless body is cut off. The caller gets the
 * status and the parsed JSON, never a partial or unbounded body.
 */

export interface BoundedRequest {
  method: 'GET' | 'POST'
  headers: Record<string, string>
  body?: unknown
  /** Whole exchange, headers and body. */
  timeoutMs: number
  /** Largest answer body read, in bytes. */
  maxBytes: number
}

export interface BoundedResponse {
  status: number
  /** The answer parsed as JSON, or undefined when it is not JSON. */
  json: unknown
  /** `Retry-After` in seconds, when given. */
  retryAfter: number | undefined
}

/** Why an outbound request did not produce an answer. */
export class OutboundError extends Error {
  constructor(
    readonly kind: 'timeout' | 'network' | 'too_large' | 'redirect' | 'scheme',
    message: string,
  ) {
    super(message)
    this.name = 'OutboundError'
  }
}

/** An http(s) URL, or an error naming the problem. */
export function checkOutboundUrl(raw: string): URL {
  let url: URL
  try {
    url = new URL(raw)
  } catch {
    throw new OutboundError('scheme', 'The address is not a valid URL.')
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new OutboundError('scheme', 'Only http and https addresses are allowed.')
  }
  return url
}

export async function boundedFetch(rawUrl: string, request: BoundedRequest): Promise<BoundedResponse> {
  const url = checkOutboundUrl(rawUrl)
  const signal = AbortSignal.timeout(request.timeoutMs)
  let response: Response
  try {
    response = await fetch(url, {
      method: request.method,
      headers: {
        accept: 'application/json',
        ...(request.body === undefined ? {} : { 'content-type': 'application/json' }),
        ...request.headers,
      },
      body: request.body === undefined ? undefined : JSON.stringify(request.body),
      redirect: 'manual',
      signal,
    })
  } catch (error) {
    throw failure(error, signal)
  }
  if (response.status >= 300 && response.status < 400) {
    await response.body?.cancel().catch(() => undefined)
    throw new OutboundError('redirect', `The server answered with a redirect (HTTP ${response.status}).`)
  }
  let text: string
  try {
    text = await readBounded(response, request.maxBytes)
  } catch (error) {
    throw failure(error, signal)
  }
  let json: unknown
  try {
    json = text ? JSON.parse(text) : undefined
  } catch {
    json = undefined
  }
  const retryAfter = Number(response.headers.get('retry-after'))
  return { status: response.status, json, retryAfter: Number.isFinite(retryAfter) ? retryAfter : undefined }
}

function failure(error: unknown, signal: AbortSignal): OutboundError {
  if (error instanceof OutboundError) return error
  if (signal.aborted) return new OutboundError('timeout', 'The server did not answer in time.')
  return new OutboundError('network', 'The server could not be reached.')
}

async function readBounded(response: Response, maxBytes: number): Promise<string> {
  const declared = Number(response.headers.get('content-length'))
  if (Number.isFinite(declared) && declared > maxBytes) {
    await response.body?.cancel().catch(() => undefined)
    throw new OutboundError('too_large', 'The answer is larger than allowed.')
  }
  if (!response.body) return ''
  const reader = response.body.getReader()
  const chunks: Uint8Array[] = []
  let size = 0
  for (;;) {
    const { done, value } = await reader.read()
    if (done) break
    size += value.byteLength
    if (size > maxBytes) {
      await reader.cancel().catch(() => undefined)
      throw new OutboundError('too_large', 'The answer is larger than allowed.')
    }
    chunks.push(value)
  }
  return Buffer.concat(chunks).toString('utf8')
}
