import argon2 from 'argon2'
import { beforeAll, describe, expect, it, vi } from 'vitest'
import { INVALID_CREDENTIALS } from '#app/services/auth/accounts.server.ts'
import { sha256 } from '#app/services/auth/tokens.server.ts'
import { setPasswordLoginEnabled } from '#app/services/settings/settings.server.ts'
import { Session } from '#db/entities/session.entity.ts'
import { User } from '#db/entities/user.entity.ts'
import { em } from '#db/orm.ts'
import { createApiKey, createUser, TEST_ORIGIN } from '#tests/factories.ts'
import { useTestDb } from '#tests/setup/db.ts'
import { api, post, sessionFrom, sessionSetCookie } from './helpers.ts'

useTestDb()

beforeAll(async () => {
  await createUser({ role: 'admin' }) // setup is done: registration is open
})

describe('POST /auth/register', () => {
  it('creates a viewer whatever role the body names, signs in, stores the email lowercase', async () => {
    const res = await post('/auth/register', {
      email: '  New.Person@Example.TEST ',
      password: 'long enough',
      role: 'admin',
    })
    expect(res.status).toBe(200)
    const { user } = await res.json()
    expect(user).toMatchObject({ email: 'new.person@example.test', role: 'viewer', authType: 'password' })
    expect(user.name).toBe('new.person@example.test')
    const row = await em().findOneOrFail(User, { id: user.id })
    expect(row.role).toBe('viewer')
    expect((await api('/keys', { headers: sessionFrom(res) })).status).toBe(200)
  })

  it('answers 409 email_taken for any case variant of a registered email', async () => {
    expect(
      (await post('/auth/register', { email: 'taken@example.test', password: 'password1' })).status,
    ).toBe(200)
    for (const email of [
      'taken@example.test',
      'TAKEN@EXAMPLE.TEST',
      'Taken@Example.Test',
      ' taken@example.test',
    ]) {
      const res = await post('/auth/register', { email, password: 'password2' })
      expect(res.status, email).toBe(409)
      expect((await res.json()).error.code).toBe('email_taken')
    }
    expect(await em().count(User, { email: 'taken@example.test' })).toBe(1)
  })

  it('the database index refuses a case variant too (users_email_lower_unique)', async () => {
    await em().execute(
      `insert into users (id, email, name, role, auth_type) values (gen_random_uuid(), 'dup@example.test', 'a', 'viewer', 'password')`,
    )
    await expect(
      em().execute(
        `insert into users (id, email, name, role, auth_type) values (gen_random_uuid(), 'dup@example.test', 'b', 'viewer', 'password')`,
      ),
    ).rejects.toThrow(/users_email_lower_unique/)
  })

  it('needs a password of 8 or more characters', async () => {
    const res = await post('/auth/register', { email: 'short@example.test', password: '1234567' })
    expect(res.status).toBe(400)
    expect((await res.json()).error.details.problems[0].path).toBe('password')
    expect((await post('/auth/register', { email: 'short@example.test', password: '12345678' })).status).toBe(
      200,
    )
  })

  it('answers 403 password_login_disabled while password login is off', async () => {
    await setPasswordLoginEnabled(false)
    try {
      const res = await post('/auth/register', { email: 'off@example.test', password: 'password1' })
      expect(res.status).toBe(403)
      expect((await res.json()).error.code).toBe('password_login_disabled')
    } finally {
      await setPasswordLoginEnabled(true)
    }
    expect(await em().count(User, { email: 'off@example.test' })).toBe(0)
  })
})

describe('POST /auth/login', () => {
  it('signs in with any case of the email and returns { user } and the session cookie', async () => {
    const { user, password } = await createUser({ email: 'login@example.test', role: 'editor' })
    const res = await post('/auth/login', { email: 'LOGIN@Example.test', password })
    expect(res.status).toBe(200)
    expect(await res.json()).toEqual({
      user: {
        id: user.id,
        email: 'login@example.test',
        name: user.name,
        role: 'editor',
        authType: 'password',
      },
    })
    const cookie = sessionSetCookie(res)!
    const attributes = cookie.split('; ').slice(1)
    expect(attributes).toEqual(['Path=/', 'HttpOnly', 'SameSite=Lax', 'Max-Age=1209600'])
    // 256 random bits, stored only as a hash.
    const token = cookie.split(';')[0]!.split('=')[1]!
    expect(Buffer.from(token, 'base64url').length).toBe(32)
    const session = await em().findOneOrFail(Session, { tokenHash: sha256(token) })
    expect(session.expiresAt.getTime() - Date.now()).toBeGreaterThan(13.9 * 86_400_000)
    const raw = await em().execute(`select * from sessions where user_id = ?`, [user.id])
    expect(JSON.stringify(raw)).not.toContain(token)
  })

  it('gives the same answer for an unknown email and a wrong password, and verifies a password for both', async () => {
    const { user } = await createUser({ email: 'victim@example.test' })
    const verify = vi.spyOn(argon2, 'verify')

    const wrong = await post('/auth/login', { email: user.email, password: 'wrong password' })
    expect(verify).toHaveBeenCalledTimes(1)
    verify.mockClear()
    const unknown = await post('/auth/login', { email: 'nobody@example.test', password: 'wrong password' })
    // The unknown email still cost one argon2id verification (against the dummy hash): no timing hint.
    expect(verify).toHaveBeenCalledTimes(1)

    expect(wrong.status).toBe(401)
    expect(unknown.status).toBe(401)
    const [a, b] = [await wrong.json(), await unknown.json()]
    expect(a).toEqual(b)
    expect(a).toEqual({ error: { code: 'unauthorized', message: INVALID_CREDENTIALS } })
    expect([...wrong.headers.keys()].sort()).toEqual([...unknown.headers.keys()].sort())
    expect(sessionSetCookie(wrong)).toBeUndefined()
    expect(sessionSetCookie(unknown)).toBeUndefined()
  })

  it('an agent account (no password) answers exactly like an unknown email', async () => {
    const { user } = await createUser({ authType: 'agent', role: 'editor' })
    const verify = vi.spyOn(argon2, 'verify')
    const res = await post('/auth/login', { email: user.email, password: 'anything at all' })
    expect(res.status).toBe(401)
    expect(verify).toHaveBeenCalledTimes(1)
    expect((await res.json()).error.message).toBe(INVALID_CREDENTIALS)
  })

  it('answers 403 password_login_disabled while password login is off, even with the right password', async () => {
    const { user, password } = await createUser()
    await setPasswordLoginEnabled(false)
    try {
      const res = await post('/auth/login', { email: user.email, password })
      expect(res.status).toBe(403)
      expect((await res.json()).error.code).toBe('password_login_disabled')
      expect(sessionSetCookie(res)).toBeUndefined()
    } finally {
      await setPasswordLoginEnabled(true)
    }
  })

  it('refuses a foreign Origin (login CSRF)', async () => {
    const { user, password } = await createUser()
    const res = await post(
      '/auth/login',
      { email: user.email, password },
      { headers: { origin: 'https://evil.example' } },
    )
    expect(res.status).toBe(403)
    expect(sessionSetCookie(res)).toBeUndefined()
  })
})

describe('POST /auth/logout', () => {
  it('needs an allowed Origin or Referer: otherwise 403 and the session stays', async () => {
    const { sessionHeaders } = await createUser()
    const cookie = sessionHeaders.cookie!
    const attempts: Record<string, string>[] = [
      { cookie },
      { cookie, origin: 'https://evil.example' },
      { cookie, referer: 'https://evil.example/x' },
    ]
    for (const headers of attempts) {
      const res = await api('/auth/logout', { method: 'POST', headers })
      expect(res.status).toBe(403)
    }
    expect((await api('/keys', { headers: { cookie } })).status).toBe(200)
  })

  it('ends the session and clears the cookie', async () => {
    const { sessionHeaders } = await createUser()
    const res = await api('/auth/logout', { method: 'POST', headers: sessionHeaders })
    expect(res.status).toBe(204)
    expect(sessionSetCookie(res)).toBe('glossary_session=; Path=/; HttpOnly; SameSite=Lax; Max-Age=0')
    expect((await api('/keys', { headers: sessionHeaders })).status).toBe(401)
  })

  it('a Referer from an allowed origin is enough', async () => {
    const { sessionHeaders } = await createUser()
    const res = await api('/auth/logout', {
      method: 'POST',
      headers: { cookie: sessionHeaders.cookie!, referer: `${TEST_ORIGIN}/settings` },
    })
    expect(res.status).toBe(204)
  })

  it('without a session answers 401; with an API key 403', async () => {
    expect((await api('/auth/logout', { method: 'POST', headers: { origin: TEST_ORIGIN } })).status).toBe(401)
    const { user } = await createUser()
    const key = await createApiKey(user.id, ['read', 'write', 'validate'])
    expect((await api('/auth/logout', { method: 'POST', headers: key })).status).toBe(403)
  })
})
