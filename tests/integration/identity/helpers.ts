import crypto from 'node:crypto'
import { handleApiRequest } from '#app/api/handler.server.ts'
import { parseConfig, setConfig } from '#app/lib/config.server.ts'
import { SESSION_COOKIE } from '#app/services/auth/sessions.server.ts'
import { AuditLog } from '#db/entities/audit-log.entity.ts'
import { em } from '#db/orm.ts'
import { TEST_ORIGIN } from '#tests/factories.ts'
import { testEnv } from '#tests/setup/test-env.ts'

/** A distinct client address per call unless a test names one, so rate limits only bite where meant to. */
export function randomIp(): string {
  return `10.${crypto.randomInt(256)}.${crypto.randomInt(256)}.${crypto.randomInt(1, 255)}`
}

export interface CallOptions {
  method?: string
  headers?: Record<string, string>
  body?: unknown
  ip?: string
  isHttps?: boolean
}

/** Calls the real API dispatcher (every registered endpoint, the real gate) with a JSON body. */
export function api(path: string, options: CallOptions = {}): Promise<Response> {
  const headers: Record<string, string> = { ...options.headers }
  let body: string | undefined
  if (options.body !== undefined) {
    headers['content-type'] = 'application/json'
    body = JSON.stringify(options.body)
  }
  return handleApiRequest(
    new Request(`http://internal/api/v1${path}`, {
      method: options.method ?? (body === undefined ? 'GET' : 'POST'),
      headers,
      body,
    }),
    { requestId: 'test', ip: options.ip ?? randomIp(), isHttps: options.isHttps ?? false },
  )
}

/** A browser-like public POST: JSON plus our own Origin. */
export function post(path: string, body: unknown, extra: Omit<CallOptions, 'body'> = {}): Promise<Response> {
  return api(path, { ...extra, method: 'POST', body, headers: { origin: TEST_ORIGIN, ...extra.headers } })
}

/** The `glossary_session` Set-Cookie line of a response, if any. */
export function sessionSetCookie(res: Response): string | undefined {
  return res.headers.getSetCookie().find((line) => line.startsWith(`${SESSION_COOKIE}=`))
}

/** Cookie-session headers (with our Origin) from a response that signed in. */
export function sessionFrom(res: Response): Record<string, string> {
  const line = sessionSetCookie(res)
  if (!line) throw new Error('the response set no session cookie')
  return { cookie: line.split(';')[0]!, origin: TEST_ORIGIN }
}

/** Runs `fn` with a configuration built from the test environment plus `extra`, then restores the default. */
export async function withConfig<T>(extra: Record<string, string>, fn: () => Promise<T>): Promise<T> {
  setConfig(parseConfig(testEnv(extra)))
  try {
    return await fn()
  } finally {
    setConfig(parseConfig(testEnv()))
  }
}

export async function auditRows(where: Record<string, unknown> = {}): Promise<AuditLog[]> {
  return em().find(AuditLog, where, { orderBy: { at: 'asc' } })
}
