import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { claimedRows, returnToQueue } from '#app/services/index-queue/store.server.ts'
import { em } from '#db/orm.ts'
import { InProcessTransport } from '#pipeline/jobs/in-process.ts'
import { RELAY, returnOrphans } from '#pipeline/relay.ts'
import { createTerm } from '#tests/factories.ts'
import { useApiServer } from '#tests/http.ts'
import { useTestDb } from '#tests/setup/db.ts'

useTestDb()
const server = useApiServer()

/**
 * How the relay tells an orphaned `processing` row from a live one (decision 027), and what `/readyz` shows
 * an operator of the pipeline: live workers, the oldest due row, paused providers.
 */

const ME = 'worker-me'
const transport = new InProcessTransport()

beforeAll(async () => {
  await em().execute(
    `insert into worker_heartbeat (id, transport, started_at, last_seen_at)
     values (?, 'in-process', now(), now()), ('worker-alive', 'in-process', now(), now()),
            ('worker-killed', 'in-process', now() - interval '1 hour', now() - interval '45 seconds')`,
    [ME],
  )
})
afterAll(() => transport.close())

/** A term's row, claimed `ageSeconds` ago by `holder` at attempt 1. */
async function claimedRow(holder: string | null, ageSeconds: number): Promise<string> {
  const term = await createTerm()
  const [row] = await em().execute<{ id: string }[]>(
    `update rag_index_queue set status = 'processing', attempts = 1, locked_by = ?,
            locked_at = now() - (? * interval '1 second')
      where source_id = ? returning id`,
    [holder, ageSeconds, term.id],
  )
  return row!.id
}

async function statusOf(id: string): Promise<{ status: string; attempts: number; locked_by: string | null }> {
  const [row] = await em().execute<{ status: string; attempts: number; locked_by: string | null }[]>(
    'select status, attempts, locked_by from rag_index_queue where id = ?',
    [id],
  )
  return row!
}

describe('orphaned rows', () => {
  it('returns the rows of a worker whose heartbeat stopped, and rows of its own with no job pending; keeps the rest', async () => {
    await em().execute(`update rag_index_queue set status = 'ready' where status <> 'ready'`)
    const grace = RELAY.graceMs / 1000
    const killed = await claimedRow('worker-killed', grace + 5)
    const neverRegistered = await claimedRow('worker-unknown', grace + 5)
    const mineWithoutJob = await claimedRow(ME, grace + 5)
    const mineTooYoung = await claimedRow(ME, 1)
    // Another live worker's in-process jobs are invisible from here: its row is its own business...
    const othersLive = await claimedRow('worker-alive', grace + 5)
    // ...until its claim passes the last resort.
    const othersExpired = await claimedRow('worker-alive', RELAY.expiredMs / 1000 + 5)

    expect(await returnOrphans(transport, ME)).toBe(4)
    for (const id of [killed, neverRegistered, mineWithoutJob, othersExpired]) {
      // The claim stays counted: a row that kills its worker every time still fails in the end.
      expect(await statusOf(id)).toEqual({ status: 'queued', attempts: 1, locked_by: null })
    }
    expect((await statusOf(mineTooYoung)).status).toBe('processing')
    expect((await statusOf(othersLive)).status).toBe('processing')
  })

  it('an orphan whose source has newer work queued is finished as superseded instead', async () => {
    const orphan = await claimedRow('worker-killed', RELAY.graceMs / 1000 + 5)
    const [row] = await em().execute<{ source_id: string }[]>(
      'select source_id from rag_index_queue where id = ?',
      [orphan],
    )
    await em().execute(
      `insert into rag_index_queue (id, source_type, source_id, revision, action, status, attempts, created_at, updated_at)
       values (gen_random_uuid(), 'term', ?, 2, 'index', 'queued', 0, now(), now())`,
      [row!.source_id],
    )
    expect(await returnOrphans(transport, ME)).toBe(1)
    expect((await statusOf(orphan)).status).toBe('ready')
  })

  it('a claim judged an orphan is not returned once a new claim holds the row, even at the same attempt', async () => {
    await em().execute(`update rag_index_queue set status = 'ready' where status <> 'ready'`)
    const id = await claimedRow('worker-killed', RELAY.graceMs / 1000 + 5)
    const [judged] = await claimedRows(em(), {
      graceMs: RELAY.graceMs,
      expiredMs: RELAY.expiredMs,
      deadMs: 30_000,
    })
    expect(judged).toMatchObject({ id, holder_gone: true, attempts: 1 })
    // Meanwhile the row was requeued without spending its attempt (a provider pause) and claimed again by a
    // live worker: the same attempt number, a new claim.
    await em().execute(
      `update rag_index_queue set locked_by = 'worker-alive', locked_at = now() where id = ?`,
      [id],
    )
    expect(await returnToQueue(em(), judged!)).toBe('moved')
    expect(await statusOf(id)).toEqual({ status: 'processing', attempts: 1, locked_by: 'worker-alive' })
  })
})

describe('/readyz reports the pipeline', () => {
  it('live workers, the oldest due row, paused providers; a dead pipeline does not make the web unready', async () => {
    const term = await createTerm()
    await em().execute(
      `update rag_index_queue set status = 'queued', available_at = now() - interval '2 minutes' where source_id = ?`,
      [term.id],
    )
    let res = await fetch(`${server.url()}/readyz`)
    let body = await res.json()
    expect(res.status).toBe(200)
    expect(body.checks.workers).toBe('2 live')
    expect(body.checks.index).toMatch(/oldest due row waiting 1[2-9]\d s/)
    expect(body.index.problems).toEqual(['queue_behind'])
    expect(body.index.workers.map((w: { id: string }) => w.id)).toEqual(['worker-alive', ME])

    await em().execute(`update worker_heartbeat set last_seen_at = now() - interval '31 seconds'`)
    await em().execute(
      `insert into index_provider_pauses (provider, paused_until, since, failures, reason)
       values ('embedding', now() + interval '1 minute', now(), 2, 'Embedding: rate_limited (HTTP 429).')`,
    )
    res = await fetch(`${server.url()}/readyz`)
    body = await res.json()
    expect(res.status).toBe(200)
    expect(body.ready).toBe(true)
    expect(body.checks.workers).toBe('none live')
    expect(body.checks.index).toMatch(
      /^no live worker; oldest due row waiting \d+ s; embedding provider paused until /,
    )
    expect(body.index.problems).toEqual(['no_live_worker', 'queue_behind', 'provider_paused'])
    expect(body.index.paused).toEqual([
      { provider: 'embedding', until: expect.any(String), reason: 'Embedding: rate_limited (HTTP 429).' },
    ])
  })
})
