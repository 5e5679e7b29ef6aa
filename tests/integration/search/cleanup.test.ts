import { describe, expect, it } from 'vitest'
import { em } from '#db/orm.ts'
import { runCleanup } from '#pipeline/cleanup.ts'
import { createUser } from '#tests/factories.ts'
import { useTestDb } from '#tests/setup/db.ts'

useTestDb()

/**
 * The worker's hourly cleanup (issue 12): old AI run records, unreferenced old attachments and expired used SSO
 * flow states (issue 26) go, heartbeats of workers gone for a day are forgotten (orphaned index rows are the
 * relay's, tests/integration/search/orphans.test.ts), and two workers never run it at once (the lease).
 */

const PNG = Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex')

describe('cleanup', () => {
  it('removes what is past retention, forgets long-dead workers, keeps the rest', async () => {
    const day = 24 * 3600
    await em().execute(
      `insert into ai_runs (id, trace_id, task, purpose, provider, model, status, started_at)
       values (gen_random_uuid(), 't', 'embedding', 'index', 'alpha_compatible', 'm', 'succeeded', now() - (? * interval '1 second')),
              (gen_random_uuid(), 't', 'embedding', 'index', 'alpha_compatible', 'm', 'succeeded', now())`,
      [91 * day],
    )
    const sha = (n: number) => String(n).repeat(64).slice(0, 64)
    for (const [n, age] of [
      [1, 31],
      [2, 1],
    ] as const) {
      await em().execute(
        `insert into attachments (id, sha256, content_type, size, bytes, created_at)
         values (gen_random_uuid(), ?, 'image/png', ?, ?, now() - (? * interval '1 day'))`,
        [sha(n), PNG.length, PNG, age],
      )
    }
    await em().execute(
      `insert into worker_heartbeat (id, transport, started_at, last_seen_at)
       values ('killed-yesterday', 'bullmq', now() - interval '2 days', now() - interval '25 hours'),
              ('alive', 'bullmq', now(), now())`,
    )
    const { user } = await createUser()
    await em().execute(`update sessions set expires_at = now() - interval '1 minute' where user_id = ?`, [
      user.id,
    ])
    await em().execute(
      `insert into audit_log (id, at, action, actor_label) values (gen_random_uuid(), now() - interval '400 days', 'auth.login', 'x'),
                                                                 (gen_random_uuid(), now(), 'auth.login', 'y')`,
    )
    await em().execute(
      `insert into sso_used_states (state_hash, expires_at)
       values (?, now() - interval '1 minute'), (?, now() + interval '5 minutes')`,
      [sha(3), sha(4)],
    )
    const report = await runCleanup('worker-a')
    expect(report).toEqual({
      sessions: 1,
      rateLimitBuckets: 0,
      ssoUsedStates: 1,
      aiRuns: 1,
      auditRows: 1,
      attachments: 1,
      deadWorkers: 1,
    })
    const [{ audit }] = await em().execute<{ audit: string }[]>(
      `select count(*) as audit from audit_log where actor_label = 'y'`,
    )
    expect(Number(audit)).toBe(1)
    const [{ runs }] = await em().execute<{ runs: string }[]>('select count(*) as runs from ai_runs')
    expect(Number(runs)).toBe(1)
    const left = await em().execute<{ sha256: string }[]>('select sha256 from attachments')
    expect(left.map((r) => r.sha256)).toEqual([sha(2)])
    const workers = await em().execute<{ id: string }[]>('select id from worker_heartbeat order by id')
    expect(workers.map((r) => r.id)).toEqual(['alive'])
    const used = await em().execute<{ state_hash: string }[]>('select state_hash from sso_used_states')
    expect(used.map((r) => r.state_hash)).toEqual([sha(4)])
  })

  it('one worker at a time: another holder of the lease makes a second worker skip', async () => {
    await em().execute(
      `insert into app_setting (key, value, updated_at)
       values ('lease.cleanup', jsonb_build_object('holder', 'worker-b', 'until', now() + interval '5 minutes'), now())`,
    )
    expect(await runCleanup('worker-a')).toBeNull()
    await em().execute(
      `update app_setting set value = jsonb_set(value, '{until}', to_jsonb(now() - interval '1 second')) where key = 'lease.cleanup'`,
    )
    expect(await runCleanup('worker-a')).not.toBeNull()
    // Released when done: the next worker may run it at once.
    expect(await runCleanup('worker-b')).not.toBeNull()
  })
})
