import { beforeEach, describe, expect, it } from 'vitest'
import { getPasswordLoginEnabled, setPasswordLoginEnabled } from '#app/services/settings/settings.server.ts'
import { AppSetting } from '#db/entities/app-setting.entity.ts'
import { AuditLog } from '#db/entities/audit-log.entity.ts'
import { User } from '#db/entities/user.entity.ts'
import { em } from '#db/orm.ts'
import { useTestDb } from '#tests/setup/db.ts'
import { api, auditRows, post, sessionFrom, sessionSetCookie, withConfig } from './helpers.ts'

useTestDb()

const ADMIN = { email: 'First.Admin@Example.test', name: 'First Admin', password: 'correct horse battery' }

beforeEach(async () => {
  await em().nativeDelete(User, {})
  await em().nativeDelete(AppSetting, {})
  await em().nativeDelete(AuditLog, {})
})

describe('POST /setup', () => {
  it('creates the first admin, signs them in and stores the email lowercase', async () => {
    const res = await post('/setup', ADMIN)
    expect(res.status).toBe(200)
    const body = await res.json()
    expect(body).toEqual({
      user: {
        id: expect.any(String),
        email: 'first.admin@example.test',
        name: 'First Admin',
        role: 'admin',
        authType: 'password',
      },
    })
    const cookie = sessionSetCookie(res)!
    expect(cookie).toMatch(
      /^glossary_session=[A-Za-z0-9_-]{43}; Path=\/; HttpOnly; SameSite=Lax; Max-Age=1209600$/,
    )
    // Logged in at once: the cookie opens a session-only endpoint.
    expect((await api('/keys', { headers: sessionFrom(res) })).status).toBe(200)
    expect((await auditRows({ action: 'setup' })).length).toBe(1)
  })

  it('names the user by the email when no name is given', async () => {
    const res = await post('/setup', { email: 'solo@example.test', password: 'long enough' })
    expect((await res.json()).user.name).toBe('solo@example.test')
  })

  it('serializes 10 simultaneous requests: exactly one 200, nine 403, one user', async () => {
    const responses = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        post('/setup', { email: `admin${i}@example.test`, password: `password-${i}` }),
      ),
    )
    const statuses = responses.map((r) => r.status).sort()
    expect(statuses).toEqual([200, ...Array(9).fill(403)])
    for (const res of responses.filter((r) => r.status === 403)) {
      expect((await res.json()).error.code).toBe('forbidden')
      expect(sessionSetCookie(res)).toBeUndefined()
    }
    expect(await em().count(User, {})).toBe(1)
    expect(await em().count(User, { role: 'admin' })).toBe(1)
    expect((await auditRows({ action: 'setup' })).length).toBe(1)
  })

  it('always answers 403 once an account exists', async () => {
    expect((await post('/setup', ADMIN)).status).toBe(200)
    const again = await post('/setup', { email: 'other@example.test', password: 'another password' })
    expect(again.status).toBe(403)
    expect((await again.json()).error.code).toBe('forbidden')
    expect(await em().count(User, {})).toBe(1)
  })

  it('refuses registration while no account exists (403 forbidden)', async () => {
    const res = await post('/auth/register', { email: 'early@example.test', password: 'password1' })
    expect(res.status).toBe(403)
    expect((await res.json()).error.code).toBe('forbidden')
    expect(await em().count(User, {})).toBe(0)
  })

  it('answers 403 password_login_disabled while password login is off', async () => {
    await setPasswordLoginEnabled(false)
    const res = await post('/setup', ADMIN)
    expect(res.status).toBe(403)
    expect((await res.json()).error.code).toBe('password_login_disabled')
    expect(await em().count(User, {})).toBe(0)
    await setPasswordLoginEnabled(true)
    expect((await post('/setup', ADMIN)).status).toBe(200)
  })

  it('validates the body: email format and 8-character passwords (400 with problems)', async () => {
    const res = await post('/setup', { email: 'not-an-email', password: 'short' })
    expect(res.status).toBe(400)
    const body = await res.json()
    expect(body.error.code).toBe('validation_failed')
    const paths = body.error.details.problems.map((p: { path: string }) => p.path).sort()
    expect(paths).toEqual(['email', 'password'])
    expect((await post('/setup', { email: 'a@example.test', password: '1234567' })).status).toBe(400)
    expect(await em().count(User, {})).toBe(0)
  })

  it('refuses a foreign Origin and creates nothing', async () => {
    const res = await post('/setup', ADMIN, { headers: { origin: 'https://evil.example' } })
    expect(res.status).toBe(403)
    expect(await em().count(User, {})).toBe(0)
  })
})

describe('the passwordLoginEnabled setting', () => {
  it('takes the environment value only on first boot, then keeps what is stored', async () => {
    await withConfig({ PASSWORD_LOGIN_ENABLED: 'false' }, async () => {
      expect(await getPasswordLoginEnabled()).toBe(false)
    })
    // The environment now says true (the default), but a stored value wins.
    expect(await getPasswordLoginEnabled()).toBe(false)
    const stored = await em().findOneOrFail(AppSetting, { key: 'passwordLoginEnabled' })
    expect(stored.value).toBe(false)
    await setPasswordLoginEnabled(true, { actor: { userId: null, label: 'test' } })
    await withConfig({ PASSWORD_LOGIN_ENABLED: 'false' }, async () => {
      expect(await getPasswordLoginEnabled()).toBe(true)
    })
    const [row] = await auditRows({ action: 'settings.password_login' })
    expect(row!.details).toEqual({ enabled: true })
  })
})
