import { PassThrough } from 'node:stream'
import { createReadableStreamFromReadable, type AppLoadContext, type EntryContext } from '@remix-run/node'
import { RemixServer } from '@remix-run/react'
import { isbot } from 'isbot'
import { renderToPipeableStream } from 'react-dom/server'
import { log } from './lib/logger.server.ts'
import { NonceProvider } from './components/nonce.tsx'

/** The process entry points, reached by the CLI through the server build (see bin/glossary.js). */
export * as runtime from './server/runtime.server.ts'

const ABORT_DELAY = 5_000

export default function handleRequest(
  request: Request,
  responseStatusCode: number,
  responseHeaders: Headers,
  remixContext: EntryContext,
  loadContext: AppLoadContext,
) {
  const nonce = loadContext.cspNonce ?? ''
  const callback = isbot(request.headers.get('user-agent') ?? '') ? 'onAllReady' : 'onShellReady'
  return new Promise((resolve, reject) => {
    let shellRendered = false
    const { pipe, abort } = renderToPipeableStream(
      <NonceProvider value={nonce}>
        <RemixServer context={remixContext} url={request.url} abortDelay={ABORT_DELAY} nonce={nonce} />
      </NonceProvider>,
      {
        nonce,
        [callback]: () => {
          shellRendered = true
          const body = new PassThrough()
          responseHeaders.set('Content-Type', 'text/html; charset=utf-8')
          resolve(
            new Response(createReadableStreamFromReadable(body), {
              headers: responseHeaders,
              status: responseStatusCode,
            }),
          )
          pipe(body)
        },
        onShellError: reject,
        onError(error: unknown) {
          responseStatusCode = 500
          if (shellRendered) log().error({ err: error }, 'render error')
        },
      },
    )
    setTimeout(abort, ABORT_DELAY)
  })
}

/** Remix calls this for errors thrown in loaders and actions; it only logs (the boundary renders). */
export function handleError(error: unknown, { request }: { request: Request }) {
  if (request.signal.aborted) return
  log().error({ err: error }, 'unhandled route error')
}
