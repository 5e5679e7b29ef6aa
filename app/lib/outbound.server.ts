/**
 * Requests to addresses an administrator typed (SSO discovery, token, userinfo and JWKS requests): http or https
 * only, a time limit on the whole exchange, a size limit on the body, and redirects followed by hand — at most a
 * few, never to another scheme, never for a request with a body. Answers a fully read `Response`, so callers
 * (openid-client, jose) can use it as their `customFetch`.
 */

export const OUTBOUND_LIMITS = { timeoutMs: 5000, maxBytes: 1024 * 1024, maxRedirects: 3 } as const

export class OutboundError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'OutboundError'
  }
}

function checkedUrl(value: string | URL): URL {
  let url: URL
  try {
    url = new URL(value)
  } catch {
    throw new OutboundError('The address is not a valid URL.')
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new OutboundError('Only http:// and https:// addresses can be requested.')
  }
  return url
}

async function readLimited(response: Response, maxBytes: number): Promise<Uint8Array<ArrayBuffer>> {
  const declared = Number(response.headers.get('content-length') ?? '0')
  if (declared > maxBytes) throw new OutboundError(`The answer is larger than ${maxBytes} bytes.`)
  if (!response.body) return new Uint8Array(new ArrayBuffer(0))
  const reader = response.body.getReader()
  const chunks: Uint8Array[] = []
  let size = 0
  for (;;) {
    const { done, value } = await reader.read()
    if (done) break
    size += value.byteLength
    if (size > maxBytes) {
      await reader.cancel()
      throw new OutboundError(`The answer is larger than ${maxBytes} bytes.`)
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

/** `fetch` with the limits above. Network failures and limit breaches throw `OutboundError`. */
export async function boundedFetch(
  input: string | URL,
  init: RequestInit = {},
  limits: Partial<typeof OUTBOUND_LIMITS> = {},
): Promise<Response> {
  const { timeoutMs, maxBytes, maxRedirects } = { ...OUTBOUND_LIMITS, ...limits }
  const timeout = AbortSignal.timeout(timeoutMs)
  const signal = init.signal ? AbortSignal.any([init.signal, timeout]) : timeout
  let url = checkedUrl(input)
  const scheme = url.protocol
  try {
    for (let hop = 0; ; hop++) {
      const response = await fetch(url, { ...init, redirect: 'manual', signal })
      const location = response.headers.get('location')
      if (response.status >= 300 && response.status < 400 && location) {
        await response.body?.cancel()
        const method = (init.method ?? 'GET').toUpperCase()
        if (method !== 'GET' && method !== 'HEAD')
          throw new OutboundError('A redirect of a request with a body is not followed.')
        if (hop >= maxRedirects) throw new OutboundError('Too many redirects.')
        const next = checkedUrl(new URL(location, url))
        if (next.protocol !== scheme) throw new OutboundError('A redirect to another scheme is not followed.')
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
    if (timeout.aborted) throw new OutboundError(`No answer within ${timeoutMs} ms.`)
    throw new OutboundError(`The request failed: ${(error as Error).message}`)
  }
}
