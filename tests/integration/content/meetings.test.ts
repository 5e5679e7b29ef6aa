import { beforeAll, beforeEach, describe, expect, it } from 'vitest'
import type { MeetingDto, MeetingListItemDto } from '#app/services/meetings/meetings.server.ts'
import { em } from '#db/orm.ts'
import { createApiKey, createUser, type TestUser } from '#tests/factories.ts'
import { useTestDb } from '#tests/setup/db.ts'
import { call, errorCode, queueRows } from './helpers.ts'

useTestDb()

let viewer: TestUser
let editor: TestUser
let admin: TestUser

beforeAll(async () => {
  viewer = await createUser({ role: 'viewer' })
  editor = await createUser({ role: 'editor', name: 'Minutes Taker' })
  admin = await createUser({ role: 'admin', name: 'The Admin' })
})

beforeEach(async () => {
  await em().execute('delete from meetings')
  await em().execute(`delete from rag_index_queue where source_type = 'meeting'`)
})

const BASE = {
  title: '결제팀 주간 회의',
  meetingDate: '2024-03-05T10:00:00+09:00',
  content: '안건 1: 정산 배치 일정\n결정: 다음 주로 연기',
}

async function create(payload: Record<string, unknown>, headers = editor.sessionHeaders): Promise<Response> {
  return call('/meetings', { method: 'POST', headers, body: payload })
}

async function createOk(payload: Record<string, unknown>): Promise<MeetingDto> {
  const res = await create(payload)
  expect(res.status, await res.clone().text()).toBe(201)
  return (await res.json()) as MeetingDto
}

async function list(
  query = '',
): Promise<{ items: MeetingListItemDto[]; total: number; page: number; pageSize: number }> {
  const res = await call(`/meetings${query}`, { headers: viewer.sessionHeaders })
  expect(res.status, await res.clone().text()).toBe(200)
  return (await res.json()) as { items: MeetingListItemDto[]; total: number; page: number; pageSize: number }
}

function archive(id: string, headers: Record<string, string>): Promise<Response> {
  return call(`/meetings/${id}/archive`, { method: 'POST', headers })
}

describe('POST /meetings', () => {
  it('stores the original text as an active record and queues it in the same transaction', async () => {
    const meeting = await createOk({
      ...BASE,
      source: 'wiki export',
      team: 'payments',
      domain: ['finance', 'finance'],
    })
    expect(meeting).toMatchObject({
      title: BASE.title,
      meetingDate: '2024-03-05T01:00:00.000Z',
      source: 'wiki export',
      team: 'payments',
      domain: ['finance'],
      content: BASE.content,
      status: 'active',
      revision: 1,
      archivedAt: null,
      createdBy: { id: editor.user.id, name: 'Minutes Taker' },
    })
    expect(meeting.contentLength).toBe([...BASE.content].length)
    expect(await queueRows('meeting', meeting.id)).toEqual([
      { source_type: 'meeting', source_id: meeting.id, revision: 1, action: 'index', status: 'queued' },
    ])
    const fetched = (await (
      await call(`/meetings/${meeting.id}`, { headers: viewer.sessionHeaders })
    ).json()) as MeetingDto
    expect(fetched.content).toBe(BASE.content)
  })

  it('requires title, meetingDate (ISO 8601) and content; source, team and domain are optional', async () => {
    for (const payload of [
      { meetingDate: BASE.meetingDate, content: 'x' },
      { title: 't', content: 'x' },
      { title: 't', meetingDate: BASE.meetingDate },
      { ...BASE, meetingDate: 'last tuesday' },
      { ...BASE, meetingDate: '05/03/2024' },
      { ...BASE, content: '' },
      { ...BASE, domain: 'finance' },
      { ...BASE, status: 'archived' },
    ]) {
      const res = await create(payload)
      expect(res.status, JSON.stringify(payload)).toBe(400)
      expect(await errorCode(res)).toBe('validation_failed')
    }
    const dateOnly = await createOk({ ...BASE, meetingDate: '2024-03-05' })
    expect(dateOnly).toMatchObject({
      meetingDate: '2024-03-05T00:00:00.000Z',
      source: null,
      team: null,
      domain: [],
    })
  })

  it('accepts 200,000 characters of content and refuses 200,001', async () => {
    const max = await create({ ...BASE, content: '회'.repeat(200_000) })
    expect(max.status).toBe(201)
    const stored = (await max.json()) as MeetingDto
    expect(stored.contentLength).toBe(200_000)
    expect(stored.content).toBe('회'.repeat(200_000))
    const astral = await create({ ...BASE, content: '😀'.repeat(200_000) })
    expect(astral.status).toBe(201)
    const over = await create({ ...BASE, content: 'a'.repeat(200_001) })
    expect(over.status).toBe(400)
    expect(await errorCode(over)).toBe('validation_failed')
    expect((await create({ ...BASE, content: '😀'.repeat(200_001) })).status).toBe(400)
  })

  it('needs an editor session or a write key', async () => {
    expect((await create(BASE, viewer.sessionHeaders)).status).toBe(403)
    expect((await create(BASE, {})).status).toBe(401)
    expect((await create(BASE, await createApiKey(editor.user.id, ['read']))).status).toBe(403)
    expect((await create(BASE, await createApiKey(editor.user.id, ['write']))).status).toBe(201)
  })
})

describe('GET /meetings', () => {
  it('lists active records by default and archived ones with status=archived', async () => {
    const a = await createOk({ ...BASE, title: 'A', meetingDate: '2024-01-10T00:00:00Z' })
    const b = await createOk({ ...BASE, title: 'B', meetingDate: '2024-02-10T00:00:00Z' })
    const res = await archive(a.id, admin.sessionHeaders)
    expect(res.status).toBe(200)
    const active = await list()
    expect(active.items.map((i) => i.id)).toEqual([b.id])
    expect(active.total).toBe(1)
    expect(active.items[0]!.excerpt).toBe(BASE.content)
    expect(active.items[0]).not.toHaveProperty('content')
    const archived = await list('?status=archived')
    expect(archived.items.map((i) => i.id)).toEqual([a.id])
    expect(archived.items[0]).toMatchObject({ status: 'archived', archivedBy: { id: admin.user.id } })
    expect((await call('/meetings?status=deleted', { headers: viewer.sessionHeaders })).status).toBe(400)
  })

  it('filters by q, team, domain and date range, latest meeting first, with paging', async () => {
    const jan = await createOk({
      ...BASE,
      title: '정산 회의',
      meetingDate: '2024-01-15T00:00:00Z',
      team: 'payments',
      domain: ['finance'],
    })
    const feb = await createOk({
      ...BASE,
      title: 'Infra sync',
      content: 'gateway rollout',
      meetingDate: '2024-02-15T00:00:00Z',
      team: 'infra',
      domain: ['platform'],
    })
    const mar = await createOk({
      ...BASE,
      title: 'Infra retro',
      content: 'nothing',
      meetingDate: '2024-03-15T00:00:00Z',
      team: 'infra',
      domain: ['platform', 'finance'],
    })
    expect((await list()).items.map((i) => i.id)).toEqual([mar.id, feb.id, jan.id])
    expect((await list('?q=GATEWAY')).items.map((i) => i.id)).toEqual([feb.id])
    expect((await list(`?q=${encodeURIComponent('정산')}`)).items.map((i) => i.id)).toEqual([jan.id])
    expect((await list('?team=infra')).items.map((i) => i.id)).toEqual([mar.id, feb.id])
    expect((await list('?domain=finance')).items.map((i) => i.id)).toEqual([mar.id, jan.id])
    expect((await list('?from=2024-02-01T00:00:00Z&to=2024-02-15T00:00:00Z')).items.map((i) => i.id)).toEqual(
      [feb.id],
    )
    expect((await list('?from=2024-02-16')).items.map((i) => i.id)).toEqual([mar.id])
    const paged = await list('?pageSize=2&page=2')
    expect(paged).toMatchObject({ total: 3, page: 2, pageSize: 2 })
    expect(paged.items.map((i) => i.id)).toEqual([jan.id])
    expect((await call('/meetings?from=yesterday', { headers: viewer.sessionHeaders })).status).toBe(400)
    const key = await createApiKey(viewer.user.id, ['read'])
    expect((await call('/meetings', { headers: key })).status).toBe(200)
  })
})

describe('GET /meetings/{id}', () => {
  it('returns the original text exactly, and 404 for an unknown id', async () => {
    const text = '  leading spaces\r\n<script>kept as text</script>\n\ttabs\u0000?'.replace('\u0000', '')
    const meeting = await createOk({ ...BASE, content: text })
    const fetched = (await (
      await call(`/meetings/${meeting.id}`, { headers: viewer.sessionHeaders })
    ).json()) as MeetingDto
    expect(fetched.content).toBe(text)
    expect((await call(`/meetings/${crypto.randomUUID()}`, { headers: viewer.sessionHeaders })).status).toBe(
      404,
    )
    expect((await call('/meetings/not-a-uuid', { headers: viewer.sessionHeaders })).status).toBe(400)
  })
})

describe('POST /meetings/{id}/archive', () => {
  it('is for admin sessions only and removes the record from search', async () => {
    const meeting = await createOk(BASE)
    expect((await archive(meeting.id, editor.sessionHeaders)).status).toBe(403)
    expect((await archive(meeting.id, viewer.sessionHeaders)).status).toBe(403)
    const key = await createApiKey(admin.user.id, ['read', 'write', 'validate'])
    expect((await archive(meeting.id, key)).status).toBe(403)
    expect(await queueRows('meeting', meeting.id)).toHaveLength(1)
    const res = await archive(meeting.id, admin.sessionHeaders)
    expect(res.status).toBe(200)
    const archived = (await res.json()) as MeetingDto
    expect(archived).toMatchObject({
      status: 'archived',
      archivedBy: { id: admin.user.id, name: 'The Admin' },
    })
    expect(archived.content).toBe(BASE.content)
    expect(await queueRows('meeting', meeting.id)).toEqual([
      { source_type: 'meeting', source_id: meeting.id, revision: 1, action: 'remove', status: 'queued' },
    ])
    // Archiving again changes nothing.
    const again = await archive(meeting.id, admin.sessionHeaders)
    expect(again.status).toBe(200)
    expect(((await again.json()) as MeetingDto).archivedAt).toBe(archived.archivedAt)
    expect((await archive(crypto.randomUUID(), admin.sessionHeaders)).status).toBe(404)
  })

  it('leaves records read-only otherwise: no route changes or deletes them', async () => {
    const meeting = await createOk(BASE)
    for (const method of ['PATCH', 'PUT', 'DELETE']) {
      const res = await call(`/meetings/${meeting.id}`, {
        method,
        headers: admin.sessionHeaders,
        body: { title: 'new' },
      })
      expect(res.status, method).toBe(405)
    }
    const fetched = (await (
      await call(`/meetings/${meeting.id}`, { headers: viewer.sessionHeaders })
    ).json()) as MeetingDto
    expect(fetched.title).toBe(BASE.title)
  })
})
