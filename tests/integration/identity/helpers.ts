import crypto from 'node:crypto'
import { parseConfig, setConfig } from '#app/lib/config.server.ts'
import { SESSION_COOKIE } from '#app/services/auth/sessions.server.ts'
import { AuditLog } from '#db/entities/audit-log.entity.ts'
import { em } from '#db/orm.ts'
import { TEST_ORIGIN } from '#tests/factories.ts'
import { dispatch, type DispatchOptions } from '#tests/http.ts'
import { testEnv } from '#tests/setup/test-env.ts'

/** A distinct client address per call unless a test names one, so rate limits only bite where meant to. */
export function randomIp(): string {
  return `10.${crypto.randomInt(256)}.${crypto.randomInt(256)}.${crypto.randomInt(1, 255)}`
}

/** Calls the real API dispatcher with a JSON body, from a random client address unless one is named. */
export function api(path: string, options: DispatchOptions = {}): Promise<Response> {
  return dispatch(path, { ...options, ip: options.ip ?? randomIp() })
}

/** A browser-like public POST: JSON plus our own Origin. */
export function post(
  path: string,
  body: unknown,
  extra: Omit<DispatchOptions, 'body'> = {},
): Promise<Response> {
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
