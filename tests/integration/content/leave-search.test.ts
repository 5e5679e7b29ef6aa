import { beforeAll, describe, expect, it } from 'vitest'
import type { TermDto } from '#app/services/terms/read.server.ts'
import { em } from '#db/orm.ts'
import { createTerm, createUser, type TestUser } from '#tests/factories.ts'
import { useTestDb } from '#tests/setup/db.ts'
import { call, queueRows } from './helpers.ts'

useTestDb()

/**
 * "Leaves search" means one thing (app/services/index-queue/leave-search.server.ts): deleting a term,
 * merging a term, archiving a meeting and moving a wiki page out of published all end with the source's
 * one queued row turned into a `remove` row at the source's revision, its failed rows gone, and work the
 * worker already holds (`processing`) or finished (`ready`) left alone.
 */

let admin: TestUser

beforeAll(async () => {
  admin = await createUser({ role: 'admin', name: 'Search Admin' })
})

async function ok(res: Response, status = 200): Promise<unknown> {
  expect(res.status, await res.clone().text()).toBe(status)
  return res.status === 204 ? undefined : res.json()
}

/** Gives the source the history every case starts from: a finished, a failed and an in-flight attempt. */
async function seedHistory(kind: string, id: string): Promise<void> {
  for (const status of ['ready', 'failed', 'processing']) {
    await em().execute(
      `insert into rag_index_queue (id, source_type, source_id, revision, action, status, attempts, created_at, updated_at)
       values (gen_random_uuid(), ?, ?, 1, 'index', ?, 1, now() - interval '1 hour', now())`,
      [kind, id, status],
    )
  }
}

/** The state every removal must end in, whichever of the four paths took the source out. */
async function expectLeftSearch(kind: string, id: string, revision: number): Promise<void> {
  const rows = (await queueRows(kind, id)).map((r) => [r.status, r.action, r.revision])
  expect(rows.sort()).toEqual(
    [
      ['processing', 'index', 1],
      ['queued', 'remove', revision],
      ['ready', 'index', 1],
    ].sort(),
  )
}

describe('leaving search', () => {
  it('a deleted term', async () => {
    const term = await createTerm({ name: 'Doomed Term' })
    await seedHistory('term', term.id)
    await ok(await call(`/terms/${term.id}`, { method: 'DELETE', headers: admin.sessionHeaders }), 204)
    await expectLeftSearch('term', term.id, 1)
  })

  it('a term merged into another (the survivor is queued for indexing)', async () => {
    const source = await createTerm({ name: 'Merged Away' })
    const target = await createTerm({ name: 'Survivor' })
    await seedHistory('term', source.id)
    const merged = (await ok(
      await call(`/terms/${source.id}/merge`, { headers: admin.sessionHeaders, body: { into: target.id } }),
    )) as { merged: TermDto; into: TermDto }
    expect(merged.merged.revision).toBe(2)
    await expectLeftSearch('term', source.id, 2)
    expect((await queueRows('term', target.id)).map((r) => [r.action, r.status, r.revision])).toEqual([
      ['index', 'queued', 2],
    ])
  })

  it('an archived meeting', async () => {
    const meeting = (await ok(
      await call('/meetings', {
        headers: admin.sessionHeaders,
        body: { title: 'Old minutes', meetingDate: '2024-03-01', content: 'text', domain: [] },
      }),
      201,
    )) as { id: string }
    await seedHistory('meeting', meeting.id)
    await ok(await call(`/meetings/${meeting.id}/archive`, { headers: admin.sessionHeaders, body: {} }))
    await expectLeftSearch('meeting', meeting.id, 1)
  })

  for (const status of ['draft', 'archived']) {
    it(`a wiki page moved from published to ${status}`, async () => {
      const page = (await ok(
        await call('/wiki', {
          headers: admin.sessionHeaders,
          body: { title: `Leaving to ${status}`, content: 'x', status: 'published' },
        }),
        201,
      )) as { id: string; slug: string }
      await seedHistory('wiki', page.id)
      await ok(
        await call(`/wiki/${page.slug}`, {
          method: 'PATCH',
          headers: admin.sessionHeaders,
          body: { status },
        }),
      )
      await expectLeftSearch('wiki', page.id, 2)
    })
  }

  it('a deleted classification does not queue a merged term for indexing again', async () => {
    await ok(
      await call('/domains', {
        headers: admin.sessionHeaders,
        body: { key: 'leaving', nameKo: '떠남', nameEn: 'Leaving' },
      }),
      201,
    )
    const source = await createTerm({ name: 'Classified Source', domains: ['leaving'] })
    const target = await createTerm({ name: 'Classified Target' })
    await ok(
      await call(`/terms/${source.id}/merge`, { headers: admin.sessionHeaders, body: { into: target.id } }),
    )
    await ok(await call('/domains/leaving', { method: 'DELETE', headers: admin.sessionHeaders }))
    // The merged term got a revision without the domain, but it stays out of search.
    expect((await queueRows('term', source.id)).map((r) => [r.action, r.status, r.revision])).toEqual([
      ['remove', 'queued', 2],
    ])
  })
})
