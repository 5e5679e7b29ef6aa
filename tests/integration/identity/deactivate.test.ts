import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import * as auditPage from '#app/routes/admin.audit.tsx'
import * as loginPage from '#app/routes/login.tsx'
import * as usersPage from '#app/routes/admin.users.tsx'
import { identify } from '#app/lib/auth-gate.server.ts'
import { AppError } from '#app/lib/errors.server.ts'
import { seedAdmin } from '#app/services/auth/seed-admin.server.ts'
import { createSession, SESSION_COOKIE } from '#app/services/auth/sessions.server.ts'
import { updateUser } from '#app/services/users/users.server.ts'
import { accountForIdentity, SsoFailure } from '#app/services/sso/accounts.server.ts'
import { insertIdentity } from '#app/services/sso/store.server.ts'
import { em } from '#db/orm.ts'
import { createApiKey, createTerm, createUser, type TestUser } from '#tests/factories.ts'
import { pageText, usePageServer } from '#tests/page-server.ts'
import { closeTestDb, openTestDb } from '#tests/setup/db.ts'
import { api, auditRows, post, withConfig } from './helpers.ts'

/**
 * Deactivating an account (decision 026): an admin deactivates and reactivates it; while deactivated its
 * sessions are gone, its API keys answer like unknown keys, and its sign-in answers exactly like wrong
 * credentials; its content stays; never oneself, never the last active admin; audited. The core runs on both
 * engines (the migration adds the column on each); the pages run on the embedded one.
 */

const PASSWORD = 'correct horse battery'

/** A fresh session for an account whose sessions a deactivation ended. */
async function signIn(who: TestUser): Promise<TestUser> {
  const { token } = await createSession(who.user.id)
  return { ...who, sessionHeaders: { ...who.sessionHeaders, cookie: `${SESSION_COOKIE}=${token}` } }
}

const as = (who: TestUser, path: string, method = 'GET', body?: unknown) =>
  api(path, { method, headers: who.sessionHeaders, body })

const setActive = (admin: TestUser, id: string, active: boolean) =>
  as(admin, `/admin/users/${id}`, 'PATCH', { active })

async function usersRow(id: string) {
  const rows = await em().execute<{ deactivated_at: unknown; sessions: number }[]>(
    `select u.deactivated_at, (select count(*)::int from sessions s where s.user_id = u.id) as sessions
       from users u where u.id = ?`,
    [id],
  )
  return rows[0]!
}

describe.each(['pglite', 'postgres'] as const)('deactivating an account (%s)', (engine) => {
  let admin: TestUser
  beforeAll(async () => {
    await openTestDb(engine)
    admin = await createUser({ role: 'admin', name: 'Root' })
  })
  afterAll(async () => {
    await closeTestDb()
  })

  it('ends the sessions, refuses the keys and the sign-in like unknown ones, keeps the content; reactivation undoes it', async () => {
    const person = await createUser({ role: 'editor', name: 'Kim', password: PASSWORD })
    const key = await createApiKey(person.user.id, ['read'])
    const term = await createTerm({ name: `Kept ${engine}`, actorId: person.user.id })
    expect((await as(person, '/keys')).status).toBe(200)
    expect((await api('/terms?pageSize=1', { headers: key })).status).toBe(200)

    const res = await setActive(admin, person.user.id, false)
    expect(res.status).toBe(200)
    const body = (await res.json()) as { user: Record<string, unknown> }
    expect(body.user).toMatchObject({ id: person.user.id, active: false, role: 'editor' })
    expect(body.user.deactivatedAt).toEqual(expect.any(String))

    // Sessions: gone from the table, and the old cookie is nobody.
    expect((await usersRow(person.user.id)).sessions).toBe(0)
    expect((await as(person, '/keys')).status).toBe(401)

    // The key: 401 with the very answer of a key that does not exist.
    const refusedKey = await api('/terms?pageSize=1', { headers: key })
    const unknownKey = await api('/terms?pageSize=1', {
      headers: { authorization: `Bearer glk_0000dead_${'x'.repeat(43)}` },
    })
    expect(refusedKey.status).toBe(401)
    expect(await refusedKey.json()).toEqual(await unknownKey.json())

    // Sign-in: the right password answers exactly like a wrong one, and like an unknown email.
    const right = await post('/auth/login', { email: person.user.email, password: PASSWORD })
    const wrong = await post('/auth/login', { email: person.user.email, password: 'not the password' })
    const unknown = await post('/auth/login', { email: `ghost-${engine}@example.test`, password: PASSWORD })
    expect(right.status).toBe(401)
    expect(wrong.status).toBe(401)
    expect(right.headers.getSetCookie()).toEqual([])
    const rightBody = await right.json()
    expect(rightBody).toEqual(await wrong.json())
    expect(rightBody).toEqual(await unknown.json())

    // Content and authorship stay; the list shows the account as deactivated.
    const kept = await api(`/terms/${term.slug}`, { headers: admin.sessionHeaders })
    expect(kept.status).toBe(200)
    const list = await (await as(admin, `/admin/users?q=${encodeURIComponent(person.user.email)}`)).json()
    expect(list.items).toEqual([
      expect.objectContaining({ id: person.user.id, active: false, deactivatedAt: expect.any(String) }),
    ])
    const authors = await em().execute<{ author_id: string }[]>(
      'select author_id from term_revisions where term_id = ?',
      [term.id],
    )
    expect(authors.map((row) => row.author_id)).toEqual([person.user.id])

    // Asking again changes nothing and writes no second record.
    expect((await setActive(admin, person.user.id, false)).status).toBe(200)

    // Reactivated: the same key works again, the password signs in.
    const back = await setActive(admin, person.user.id, true)
    expect(back.status).toBe(200)
    expect((await back.json()).user).toMatchObject({ active: true, deactivatedAt: null })
    expect((await api('/terms?pageSize=1', { headers: key })).status).toBe(200)
    const login = await post('/auth/login', { email: person.user.email, password: PASSWORD })
    expect(login.status).toBe(200)

    const audit = (await auditRows({ targetId: person.user.id })).filter((row) =>
      row.action.startsWith('user.'),
    )
    expect(audit.map((row) => [row.action, row.actorUserId])).toEqual([
      ['user.deactivate', admin.user.id],
      ['user.reactivate', admin.user.id],
    ])
    expect(audit[0]!.details).toMatchObject({ email: person.user.email, sessionsEnded: 1 })
  })

  it('never deactivates oneself nor the last active admin, and role changes count only active admins', async () => {
    const self = await setActive(admin, admin.user.id, false)
    expect(self.status).toBe(403)
    expect((await self.json()).error.message).toMatch(/your own account/)
    expect((await usersRow(admin.user.id)).deactivated_at).toBeNull()

    // A second admin, deactivated, does not count as the admin that remains.
    const second = await createUser({ role: 'admin' })
    expect((await setActive(admin, second.user.id, false)).status).toBe(200)
    const demote = await as(admin, `/admin/users/${admin.user.id}`, 'PATCH', { role: 'editor' })
    expect(demote.status).toBe(403)
    expect((await demote.json()).error.message).toMatch(/last admin/)

    // Through the page or the API the acting admin is always another active admin, so the last-admin rule
    // guards against races (two admins deactivating each other at once); the service refuses it outright.
    const refused = await updateUser({
      userId: admin.user.id,
      active: false,
      actor: { userId: null, label: 'test' },
      client: { ip: '', userAgent: null },
    }).catch((error: unknown) => error)
    expect(refused).toBeInstanceOf(AppError)
    expect((refused as AppError).code).toBe('forbidden')
    expect((refused as AppError).message).toMatch(/last active admin/)
    expect((await usersRow(admin.user.id)).deactivated_at).toBeNull()

    // With the second admin active again, either may deactivate the other (the other's session ends).
    expect((await setActive(admin, second.user.id, true)).status).toBe(200)
    const secondAgain = await signIn(second)
    expect((await setActive(secondAgain, admin.user.id, false)).status).toBe(200)
    expect((await setActive(admin, second.user.id, false)).status).toBe(401)
    expect((await setActive(secondAgain, admin.user.id, true)).status).toBe(200)
    admin = await signIn(admin)
  })

  it('validates the body: at least one member, active a boolean', async () => {
    const person = await createUser()
    expect((await as(admin, `/admin/users/${person.user.id}`, 'PATCH', {})).status).toBe(400)
    expect((await as(admin, `/admin/users/${person.user.id}`, 'PATCH', { active: 'no' })).status).toBe(400)
    expect(
      (await as(admin, '/admin/users/00000000-0000-4000-8000-000000000000', 'PATCH', { active: false }))
        .status,
    ).toBe(404)
    const both = await as(admin, `/admin/users/${person.user.id}`, 'PATCH', { role: 'editor', active: false })
    expect(both.status).toBe(200)
    expect((await both.json()).user).toMatchObject({ role: 'editor', active: false })
  })
})

describe('deactivation and the other ways in (embedded engine)', () => {
  let admin: TestUser
  beforeAll(async () => {
    await openTestDb('pglite')
    admin = await createUser({ role: 'admin' })
  })
  afterAll(async () => {
    await closeTestDb()
  })

  it('the gate refuses a deactivated account whichever lookup found it; SSO sign-in says why', async () => {
    const person = await createUser({ role: 'viewer', authType: 'sso' })
    await insertIdentity(em(), { userId: person.user.id, provider: 'https://idp.test', subject: 'kim' })
    const identity = {
      provider: 'https://idp.test',
      subject: 'kim',
      email: person.user.email,
      name: 'Kim',
      groups: [],
    }
    const settings = { allowedGroups: [], adminGroups: [], autoCreate: true }
    const options = { liftBlock: false, client: { ip: '', userAgent: null }, audit: false }
    await em().transactional((tx) => accountForIdentity(tx, identity, settings, options))

    expect((await setActive(admin, person.user.id, false)).status).toBe(200)
    const failure = await em()
      .transactional((tx) => accountForIdentity(tx, identity, settings, options))
      .catch((error: unknown) => error)
    expect(failure).toBeInstanceOf(SsoFailure)
    expect((failure as SsoFailure).ssoCode).toBe('deactivated')

    // A session row made behind the service's back (a race with deactivation) is still nobody.
    const again = await createUser({ role: 'viewer' })
    expect((await setActive(admin, again.user.id, false)).status).toBe(200)
    const { token } = await createSession(again.user.id)
    const request = { method: 'GET', headers: new Headers({ cookie: `${SESSION_COOKIE}=${token}` }) }
    expect(await identify(request)).toBeNull()
  })

  it('seed-admin promotes and reactivates a deactivated account', async () => {
    const person = await createUser({ role: 'viewer', password: PASSWORD })
    expect((await setActive(admin, person.user.id, false)).status).toBe(200)
    await withConfig(
      { GLOSSARY_ADMIN_EMAIL: person.user.email, GLOSSARY_ADMIN_PASSWORD: 'seed password 123' },
      async () => expect((await seedAdmin()).created).toBe(false),
    )
    expect((await usersRow(person.user.id)).deactivated_at).toBeNull()
    expect((await post('/auth/login', { email: person.user.email, password: PASSWORD })).status).toBe(200)
  })
})

describe('the /admin/users and /admin/audit pages', () => {
  beforeAll(async () => {
    await openTestDb('pglite')
  })
  afterAll(async () => {
    await closeTestDb()
  })
  const pages = usePageServer({
    'routes/admin.users': { path: 'admin/users', module: usersPage },
    'routes/admin.audit': { path: 'admin/audit', module: auditPage },
    'routes/login': { path: 'login', module: loginPage },
  })

  /** The `name=value` pairs of an answer's Set-Cookie lines plus the session, as a browser sends them back. */
  function withCookies(session: Record<string, string>, headers: Headers): Record<string, string> {
    const set = headers.getSetCookie().map((line) => line.split(';')[0])
    return { ...session, cookie: [session.cookie, ...set].filter(Boolean).join('; ') }
  }

  it('deactivates, reactivates and changes a role without JavaScript, each with a flash naming who and what', async () => {
    const admin = await createUser({ role: 'admin', name: 'Root' })
    const kim = await createUser({ role: 'viewer', name: 'Kim Page', password: PASSWORD })

    const role = await pages.post(
      '/admin/users?q=kim',
      { intent: 'role', userId: kim.user.id, role: 'editor' },
      admin.sessionHeaders,
    )
    expect(role.status).toBe(302)
    expect(role.location).toBe('/admin/users?q=kim')
    let page = await pages.get('/admin/users?q=kim', withCookies(admin.sessionHeaders, role.headers))
    expect(pageText(page.html)).toContain('Kim Page is now an Editor.')

    const off = await pages.post(
      '/admin/users',
      { intent: 'deactivate', userId: kim.user.id },
      admin.sessionHeaders,
    )
    expect(off.status).toBe(302)
    page = await pages.get('/admin/users', withCookies(admin.sessionHeaders, off.headers))
    const text = pageText(page.html)
    expect(text).toContain('Kim Page is deactivated: signed out everywhere')
    expect(text).toMatch(/Deactivated since \d{4}-\d{2}-\d{2}/)
    expect(page.html).toMatch(
      /data-user-email="[^"]*"[^>]*class="user-deactivated"|class="user-deactivated"[^>]*data-user-email/,
    )
    expect((await usersRow(kim.user.id)).sessions).toBe(0)

    // Korean: the same flash in the reader's language.
    const on = await pages.post(
      '/admin/users',
      { intent: 'reactivate', userId: kim.user.id },
      admin.sessionHeaders,
    )
    const ko = withCookies({ ...admin.sessionHeaders }, on.headers)
    ko.cookie += '; lang=ko'
    page = await pages.get('/admin/users', ko)
    expect(pageText(page.html)).toContain('Kim Page 님을 다시 활성화했습니다.')

    // Oneself: no deactivate button on one's own row, and a forged post is refused with words.
    page = await pages.get('/admin/users', admin.sessionHeaders)
    expect(page.html).not.toMatch(
      new RegExp(`name="userId" value="${admin.user.id}"[^>]*/><button[^>]*>Deactivate`),
    )
    const forged = await pages.post(
      '/admin/users',
      { intent: 'deactivate', userId: admin.user.id },
      admin.sessionHeaders,
    )
    expect(forged.status).toBe(403)
    expect((await usersRow(admin.user.id)).deactivated_at).toBeNull()
  })

  it('a deactivated account signing in on /login gets the page a wrong password gets', async () => {
    const admin = await createUser({ role: 'admin' })
    const kim = await createUser({ role: 'viewer', password: PASSWORD })
    expect((await setActive(admin, kim.user.id, false)).status).toBe(200)
    const right = await pages.post('/login', { email: kim.user.email, password: PASSWORD })
    const wrong = await pages.post('/login', { email: kim.user.email, password: 'not the password' })
    expect(right.status).toBe(401)
    expect(right.status).toBe(wrong.status)
    expect(pageText(right.html)).toBe(pageText(wrong.html))
  })

  it('revoking an agent\u2019s keys says so by name; a new key is shown once with the agent\u2019s name', async () => {
    const admin = await createUser({ role: 'admin' })
    const created = await pages.post(
      '/admin/users',
      { intent: 'create-agent', name: 'Lint bot' },
      admin.sessionHeaders,
    )
    expect(created.status).toBe(200)
    expect(pageText(created.html)).toContain('The agent Lint bot is created. Copy this token now.')
    expect(created.html).toContain('data-testid="one-time-token"')
    const agent = await em().execute<{ id: string }[]>(`select id from users where name = 'Lint bot'`)
    const revoked = await pages.post(
      '/admin/users',
      { intent: 'revoke-keys', userId: agent[0]!.id },
      admin.sessionHeaders,
    )
    expect(revoked.status).toBe(302)
    const page = await pages.get('/admin/users', withCookies(admin.sessionHeaders, revoked.headers))
    expect(pageText(page.html)).toContain('The keys of Lint bot are revoked: it can no longer call the API.')
    const rotated = await pages.post(
      '/admin/users',
      { intent: 'rotate', userId: agent[0]!.id },
      admin.sessionHeaders,
    )
    expect(pageText(rotated.html)).toContain('Lint bot has a new key; its old keys no longer work.')
  })

  it('/admin/audit shows actions in words and people by name, a deleted account as "deleted user"', async () => {
    const admin = await createUser({ role: 'admin', name: 'Audit Admin' })
    const kim = await createUser({ role: 'viewer', name: 'Kim Audited' })
    expect((await as(admin, `/admin/users/${kim.user.id}`, 'PATCH', { role: 'editor' })).status).toBe(200)
    expect((await setActive(admin, kim.user.id, false)).status).toBe(200)
    const gone = await createUser({ role: 'viewer', name: 'Gone Soon', password: PASSWORD })
    expect(
      (
        await api('/account', {
          method: 'DELETE',
          headers: gone.sessionHeaders,
          body: { confirmEmail: gone.user.email, password: PASSWORD },
        })
      ).status,
    ).toBe(200)

    const page = await pages.get('/admin/audit', admin.sessionHeaders)
    expect(page.status).toBe(200)
    const text = pageText(page.html)
    expect(text).toContain("Audit Admin changed a user's role (Viewer → Editor) Kim Audited")
    expect(text).toContain('Audit Admin deactivated a user Kim Audited')
    expect(text).toContain('deleted user deleted their account deleted user')
    for (const raw of ['user.role_change', 'user.deactivate', 'account.delete']) {
      expect(text).not.toContain(raw)
    }
    // No UUID of a person or account is shown as text (they stay in links and attributes only).
    expect(text).not.toContain(kim.user.id)
    expect(text).not.toContain(admin.user.id)

    const ko = await pages.get('/admin/audit', {
      ...admin.sessionHeaders,
      cookie: `${admin.sessionHeaders.cookie}; lang=ko`,
    })
    const koText = pageText(ko.html)
    expect(koText).toContain('사용자를 비활성화함')
    expect(koText).toContain('삭제된 사용자')
    // The action filter names actions in words too, and still filters by key.
    expect(ko.html).toContain('<option value="user.deactivate">사용자를 비활성화함</option>')
    const filtered = pageText(
      (await pages.get('/admin/audit?action=user.deactivate', admin.sessionHeaders)).html,
    )
    expect(filtered).toContain('deactivated a user')
    expect(filtered).not.toContain("changed a user's role (")

    // A name's link filters by that person, and the page says so with a way back.
    const byKim = await pages.get(`/admin/audit?actorId=${kim.user.id}`, admin.sessionHeaders)
    expect(pageText(byKim.html)).toContain('Only the records of Kim Audited. Show everyone')
    expect(byKim.html).toContain('href="/admin/audit"')
  })
})
