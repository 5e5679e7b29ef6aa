import { AsyncLocalStorage } from 'node:async_hooks'
import { pino, type Logger } from 'pino'
import { getConfig } from './config.server.ts'

/**
 * JSON logs (pino). Every line written while a request is handled carries its `requestId`: the HTTP layer runs
 * the request inside `withRequestContext`, and `log()` picks the child logger from async-local storage.
 */
const storage = new AsyncLocalStorage<{ requestId: string; logger: Logger }>()

let root: Logger | undefined

function rootLogger(): Logger {
  root ??= pino({
    level: getConfig().logLevel,
    base: { service: 'glossary' },
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
  })
  return root
}

/** The logger of the current request (with its id), or the process logger. */
export function log(): Logger {
  return storage.getStore()?.logger ?? rootLogger()
}

export function withRequestContext<T>(requestId: string, fn: () => T): T {
  return storage.run({ requestId, logger: rootLogger().child({ requestId }) }, fn)
}

export function currentRequestId(): string | undefined {
  return storage.getStore()?.requestId
}
