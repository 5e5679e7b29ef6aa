import { describe, expect, it } from 'vitest'
import { isMessageKey } from '#app/lib/i18n.ts'
import { adminEn, adminKo } from '#app/lib/messages/admin.ts'
import { AUDIT_ACTIONS, recordAudit } from '#app/services/audit/audit.server.ts'
import { seedAdmin } from '#app/services/auth/seed-admin.server.ts'
import { AuditLog } from '#db/entities/audit-log.entity.ts'
import { em } from '#db/orm.ts'
import { useTestDb } from '#tests/setup/db.ts'
import { api, auditRows, post, sessionFrom, withConfig } from './helpers.ts'

useTestDb()

const ADMIN_PASSWORD = 'admin-Pa55word-XYZ'
const USER_PASSWORD = 'user-Pa55word-QRS'
const WRONG_PASSWORD = 'wrong-Pa55word-TUV'
const SEED_PASSWORD = 'seed-Pa55word-LMN'

describe('the audit log', () => {
  it('records every identity event, and no password, token or secret anywhere', async () => {
    const secrets: string[] = [ADMIN_PASSWORD, USER_PASSWORD, WRONG_PASSWORD, SEED_PASSWORD]
    const remember = (res: Response) => {
      for (const c of res.headers.getSetCookie()) secrets.push(c.split(';')[0]!.split('=')[1]!)
      return res
    }
    const setup = remember(await post('/setup', { email: 'boss@example.test', password: ADMIN_PASSWORD }))
    const admin = sessionFrom(setup)
    const reg = remember(
      await post('/auth/register', { email: 'member@example.test', password: USER_PASSWORD }),
    )
    const member = sessionFrom(reg)
    const memberId = (await reg.json()).user.id
    expect(
      (await post('/auth/login', { email: 'member@example.test', password: WRONG_PASSWORD })).status,
    ).toBe(401)
    expect(
      (await post('/auth/login', { email: 'ghost@example.test', password: WRONG_PASSWORD })).status,
    ).toBe(401)
    remember(await post('/auth/login', { email: 'member@example.test', password: USER_PASSWORD }))
    const issued = await (
      await api('/keys', { method: 'POST', headers: member, body: { name: 'k', scopes: ['read'] } })
    ).json()
    secrets.push(issued.token)
    expect((await api(`/keys/${issued.key.id}`, { method: 'DELETE', headers: member })).status).toBe(204)
    const agent = await (
      await api('/admin/users', { method: 'POST', headers: admin, body: { name: 'Bot' } })
    ).json()
    secrets.push(agent.key.token)
    const rotated = await (
      await api(`/admin/users/${agent.user.id}/keys`, { method: 'POST', headers: admin })
    ).json()
    secrets.push(rotated.key.token)
    expect(
      (await api(`/admin/users/${agent.user.id}/keys`, { method: 'DELETE', headers: admin })).status,
    ).toBe(200)
    expect(
      (await api(`/admin/users/${memberId}`, { method: 'PATCH', headers: admin, body: { role: 'editor' } }))
        .status,
    ).toBe(200)
    expect(
      (await api('/account', { method: 'PATCH', headers: member, body: { name: 'Member' } })).status,
    ).toBe(200)
    expect((await api('/auth/logout', { method: 'POST', headers: member })).status).toBe(204)
    const again = sessionFrom(
      remember(await post('/auth/login', { email: 'member@example.test', password: USER_PASSWORD })),
    )
    expect(
      (
        await api('/account', {
          method: 'DELETE',
          headers: again,
          body: { confirmEmail: 'member@example.test', password: USER_PASSWORD },
        })
      ).status,
    ).toBe(200)
    await withConfig(
      { GLOSSARY_ADMIN_EMAIL: 'seeded@example.test', GLOSSARY_ADMIN_PASSWORD: SEED_PASSWORD },
      async () => expect((await seedAdmin()).created).toBe(true),
    )

    const rows = await auditRows()
    expect(rows.map((r) => r.action)).toEqual([
      'setup',
      'auth.register',
      'auth.login_failed',
      'auth.login_failed',
      'auth.login',
      'key.issue',
      'key.revoke',
      'agent.create',
      'agent.keys_rotate',
      'agent.keys_revoke',
      'user.role_change',
      'account.update',
      'auth.logout',
      'auth.login',
      'account.delete',
      'admin.seed',
    ])
    const failures = rows.filter((r) => r.action === 'auth.login_failed')
    expect(failures.map((r) => [r.actorUserId, r.actorLabel])).toEqual([
      [memberId, 'member@example.test'],
      [null, 'ghost@example.test'],
    ])
    expect(rows.find((r) => r.action === 'user.role_change')!.details).toMatchObject({
      from: 'viewer',
      to: 'editor',
    })
    expect(rows.find((r) => r.action === 'admin.seed')).toMatchObject({
      actorUserId: null,
      actorLabel: 'cli:seed-admin',
    })
    expect(rows.every((r) => r.ip !== null || r.action === 'admin.seed')).toBe(true)

    // Nothing secret in any column of any record: passwords, cookie tokens, API key tokens and their secrets.
    const dump = JSON.stringify(await em().execute('select * from audit_log'))
    for (const secret of secrets) {
      expect(dump).not.toContain(secret)
      if (secret.startsWith('glk_')) expect(dump).not.toContain(secret.slice(13))
    }
  })

  it('strips secret-looking keys from details and rolls back with its transaction', async () => {
    await recordAudit({
      action: 'key.issue',
      actor: null,
      details: {
        name: 'ok',
        password: 'p',
        nested: { apiToken: 't', clientSecret: 's', keep: 1 },
        passwordHash: 'h',
      },
    })
    const [row] = await em().find(AuditLog, { details: { name: 'ok' } })
    expect(row!.details).toEqual({ name: 'ok', nested: { keep: 1 } })

    await expect(
      em().transactional(async (tx) => {
        await recordAudit({ action: 'key.revoke', actor: null, details: { marker: 'rolled-back' } }, tx)
        throw new Error('abort')
      }),
    ).rejects.toThrow('abort')
    expect(await em().count(AuditLog, { details: { marker: 'rolled-back' } })).toBe(0)
  })
})

describe('the audit actions in words', () => {
  it('every action of AUDIT_ACTIONS has its label in English and in Korean (/admin/audit shows words)', () => {
    for (const action of AUDIT_ACTIONS) {
      const key = `audit.action.${action}`
      expect(isMessageKey(key), key).toBe(true)
      const en = (adminEn as Record<string, string>)[key]
      const ko = (adminKo as Record<string, string>)[key]
      expect(en?.trim(), `${key} in English`).toBeTruthy()
      expect(ko?.trim(), `${key} in Korean`).toBeTruthy()
      expect(ko, `${key} is translated`).not.toBe(en)
    }
  })
})

describe('GET /admin/audit', () => {
  it('pages newest first and filters by action, actorId and time range', async () => {
    const login = await post('/auth/login', { email: 'boss@example.test', password: ADMIN_PASSWORD })
    const admin = sessionFrom(login)
    const adminId = (await login.json()).user.id
    const get = async (query: string) => {
      const res = await api(`/admin/audit${query}`, { headers: admin })
      expect(res.status, query).toBe(200)
      return res.json()
    }
    const all = await get('')
    expect(all.page).toBe(1)
    expect(all.total).toBe(await em().count(AuditLog, {}))
    expect(all.items[0].action).toBe('auth.login') // newest first
    expect(Object.keys(all.items[0]).sort()).toEqual([
      'action',
      'actorId',
      'actorLabel',
      'at',
      'details',
      'id',
      'ip',
      'targetId',
      'targetType',
      'userAgent',
    ])
    const failed = await get('?action=auth.login_failed')
    expect(failed.total).toBe(2)
    expect(failed.items.every((i: { action: string }) => i.action === 'auth.login_failed')).toBe(true)
    const mine = await get(`?actorId=${adminId}`)
    expect(mine.items.every((i: { actorId: string }) => i.actorId === adminId)).toBe(true)
    expect(mine.items.map((i: { action: string }) => i.action)).toContain('agent.create')
    const future = await get(`?from=${encodeURIComponent(new Date(Date.now() + 60_000).toISOString())}`)
    expect(future).toEqual({ items: [], total: 0, page: 1 })
    const past = await get(`?to=${encodeURIComponent(new Date(Date.now() + 60_000).toISOString())}&page=2`)
    expect(past).toMatchObject({ items: [], page: 2, total: all.total })
    for (const bad of ['?actorId=nope', '?from=yesterday', '?page=0']) {
      expect((await api(`/admin/audit${bad}`, { headers: admin })).status, bad).toBe(400)
    }
  })
})

describe('glossary seed-admin', () => {
  it('promotes an existing account on a second run and audits both runs without the password', async () => {
    const env = { GLOSSARY_ADMIN_EMAIL: 'Second.Seed@example.test', GLOSSARY_ADMIN_PASSWORD: SEED_PASSWORD }
    await withConfig(env, async () => {
      expect(await seedAdmin()).toEqual({ created: true, email: 'second.seed@example.test' })
      await em().execute(`update users set role = 'viewer' where email = 'second.seed@example.test'`)
      expect(await seedAdmin()).toEqual({ created: false, email: 'second.seed@example.test' })
    })
    const rows = await auditRows({ action: 'admin.seed', details: { email: 'second.seed@example.test' } })
    expect(rows.map((r) => r.details)).toEqual([
      { email: 'second.seed@example.test', created: true, previousRole: null },
      { email: 'second.seed@example.test', created: false, previousRole: 'viewer' },
    ])
    expect(JSON.stringify(rows)).not.toContain(SEED_PASSWORD)
    const role = await em().execute(`select role from users where email = 'second.seed@example.test'`)
    expect(role).toEqual([{ role: 'admin' }])
  })
})
