import { beforeAll, describe, expect, it } from 'vitest'
import { ACCOUNT_CLEANUP_STEPS } from '#app/services/users/delete-account.server.ts'
import { ApiKey } from '#db/entities/api-key.entity.ts'
import { Session } from '#db/entities/session.entity.ts'
import { User } from '#db/entities/user.entity.ts'
import { em } from '#db/orm.ts'
import { createApiKey, createUser, TEST_ORIGIN } from '#tests/factories.ts'
import { useTestDb } from '#tests/setup/db.ts'
import { api, auditRows, post, sessionFrom, sessionSetCookie } from './helpers.ts'

useTestDb()

beforeAll(async () => {
  await createUser({ role: 'admin', email: 'keeper@example.test' }) // an admin that stays
  // Stand-in for the terms table another feature adds: its author link must survive as NULL.
  await em().execute(`create table test_term_stub (
    id serial primary key, title text not null, author_id uuid references users (id) on delete set null)`)
})

const del = (headers: Record<string, string>, body: unknown) =>
  api('/account', { method: 'DELETE', headers, body })

describe('PATCH /account', () => {
  it('changes the name only (email and role members are ignored) and sets the session cookie again', async () => {
    const { user, sessionHeaders } = await createUser({ email: 'rename@example.test' })
    const res = await api('/account', {
      method: 'PATCH',
      headers: sessionHeaders,
      body: { name: '  New Name ', email: 'other@example.test', role: 'admin' },
    })
    expect(res.status).toBe(200)
    expect(await res.json()).toEqual({
      user: {
        id: user.id,
        email: 'rename@example.test',
        name: 'New Name',
        role: 'viewer',
        authType: 'password',
      },
    })
    expect(sessionSetCookie(res)).toBe(
      `${sessionHeaders.cookie}; Path=/; HttpOnly; SameSite=Lax; Max-Age=1209600`,
    )
    const row = await em().findOneOrFail(User, { id: user.id })
    expect([row.name, row.email, row.role]).toEqual(['New Name', 'rename@example.test', 'viewer'])
  })

  it('400 for an empty name, 401 without a session, 403 with an API key or a foreign origin', async () => {
    const { user, sessionHeaders } = await createUser()
    expect(
      (await api('/account', { method: 'PATCH', headers: sessionHeaders, body: { name: ' ' } })).status,
    ).toBe(400)
    expect(
      (await api('/account', { method: 'PATCH', headers: { origin: TEST_ORIGIN }, body: { name: 'x' } }))
        .status,
    ).toBe(401)
    const key = await createApiKey(user.id, ['read', 'write'])
    expect((await api('/account', { method: 'PATCH', headers: key, body: { name: 'x' } })).status).toBe(403)
    const foreign = { cookie: sessionHeaders.cookie!, origin: 'https://evil.example' }
    expect(
      (await api('/account', { method: 'PATCH', headers: foreign, body: { name: 'Evil' } })).status,
    ).toBe(403)
    expect((await em().findOneOrFail(User, { id: user.id })).name).toBe(user.name)
  })
})

describe('DELETE /account', () => {
  it('removes the account, its sessions and keys, keeps authored content without the author link', async () => {
    const { user, password, sessionHeaders } = await createUser({
      email: 'leaver@example.test',
      role: 'editor',
    })
    const key = await createApiKey(user.id, ['read'])
    // A second browser session of the same user.
    const other = await post('/auth/login', { email: user.email, password })
    await em().execute(`insert into test_term_stub (title, author_id) values ('kept term', ?)`, [user.id])

    const res = await del(sessionHeaders, { confirmEmail: 'Leaver@Example.test', password })
    expect(res.status).toBe(200)
    expect(await res.json()).toEqual({ deleted: true })
    expect(sessionSetCookie(res)).toMatch(/^glossary_session=; .*Max-Age=0/)

    expect(await em().count(User, { id: user.id })).toBe(0)
    expect(await em().count(Session, { user: user.id })).toBe(0)
    expect(await em().count(ApiKey, { user: user.id })).toBe(0)
    expect((await api('/keys', { headers: sessionFrom(other) })).status).toBe(401)
    expect((await api('/keys', { headers: key })).status).toBe(401)
    const terms = await em().execute(`select title, author_id from test_term_stub where title = 'kept term'`)
    expect(terms).toEqual([{ title: 'kept term', author_id: null }])
    const [audit] = await auditRows({ action: 'account.delete', targetId: user.id })
    expect(audit).toMatchObject({ actorUserId: user.id, actorLabel: 'leaver@example.test' })
  })

  it('the email can register again and starts as viewer', async () => {
    const { user, password, sessionHeaders } = await createUser({
      email: 'again@example.test',
      role: 'editor',
    })
    expect((await del(sessionHeaders, { confirmEmail: user.email, password })).status).toBe(200)
    const res = await post('/auth/register', { email: 'AGAIN@example.test', password: 'a new password' })
    expect(res.status).toBe(200)
    const { user: reborn } = await res.json()
    expect(reborn.role).toBe('viewer')
    expect(reborn.id).not.toBe(user.id)
  })

  it('403 for a wrong confirmation email or password, 400 without the password; nothing is deleted', async () => {
    const { user, password, sessionHeaders } = await createUser()
    const wrongEmail = await del(sessionHeaders, { confirmEmail: 'someone.else@example.test', password })
    expect(wrongEmail.status).toBe(403)
    expect((await wrongEmail.json()).error.code).toBe('forbidden')
    expect(
      (await del(sessionHeaders, { confirmEmail: user.email, password: 'not the password' })).status,
    ).toBe(403)
    const missing = await del(sessionHeaders, { confirmEmail: user.email })
    expect(missing.status).toBe(400)
    expect((await missing.json()).error.details.problems[0].path).toBe('password')
    expect((await del(sessionHeaders, {})).status).toBe(400)
    expect(await em().count(User, { id: user.id })).toBe(1)
  })

  it('an SSO account confirms with the session and the email only', async () => {
    const { user, sessionHeaders } = await createUser({ authType: 'sso' })
    expect((await del(sessionHeaders, { confirmEmail: user.email })).status).toBe(200)
    expect(await em().count(User, { id: user.id })).toBe(0)
  })

  it('the last admin cannot delete their account; with another admin they can', async () => {
    await em().nativeUpdate(User, { email: 'keeper@example.test' }, { role: 'editor' })
    const admin = await createUser({ role: 'admin' })
    const res = await del(admin.sessionHeaders, { confirmEmail: admin.user.email, password: admin.password })
    expect(res.status).toBe(403)
    expect((await res.json()).error.message).toMatch(/last admin/)
    expect(await em().count(User, { id: admin.user.id })).toBe(1)

    await em().nativeUpdate(User, { email: 'keeper@example.test' }, { role: 'admin' })
    const ok = await del(admin.sessionHeaders, { confirmEmail: admin.user.email, password: admin.password })
    expect(ok.status).toBe(200)
  })

  it('two admins deleting themselves at once cannot leave no admin', async () => {
    await em().nativeUpdate(User, { role: 'admin' }, { role: 'editor' })
    const a = await createUser({ role: 'admin' })
    const b = await createUser({ role: 'admin' })
    const results = await Promise.all(
      [a, b].map((x) => del(x.sessionHeaders, { confirmEmail: x.user.email, password: x.password })),
    )
    expect(results.map((r) => r.status).sort()).toEqual([200, 403])
    expect(await em().count(User, { role: 'admin' })).toBe(1)
    await em().nativeUpdate(User, { email: 'keeper@example.test' }, { role: 'admin' })
  })

  it('needs an allowed origin: a cross-site DELETE changes nothing', async () => {
    const { user, password, sessionHeaders } = await createUser()
    const res = await del({ cookie: sessionHeaders.cookie! }, { confirmEmail: user.email, password })
    expect(res.status).toBe(403)
    expect(await em().count(User, { id: user.id })).toBe(1)
  })

  it('runs every per-user cleanup step inside the deleting transaction (the hook for chat history)', async () => {
    const seen: string[] = []
    ACCOUNT_CLEANUP_STEPS.push({
      name: 'chat history (test)',
      run: async (tx, userId) => {
        // Runs before the users row goes, on the same transaction.
        seen.push(
          String((await tx.execute(`select count(*)::int as n from users where id = ?`, [userId]))[0]!.n),
        )
      },
    })
    try {
      const { user, password, sessionHeaders } = await createUser()
      expect((await del(sessionHeaders, { confirmEmail: user.email, password })).status).toBe(200)
      expect(seen).toEqual(['1'])
    } finally {
      ACCOUNT_CLEANUP_STEPS.pop()
    }
    expect(ACCOUNT_CLEANUP_STEPS.map((s) => s.name)).toEqual([
      'sessions',
      'api keys',
      'chat history',
      'sso identities blocked',
    ])
  })
})
