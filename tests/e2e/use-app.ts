import { afterAll, beforeAll, expect } from 'vitest'
import type { Browser } from 'playwright-core'
import { launchBrowser, startService, type RunningService } from './harness.ts'

/**
 * The built app (`glossary start` on a fresh data folder) and a headless Chromium for one test file: both
 * started before its tests and stopped after them. The fields are set once the file's first hook has run.
 */
export function useAppAndBrowser(): { service: RunningService; browser: Browser } {
  const app = {} as { service: RunningService; browser: Browser }
  beforeAll(async () => {
    app.service = await startService('start')
    app.browser = await launchBrowser()
  })
  afterAll(async () => {
    await app.browser?.close()
    await app.service?.stop()
  })
  return app
}

export const SESSION_COOKIE = 'glossary_session'

/**
 * A JSON API call on the app of `useAppAndBrowser`, with a session cookie when given; it always sends the app's
 * origin, which cookie sessions need on writes.
 */
export function apiOf(app: { service: RunningService }) {
  return (path: string, init: { method?: string; cookie?: string; body?: unknown } = {}) =>
    fetch(`${app.service.url}/api/v1${path}`, {
      method: init.method ?? 'GET',
      headers: {
        'content-type': 'application/json',
        origin: app.service.url,
        ...(init.cookie ? { cookie: init.cookie } : {}),
      },
      body: init.body === undefined ? undefined : JSON.stringify(init.body),
    })
}

/** The `name=value` of the session cookie an answer sets. */
function sessionOf(res: Response): string {
  const line = res.headers.getSetCookie().find((l) => l.startsWith(`${SESSION_COOKIE}=`))
  expect(line, 'a session cookie').toBeDefined()
  return line!.split(';')[0]!
}

/**
 * The first admin (through /setup) and a registered viewer, made before the file's own hooks run: their session
 * cookies are set once the hook has run.
 */
export function useAdminAndViewer(app: { service: RunningService }): { admin: string; viewer: string } {
  const api = apiOf(app)
  const cookies = { admin: '', viewer: '' }
  beforeAll(async () => {
    const setup = await api('/setup', {
      method: 'POST',
      body: { email: 'admin@example.test', password: 'admin password 1', name: 'Ada Admin' },
    })
    expect(setup.status).toBe(200)
    cookies.admin = sessionOf(setup)
    const register = await api('/auth/register', {
      method: 'POST',
      body: { email: 'viewer@example.test', password: 'viewer password 1', name: 'Vic Viewer' },
    })
    expect(register.status, await register.clone().text()).toBe(200)
    cookies.viewer = sessionOf(register)
  })
  return cookies
}
