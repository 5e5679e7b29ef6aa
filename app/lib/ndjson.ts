/**
 * Newline-delimited JSON (`application/x-ndjson`): one JSON value per line, written and read as they come.
 * Progress streams use it (docs/decisions/007-validation-and-import.md); this module serves both ends, the
 * server that writes a stream and the page (or script) that reads one.
 */

/**
 * A streamed response of newline-delimited JSON (`application/x-ndjson`): one line per value, written as the
 * values come. Reverse proxies are asked not to buffer it; a client that goes away stops the iteration.
 */
export function ndjsonResponse(lines: AsyncIterable<unknown>, init: ResponseInit = {}): Response {
  const encoder = new TextEncoder()
  const iterator = lines[Symbol.asyncIterator]()
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      const next = await iterator.next()
      if (next.done) controller.close()
      else controller.enqueue(encoder.encode(`${JSON.stringify(next.value)}\n`))
    },
    async cancel() {
      await iterator.return?.(undefined)
    },
  })
  const headers = new Headers(init.headers)
  headers.set('Content-Type', 'application/x-ndjson; charset=utf-8')
  headers.set('Cache-Control', 'no-store')
  headers.set('X-Accel-Buffering', 'no')
  return new Response(body, { ...init, headers })
}

/** Whether the client asked for a progress stream (`Accept: application/x-ndjson`). */
export function wantsNdjson(request: Request): boolean {
  return /application\/x-ndjson/i.test(request.headers.get('accept') ?? '')
}

/** The values of a newline-delimited JSON stream, one per line, as the lines arrive. */
export async function* readNdjson<T>(body: ReadableStream<Uint8Array>): AsyncGenerator<T> {
  const reader = body.getReader()
  const decoder = new TextDecoder()
  let buffered = ''
  try {
    for (;;) {
      const { value, done } = await reader.read()
      if (done) break
      buffered += decoder.decode(value, { stream: true })
      const lines = buffered.split('\n')
      buffered = lines.pop()!
      for (const line of lines) if (line.trim()) yield JSON.parse(line) as T
    }
    buffered += decoder.decode()
    if (buffered.trim()) yield JSON.parse(buffered) as T
  } finally {
    reader.releaseLock()
  }
}
