import type { AddressInfo } from 'node:net'
import { describe, expect, it } from 'vitest'
import { createHttpApp } from '#app/server/http.server.ts'
import { createUser, TEST_ORIGIN } from '#tests/factories.ts'
import { useTestDb } from '#tests/setup/db.ts'
import { withConfig } from './helpers.ts'

useTestDb()

/** Logs in over real HTTP on 127.0.0.1 (the web process's proxy trust decides `Secure`). */
async function loginOverHttp(headers: Record<string, string>): Promise<string | undefined> {
  const { user, password } = await createUser()
  const server = createHttpApp().listen(0, '127.0.0.1')
  await new Promise<void>((resolve) => server.once('listening', resolve))
  try {
    const { port } = server.address() as AddressInfo
    const res = await fetch(`http://127.0.0.1:${port}/api/v1/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: TEST_ORIGIN, ...headers },
      body: JSON.stringify({ email: user.email, password }),
    })
    expect(res.status).toBe(200)
    return res.headers.getSetCookie().find((c) => c.startsWith('glossary_session='))
  } finally {
    server.closeAllConnections()
    await new Promise<void>((resolve) => server.close(() => resolve()))
  }
}

describe('the session cookie over HTTP', () => {
  it('has HttpOnly, SameSite=Lax, Path=/, 14 days and no Secure on plain HTTP', async () => {
    const cookie = await loginOverHttp({})
    expect(cookie).toMatch(/; Path=\/; HttpOnly; SameSite=Lax; Max-Age=1209600$/)
  })

  it('ignores X-Forwarded-Proto: https unless GLOSSARY_TRUST_PROXY_HEADERS=true', async () => {
    const cookie = await loginOverHttp({ 'x-forwarded-proto': 'https' })
    expect(cookie).not.toMatch(/Secure/)
  })

  it('adds Secure when a trusted proxy says the request was HTTPS', async () => {
    await withConfig({ GLOSSARY_TRUST_PROXY_HEADERS: 'true' }, async () => {
      expect(await loginOverHttp({ 'x-forwarded-proto': 'https' })).toMatch(/; Secure$/)
      expect(await loginOverHttp({ 'x-forwarded-proto': 'http' })).not.toMatch(/Secure/)
    })
  })
})
