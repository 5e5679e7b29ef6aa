import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { getConfig } from '#app/lib/config.server.ts'
import { AppError, toErrorResponse } from '#app/lib/errors.server.ts'
import { log } from '#app/lib/logger.server.ts'
import { sendFetchResponse } from './fetch-bridge.server.ts'
import { metricsHandler } from './metrics.server.ts'
import { hostAndPort, listenFailure, StartupError } from './startup-failures.server.ts'

/** A running metrics server of `glossary worker`. */
export interface WorkerMetricsServer {
  /** The port it listens on (the configured one; tests pass 0 and read this). */
  port: number
  close(): Promise<void>
}

/**
 * `glossary worker`'s own `GET /metrics` on GLOSSARY_WORKER_METRICS_PORT at HOST (the web's access rule): the
 * indexing and AI counters live in the process that does the work, so a worker serves them itself. Nothing
 * else is served; undefined when the port is unset.
 */
export async function startWorkerMetrics(
  port: number | undefined = getConfig().metrics.workerPort,
): Promise<WorkerMetricsServer | undefined> {
  if (port === undefined) return undefined
  const host = getConfig().host
  const serveMetrics = metricsHandler()
  const server = http.createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0]
    const answer =
      path === '/metrics' && (req.method === 'GET' || req.method === 'HEAD')
        ? serveMetrics(req, res)
        : sendFetchResponse(
            req,
            res,
            toErrorResponse(new AppError('not_found', 'Only GET /metrics is served here.')),
          )
    answer.catch((err: unknown) => {
      log().error({ err }, 'could not answer a metrics request')
      res.destroy()
    })
  })
  // Scrapers keep connections open; closing must not wait for them.
  server.keepAliveTimeout = 5_000
  await new Promise<void>((resolve, reject) => {
    server.once('listening', resolve)
    server.once('error', (error: NodeJS.ErrnoException) =>
      reject(
        error.code === 'EADDRINUSE'
          ? new StartupError(
              `Cannot serve worker metrics on ${hostAndPort(host, port)}: the port is in use by another process ` +
                '(set GLOSSARY_WORKER_METRICS_PORT).',
            )
          : listenFailure(error, host, port),
      ),
    )
    server.listen(port, host)
  })
  const bound = server.address() as AddressInfo
  log().info(
    { host: bound.address, port: bound.port },
    `worker metrics on ${hostAndPort(bound.address, bound.port)}/metrics`,
  )
  return {
    port: bound.port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve())
        server.closeAllConnections()
      }),
  }
}
