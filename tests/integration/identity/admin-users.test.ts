import { beforeAll, describe, expect, it } from 'vitest'
import { openApiDocument } from '#app/api/registry.server.ts'
import { authenticateApiKey } from '#app/services/auth/authenticate.server.ts'
import { ApiKey } from '#db/entities/api-key.entity.ts'
import { User } from '#db/entities/user.entity.ts'
import { em } from '#db/orm.ts'
import { createApiKey, createUser, type TestUser } from '#tests/factories.ts'
import { useTestDb } from '#tests/setup/db.ts'
import { api } from './helpers.ts'

useTestDb()

let admin: TestUser
beforeAll(async () => {
  admin = await createUser({ role: 'admin', email: 'root@example.test', name: 'Root' })
})

const as = (who: TestUser, path: string, method = 'GET', body?: unknown) =>
  api(path, { method, headers: who.sessionHeaders, body })

async function newAgent(name = 'Lint bot') {
  const res = await as(admin, '/admin/users', 'POST', { name })
  expect(res.status).toBe(201)
  return res.json() as Promise<{
    user: { id: string; name: string; role: string; authType: string }
    key: { name: string; scopes: string[]; token: string }
  }>
}

describe('agent accounts', () => {
  it('POST /admin/users creates an editor agent with one read/write/validate key shown once', async () => {
    const body = await newAgent('Lint bot')
    expect(body).toEqual({
      user: { id: expect.any(String), name: 'Lint bot', role: 'editor', authType: 'agent' },
      key: {
        name: expect.stringContaining('Lint bot'),
        scopes: ['read', 'write', 'validate'],
        token: expect.stringMatching(/^glk_[0-9a-f]{8}_/),
      },
    })
    const actor = await authenticateApiKey(`Bearer ${body.key.token}`)
    expect(actor).toMatchObject({ via: 'key', user: { id: body.user.id, role: 'editor', authType: 'agent' } })
    const row = await em().findOneOrFail(User, { id: body.user.id }, { populate: ['passwordHash'] })
    expect(row.passwordHash).toBeNull()
  })

  it('POST /admin/users/{id}/keys revokes every key and issues one new key', async () => {
    const agent = await newAgent()
    const res = await as(admin, `/admin/users/${agent.user.id}/keys`, 'POST')
    expect(res.status).toBe(201)
    const body = await res.json()
    expect(body).toEqual({
      revoked: 1,
      key: {
        id: expect.any(String),
        name: expect.any(String),
        prefix: expect.stringMatching(/^[0-9a-f]{8}$/),
        scopes: ['read', 'write', 'validate'],
        token: expect.stringMatching(/^glk_/),
      },
    })
    expect(await authenticateApiKey(`Bearer ${agent.key.token}`)).toBeNull()
    expect(await authenticateApiKey(`Bearer ${body.key.token}`)).not.toBeNull()
    expect(await em().count(ApiKey, { user: agent.user.id, revokedAt: null })).toBe(1)
  })

  it('a viewer agent\u2019s new key gets only read and validate (and its old keys lose write)', async () => {
    const agent = await newAgent()
    const lowered = await as(admin, `/admin/users/${agent.user.id}`, 'PATCH', { role: 'viewer' })
    expect(lowered.status).toBe(200)
    expect(await authenticateApiKey(`Bearer ${agent.key.token}`)).toMatchObject({
      scopes: ['read', 'validate'],
    })
    const res = await as(admin, `/admin/users/${agent.user.id}/keys`, 'POST')
    expect((await res.json()).key.scopes).toEqual(['read', 'validate'])
  })

  it('DELETE /admin/users/{id}/keys revokes every key of the agent', async () => {
    const agent = await newAgent()
    await as(admin, `/admin/users/${agent.user.id}/keys`, 'POST')
    const res = await as(admin, `/admin/users/${agent.user.id}/keys`, 'DELETE')
    expect(res.status).toBe(200)
    expect(await res.json()).toEqual({ revoked: 1, key: null })
    expect(await em().count(ApiKey, { user: agent.user.id, revokedAt: null })).toBe(0)
    expect(await (await as(admin, `/admin/users/${agent.user.id}/keys`, 'DELETE')).json()).toEqual({
      revoked: 0,
      key: null,
    })
  })

  it('an agent can never become admin', async () => {
    const agent = await newAgent()
    const res = await as(admin, `/admin/users/${agent.user.id}`, 'PATCH', { role: 'admin' })
    expect(res.status).toBe(403)
    expect((await em().findOneOrFail(User, { id: agent.user.id })).role).toBe('editor')
  })

  it('the agent key endpoints refuse ordinary accounts (403) and unknown ids (404)', async () => {
    const person = await createUser({ role: 'editor' })
    const personal = await createApiKey(person.user.id, ['read'])
    for (const method of ['POST', 'DELETE']) {
      expect((await as(admin, `/admin/users/${person.user.id}/keys`, method)).status).toBe(403)
      expect((await as(admin, `/admin/users/${admin.user.id}/keys`, method)).status).toBe(403)
      expect((await as(admin, '/admin/users/00000000-0000-4000-8000-000000000000/keys', method)).status).toBe(
        404,
      )
      expect((await as(admin, '/admin/users/nope/keys', method)).status).toBe(404)
    }
    expect(await authenticateApiKey(personal.authorization!)).not.toBeNull()
  })

  it('only an admin session reaches these endpoints: editors and API keys (even an admin\u2019s) get 403', async () => {
    const editor = await createUser({ role: 'editor' })
    const adminKey = await createApiKey(admin.user.id, ['read', 'write', 'validate'])
    const agent = await newAgent()
    const calls: [string, string, unknown?][] = [
      ['/admin/users', 'GET'],
      ['/admin/users', 'POST', { name: 'x' }],
      [`/admin/users/${agent.user.id}`, 'PATCH', { role: 'viewer' }],
      [`/admin/users/${agent.user.id}/keys`, 'POST'],
      [`/admin/users/${agent.user.id}/keys`, 'DELETE'],
      ['/admin/audit', 'GET'],
    ]
    for (const [path, method, body] of calls) {
      expect((await as(editor, path, method, body)).status, `${method} ${path} editor`).toBe(403)
      expect((await api(path, { method, headers: adminKey, body })).status, `${method} ${path} key`).toBe(403)
      expect((await api(path, { method, body })).status, `${method} ${path} anonymous`).toBe(401)
    }
    expect(await authenticateApiKey(`Bearer ${agent.key.token}`)).not.toBeNull()
  })

  it('admin writes need an allowed origin: a cross-site POST creates no agent', async () => {
    const before = await em().count(User, { authType: 'agent' })
    const res = await api('/admin/users', {
      method: 'POST',
      headers: { cookie: admin.sessionHeaders.cookie! },
      body: { name: 'x' },
    })
    expect(res.status).toBe(403)
    expect(await em().count(User, { authType: 'agent' })).toBe(before)
  })
})

describe('GET /admin/users', () => {
  it('lists accounts with q, role, authType and page filters', async () => {
    await createUser({ email: 'alice.q@example.test', name: 'Alice Quux', role: 'editor' })
    await createUser({ email: 'bob.q@example.test', name: 'Bob', role: 'viewer' })
    const all = await (await as(admin, '/admin/users')).json()
    expect(all.page).toBe(1)
    expect(all.total).toBe(await em().count(User, {}))
    expect(Object.keys(all.items[0]).sort()).toEqual([
      'active',
      'authType',
      'createdAt',
      'deactivatedAt',
      'email',
      'id',
      'name',
      'role',
    ])

    const q = await (await as(admin, '/admin/users?q=QUUX')).json()
    expect(q.items.map((u: { email: string }) => u.email)).toEqual(['alice.q@example.test'])
    const byRole = await (await as(admin, '/admin/users?q=.q%40&role=viewer')).json()
    expect(byRole.items.map((u: { email: string }) => u.email)).toEqual(['bob.q@example.test'])
    const agents = await (await as(admin, '/admin/users?authType=agent')).json()
    expect(agents.items.every((u: { authType: string }) => u.authType === 'agent')).toBe(true)
    const wildcard = await (await as(admin, '/admin/users?q=%25')).json()
    expect(wildcard.total).toBe(0) // % is matched literally
    const far = await (await as(admin, '/admin/users?page=99')).json()
    expect(far).toEqual({ items: [], total: all.total, page: 99 })
    expect((await as(admin, '/admin/users?role=root')).status).toBe(400)
  })
})

describe('PATCH /admin/users/{id}', () => {
  it('raises viewer to editor, grants and revokes admin', async () => {
    const person = await createUser({ role: 'viewer' })
    const path = `/admin/users/${person.user.id}`
    const editor = await as(admin, path, 'PATCH', { role: 'editor' })
    expect(editor.status).toBe(200)
    expect((await editor.json()).user).toMatchObject({ id: person.user.id, role: 'editor' })
    expect((await as(admin, path, 'PATCH', { role: 'admin' })).status).toBe(200)
    // The new admin's session has admin rights at once.
    expect((await as(person, '/admin/users')).status).toBe(200)
    expect((await as(admin, path, 'PATCH', { role: 'viewer' })).status).toBe(200)
    expect((await as(person, '/admin/users')).status).toBe(403)
  })

  it('never removes the last admin, not even by the admin themselves', async () => {
    await em().nativeUpdate(User, { role: 'admin', id: { $ne: admin.user.id } }, { role: 'editor' })
    const res = await as(admin, `/admin/users/${admin.user.id}`, 'PATCH', { role: 'editor' })
    expect(res.status).toBe(403)
    expect((await res.json()).error.message).toMatch(/last admin/)
    expect((await em().findOneOrFail(User, { id: admin.user.id })).role).toBe('admin')
    // With a second admin, stepping down works.
    const second = await createUser({ role: 'admin' })
    expect((await as(second, `/admin/users/${second.user.id}`, 'PATCH', { role: 'editor' })).status).toBe(200)
  })

  it('404 for an unknown id, 400 for an unknown role', async () => {
    expect(
      (await as(admin, '/admin/users/00000000-0000-4000-8000-000000000000', 'PATCH', { role: 'editor' }))
        .status,
    ).toBe(404)
    expect((await as(admin, `/admin/users/${admin.user.id}`, 'PATCH', { role: 'owner' })).status).toBe(400)
  })

  it('lowering a person to viewer takes write from their keys and revokes write-only keys', async () => {
    const person = await createUser({ role: 'editor' })
    const mixed = await createApiKey(person.user.id, ['read', 'write'])
    const writeOnly = await createApiKey(person.user.id, ['write'])
    expect((await as(admin, `/admin/users/${person.user.id}`, 'PATCH', { role: 'viewer' })).status).toBe(200)
    expect(await authenticateApiKey(mixed.authorization!)).toMatchObject({ scopes: ['read'] })
    expect(await authenticateApiKey(writeOnly.authorization!)).toBeNull()
  })
})

describe('the OpenAPI document', () => {
  it('documents the identity and user-administration endpoints', () => {
    const paths = (openApiDocument() as { paths: Record<string, Record<string, unknown>> }).paths
    const ops = Object.entries(paths).flatMap(([p, o]) =>
      Object.keys(o).map((m) => `${m.toUpperCase()} ${p}`),
    )
    expect(ops).toEqual(
      expect.arrayContaining([
        'POST /setup',
        'POST /auth/register',
        'POST /auth/login',
        'POST /auth/logout',
        'PATCH /account',
        'DELETE /account',
        'GET /keys',
        'POST /keys',
        'DELETE /keys/{id}',
        'GET /admin/users',
        'POST /admin/users',
        'PATCH /admin/users/{id}',
        'DELETE /admin/users/{id}/keys',
        'POST /admin/users/{id}/keys',
        'GET /admin/audit',
      ]),
    )
    const list = paths['/admin/users']!.get as { parameters: { name: string }[] }
    expect(list.parameters.map((p) => p.name)).toEqual(['q', 'role', 'authType', 'page'])
  })
})
