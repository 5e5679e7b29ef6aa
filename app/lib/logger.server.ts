import { AsyncLocalStorage } from 'node:async_hooks'
import { pino, type DestinationStream, type Level, type Logger } from 'pino'
import { getConfig } from './config.server.ts'
import { errorForLog } from './log-safety.ts'

/**
 * JSON logs (pino). Every line written while a request is handled carries its `requestId`: the HTTP layer runs
 * the request inside `withRequestContext`, and `log()` picks the child logger from async-local storage.
 */
// The request's child logger is made on its first use: most requests log nothing but their request line.
const storage = new AsyncLocalStorage<{ requestId: string; logger?: Logger }>()

let root: Logger | undefined
let override: { destination: DestinationStream; level: Level } | undefined

function rootLogger(): Logger {
  root ??= pino(
    {
      level: override?.level ?? getConfig().logLevel,
      base: { service: 'glossary' },
      // Errors are logged through one serializer that keeps no value a failing write carried (log-safety.ts).
      serializers: { err: errorForLog, error: errorForLog },
      // Never let a secret reach the log, even when a caller logs a whole object by mistake.
      redact: {
        paths: [
          'password',
          '*.password',
          'token',
          '*.token',
          'authorization',
          '*.authorization',
          'headers.authorization',
          'headers.cookie',
          '*.apiKey',
          '*.clientSecret',
        ],
        censor: '[redacted]',
      },
    },
    override?.destination,
  )
  return root
}

/**
 * Sends every log line from now on to `destination` at `level` (tests capture the log this way to check what
 * it holds); `undefined` goes back to stdout at the configured level.
 */
export function setLogDestination(destination?: DestinationStream, level: Level = 'trace'): void {
  override = destination ? { destination, level } : undefined
  root = undefined
}

/** The logger of the current request (with its id), or the process logger. */
export function log(): Logger {
  const store = storage.getStore()
  if (!store) return rootLogger()
  return (store.logger ??= rootLogger().child({ requestId: store.requestId }))
}

export function withRequestContext<T>(requestId: string, fn: () => T): T {
  return storage.run({ requestId }, fn)
}

export function currentRequestId(): string | undefined {
  return storage.getStore()?.requestId
}
