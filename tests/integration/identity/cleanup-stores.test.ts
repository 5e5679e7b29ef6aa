import { describe, expect, it } from 'vitest'
import { recordAudit } from '#app/services/audit/audit.server.ts'
import { deleteAuditRowsOlderThan } from '#app/services/audit/store.server.ts'
import { authenticateSession } from '#app/services/auth/authenticate.server.ts'
import { createSession, SESSION_COOKIE } from '#app/services/auth/sessions.server.ts'
import { deleteExpiredSessions } from '#app/services/auth/store.server.ts'
import { em } from '#db/orm.ts'
import { createUser } from '#tests/factories.ts'
import { useTestDb } from '#tests/setup/db.ts'

/** The store functions the worker's hourly cleanup calls: each removes only what is over and counts it. */

useTestDb()

const count = async (sql: string, params: unknown[] = []) =>
  Number((await em().execute<{ n: number }[]>(`select count(*)::int as n from ${sql}`, params))[0]!.n)

describe('deleteExpiredSessions', () => {
  it('removes the sessions expired by `now` and counts them; live sessions keep working', async () => {
    const { user } = await createUser()
    const live = await createSession(user.id)
    const old = await Promise.all([createSession(user.id), createSession(user.id)])
    await em().execute(
      `update sessions set expires_at = now() - interval '1 minute' where id = any(?::uuid[])`,
      [`{${old.map((s) => s.sessionId).join(',')}}`],
    )
    const expired = await count('sessions where expires_at <= now()')
    expect(expired).toBeGreaterThanOrEqual(2)

    expect(await deleteExpiredSessions(new Date())).toBe(expired)
    expect(await count('sessions where expires_at <= now()')).toBe(0)
    expect(await count('sessions where id = ?', [live.sessionId])).toBe(1)
    const actor = await authenticateSession(`${SESSION_COOKIE}=${live.token}`)
    expect(actor?.user.id).toBe(user.id)
    expect(await deleteExpiredSessions(new Date())).toBe(0)
  })

  it('takes `now` from its caller: a session is expired once `now` reaches its expiry', async () => {
    const { user } = await createUser()
    const { sessionId, expiresAt } = await createSession(user.id)
    expect(await count('sessions where id = ?', [sessionId])).toBe(1)
    await deleteExpiredSessions(new Date(expiresAt.getTime() - 1000))
    expect(await count('sessions where id = ?', [sessionId])).toBe(1)
    await deleteExpiredSessions(new Date(expiresAt.getTime() + 1000))
    expect(await count('sessions where id = ?', [sessionId])).toBe(0)
  })
})

describe('deleteAuditRowsOlderThan', () => {
  it('removes the records written before the date and counts them; newer records stay', async () => {
    const actor = { userId: null, label: 'test' }
    await recordAudit({ action: 'setup', actor, details: { marker: 'old-1' } })
    await recordAudit({ action: 'setup', actor, details: { marker: 'old-2' } })
    await recordAudit({ action: 'setup', actor, details: { marker: 'new' } })
    await em().execute(
      `update audit_log set at = now() - interval '100 days' where details ->> 'marker' like 'old-%'`,
    )
    const cutoff = new Date(Date.now() - 90 * 86_400_000)
    const older = await count('audit_log where at < ?::timestamptz', [cutoff.toISOString()])
    expect(older).toBe(2)

    expect(await deleteAuditRowsOlderThan(cutoff)).toBe(2)
    expect(await count(`audit_log where details ->> 'marker' like 'old-%'`)).toBe(0)
    expect(await count(`audit_log where details ->> 'marker' = 'new'`)).toBe(1)
    expect(await deleteAuditRowsOlderThan(cutoff)).toBe(0)
  })
})
