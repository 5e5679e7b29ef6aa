import type { AppLoadContext, EntryContext } from '@remix-run/node'
import { RemixServer } from '@remix-run/react'
import { isbot } from 'isbot'
import { renderToReadableStream } from 'react-dom/server.browser'
import { isConnectionLost } from '#db/sql.ts'
import { deadline } from './lib/deadline.ts'
import { log } from './lib/logger.server.ts'
import { NonceProvider } from './components/nonce.tsx'

/** The process entry points, reached by the CLI through the server build (see bin/glossary.js). */
export * as runtime from './server/runtime.server.ts'

/**
 * How long a page's render may wait for what it still streams before React gives up on it. An object so a test
 * can shorten it.
 */
export const RENDER = { abortDelayMs: 5_000 }

export default async function handleRequest(
  request: Request,
  responseStatusCode: number,
  responseHeaders: Headers,
  remixContext: EntryContext,
  loadContext: AppLoadContext,
) {
  const nonce = loadContext.cspNonce ?? ''
  let shellRendered = false
  // React's web-stream renderer, not `renderToPipeableStream`: React 18.3's Node renderer pads a 2 KiB chunk with
  // NUL bytes when a multi-byte character does not fit at its end (it writes the whole view, not the part it
  // filled), so a Korean page came out with "\0" inside words, shown as U+FFFD. The web-stream renderer copies
  // encoded bytes into its chunks and never pads (tests/e2e/phone-tables.e2e.test.ts reads the bytes).
  // The render is abandoned after the delay only while it is under way: aborting a finished render made React
  // close the stream it had already closed, a TypeError logged as "render error" five seconds after every page.
  const limit = deadline(RENDER.abortDelayMs)
  let body: Awaited<ReturnType<typeof renderToReadableStream>>
  try {
    body = await renderToReadableStream(
      <NonceProvider value={nonce}>
        <RemixServer
          context={remixContext}
          url={request.url}
          abortDelay={RENDER.abortDelayMs}
          nonce={nonce}
        />
      </NonceProvider>,
      {
        nonce,
        signal: limit.signal,
        onError(error: unknown) {
          responseStatusCode = 500
          if (shellRendered) log().error({ err: error }, 'render error')
        },
      },
    )
  } catch (error) {
    limit.clear()
    throw error
  }
  body.allReady.then(limit.clear, limit.clear)
  shellRendered = true
  // Crawlers get the whole page at once; browsers get it as it is rendered.
  if (isbot(request.headers.get('user-agent') ?? '')) await body.allReady
  responseHeaders.set('Content-Type', 'text/html; charset=utf-8')
  return new Response(body, { headers: responseHeaders, status: responseStatusCode })
}

/**
 * Remix calls this for errors thrown in loaders and actions; it logs (the boundary renders), and marks a lost
 * database connection so that the page handler can answer a read again.
 */
export function handleError(
  error: unknown,
  { request, context }: { request: Request; context: AppLoadContext },
) {
  if (request.signal.aborted) return
  if (isConnectionLost(error)) {
    context.databaseLost = true
    log().warn({ err: error }, 'database connection lost in a route')
    return
  }
  log().error({ err: error }, 'unhandled route error')
}
