import { beforeAll, beforeEach, describe, expect, it } from 'vitest'
import type { WikiListItemDto, WikiPageDto } from '#app/services/wiki/read.server.ts'
import { em } from '#db/orm.ts'
import { slugFromName } from '#domain/slug.ts'
import { createApiKey, createTerm, createUser, type TestUser } from '#tests/factories.ts'
import { useTestDb } from '#tests/setup/db.ts'
import { assertSafeHtml, call, errorCode, queueRows, XSS_PAYLOADS } from './helpers.ts'

useTestDb()

let viewer: TestUser
let editor: TestUser

beforeAll(async () => {
  viewer = await createUser({ role: 'viewer' })
  editor = await createUser({ role: 'editor', name: 'Wiki Editor' })
})

beforeEach(async () => {
  await em().execute('delete from wiki_pages')
  await em().execute(`delete from rag_index_queue where source_type = 'wiki'`)
})

async function create(payload: Record<string, unknown>, headers = editor.sessionHeaders): Promise<Response> {
  return call('/wiki', { method: 'POST', headers, body: payload })
}

async function createOk(payload: Record<string, unknown>): Promise<WikiPageDto> {
  const res = await create(payload)
  expect(res.status, await res.clone().text()).toBe(201)
  return (await res.json()) as WikiPageDto
}

async function update(slug: string, payload: Record<string, unknown>, headers = editor.sessionHeaders) {
  return call(`/wiki/${encodeURIComponent(slug)}`, { method: 'PATCH', headers, body: payload })
}

async function updateOk(slug: string, payload: Record<string, unknown>): Promise<WikiPageDto> {
  const res = await update(slug, payload)
  expect(res.status, await res.clone().text()).toBe(200)
  return (await res.json()) as WikiPageDto
}

async function list(
  query = '',
): Promise<{ items: WikiListItemDto[]; total: number; page: number; pageSize: number }> {
  const res = await call(`/wiki${query}`, { headers: viewer.sessionHeaders })
  expect(res.status).toBe(200)
  return (await res.json()) as { items: WikiListItemDto[]; total: number; page: number; pageSize: number }
}

describe('POST /wiki', () => {
  it('creates a draft at revision 1 that is not official evidence and is not queued', async () => {
    const page = await createOk({
      title: 'Payment flow',
      content: '# Steps\n\n1. pay',
      summary: 'How paying works',
    })
    expect(page).toMatchObject({
      slug: 'payment-flow',
      title: 'Payment flow',
      content: '# Steps\n\n1. pay',
      summary: 'How paying works',
      sourceUrl: null,
      domain: [],
      termSlugs: [],
      status: 'draft',
      revision: 1,
      official: false,
      createdBy: { id: editor.user.id, name: 'Wiki Editor' },
    })
    expect(page.html).toContain('<h1>Steps</h1>')
    expect(await queueRows('wiki', page.id)).toEqual([])
    const revisions = (await (
      await call('/wiki/payment-flow/revisions', { headers: viewer.sessionHeaders })
    ).json()) as {
      items: { revision: number; author: { id: string } }[]
      total: number
    }
    expect(revisions.total).toBe(1)
    expect(revisions.items[0]).toMatchObject({ revision: 1, author: { id: editor.user.id } })
  })

  it('queues a page created as published, with its revision', async () => {
    const page = await createOk({ title: 'Published at once', content: 'text', status: 'published' })
    expect(page.official).toBe(true)
    expect(await queueRows('wiki', page.id)).toEqual([
      { source_type: 'wiki', source_id: page.id, revision: 1, action: 'index', status: 'queued' },
    ])
  })

  it('needs an editor session or a write key', async () => {
    const payload = { title: 'Access', content: 'x' }
    const asViewer = await create(payload, viewer.sessionHeaders)
    expect(asViewer.status).toBe(403)
    expect((await create(payload, {})).status).toBe(401)
    const readKey = await createApiKey(editor.user.id, ['read'])
    expect((await create(payload, readKey)).status).toBe(403)
    const writeKey = await createApiKey(editor.user.id, ['write'])
    const byKey = await create(payload, writeKey)
    expect(byKey.status).toBe(201)
    // Keys change pages too, and read keys read them.
    expect((await update('access', { summary: 'by key' }, writeKey)).status).toBe(200)
    expect((await update('access', { summary: 'no' }, readKey)).status).toBe(403)
    expect((await update('access', { summary: 'no' }, viewer.sessionHeaders)).status).toBe(403)
    expect((await call('/wiki/access', { headers: readKey })).status).toBe(200)
  })

  it('requires title and content and accepts only http(s) source addresses', async () => {
    for (const payload of [
      { content: 'x' },
      { title: 'No content' },
      { title: '', content: 'x' },
      { title: 'Blank', content: '   ' },
      { title: 'Bad url', content: 'x', sourceUrl: 'javascript:alert(1)' },
      { title: 'Bad url', content: 'x', sourceUrl: 'ftp://files.example/doc' },
      { title: 'Bad url', content: 'x', sourceUrl: '/relative/doc' },
      { title: 'Bad url', content: 'x', sourceUrl: 'data:text/html,<script>alert(1)</script>' },
      { title: 'Bad status', content: 'x', status: 'secret' },
      { title: 'Bad slug', content: 'x', slug: 'Has Spaces' },
    ]) {
      const res = await create(payload)
      expect(res.status, JSON.stringify(payload)).toBe(400)
      expect(await errorCode(res)).toBe('validation_failed')
    }
    const https = await createOk({
      title: 'Good url',
      content: 'x',
      sourceUrl: 'https://intra.example/doc?id=1',
    })
    expect(https.sourceUrl).toBe('https://intra.example/doc?id=1')
    const http = await createOk({ title: 'Plain http', content: 'x', sourceUrl: 'http://intra.example/doc' })
    expect(http.sourceUrl).toBe('http://intra.example/doc')
  })

  it('accepts content of 200,000 characters and refuses 200,001', async () => {
    const ok = await create({ title: 'Long page', content: '가'.repeat(200_000) })
    expect(ok.status).toBe(201)
    const tooLong = await create({ title: 'Too long page', content: 'a'.repeat(200_001) })
    expect(tooLong.status).toBe(400)
  })
})

describe('wiki slugs', () => {
  it('are made by the one slug rule: Hangul kept, lowercase, anything else one hyphen', () => {
    expect(slugFromName('결제 흐름 개요')).toBe('결제-흐름-개요')
    expect(slugFromName('API 게이트웨이: 소개!')).toBe('api-게이트웨이-소개')
    expect(slugFromName('Node.js 가이드 (v2)')).toBe('node-js-가이드-v2')
    expect(slugFromName('  ＡＰＩ　설계 — 원칙  ')).toBe('api-설계-원칙')
    expect(slugFromName('?!')).toBe('untitled')
    expect(slugFromName('x'.repeat(99) + '.y')).toBe('x'.repeat(99))
    // An address shaped like a UUID would be read as an id.
    expect(slugFromName('0F8FAD5B-D9CB-469F-A165-70867728950E')).toBe(
      'id-0f8fad5b-d9cb-469f-a165-70867728950e',
    )
  })

  it('a term and a page with the same name get the same slug, so the page is refused (409 slug_taken)', async () => {
    // The two makers used to differ here: the term `node-js`, the page `nodejs`, and both were accepted.
    for (const name of ['Node.js', 'Ａ.Ｂ 테스트', '0F8FAD5B-D9CB-469F-A165-70867728950E']) {
      const term = await createTerm({ name })
      expect(term.slug).toBe(slugFromName(name))
      const res = await create({ title: name, content: 'x' })
      expect(res.status, name).toBe(409)
      expect(await errorCode(res)).toBe('slug_taken')
    }
    expect(await em().execute('select count(*)::int as n from wiki_pages')).toEqual([{ n: 0 }])
  })

  it('are generated on create, with a suffix when another page has the slug', async () => {
    const first = await createOk({ title: '결제 흐름 개요', content: '내용' })
    expect(first.slug).toBe('결제-흐름-개요')
    const second = await createOk({ title: '결제 흐름 개요', content: '다른 내용' })
    expect(second.slug).toBe('결제-흐름-개요-2')
    const byKorean = await call(`/wiki/${encodeURIComponent('결제-흐름-개요')}`, {
      headers: viewer.sessionHeaders,
    })
    expect(byKorean.status).toBe(200)
    expect(((await byKorean.json()) as WikiPageDto).id).toBe(first.id)
  })

  it('never equal a term slug (409 slug_taken), given or generated', async () => {
    const term = await createTerm({ name: 'Settlement Batch' })
    expect(term.slug).toBe('settlement-batch')
    const given = await create({ title: 'Anything', content: 'x', slug: 'settlement-batch' })
    expect(given.status).toBe(409)
    expect(await errorCode(given)).toBe('slug_taken')
    const generated = await create({ title: 'Settlement batch', content: 'x' })
    expect(generated.status).toBe(409)
    expect(await errorCode(generated)).toBe('slug_taken')
    const other = await createOk({ title: 'Settlement batch', content: 'x', slug: 'settlement-batch-guide' })
    expect(other.slug).toBe('settlement-batch-guide')
    const taken = await create({ title: 'Again', content: 'x', slug: 'settlement-batch-guide' })
    expect(taken.status).toBe(409)
    expect(await errorCode(taken)).toBe('slug_taken')
    expect(await em().execute('select count(*)::int as n from wiki_pages')).toEqual([{ n: 1 }])
  })
})

describe('PATCH /wiki/{slug}', () => {
  it('keeps every edit as a revision with author and content, and diffs two revisions', async () => {
    await createOk({ title: 'History', content: 'line one\nline two\n', domain: ['payments'] })
    await updateOk('history', { content: 'line one\nline 2\n' })
    const third = await updateOk('history', { title: 'History (new)', domain: ['payments', 'ops'] })
    expect(third.revision).toBe(3)
    const revisions = (await (
      await call('/wiki/history/revisions', { headers: viewer.sessionHeaders })
    ).json()) as {
      items: { revision: number; title: string }[]
    }
    expect(revisions.items.map((r) => r.revision)).toEqual([3, 2, 1])
    const r1 = (await (
      await call('/wiki/history/revisions/1', { headers: viewer.sessionHeaders })
    ).json()) as {
      content: string
      title: string
    }
    expect(r1).toMatchObject({ content: 'line one\nline two\n', title: 'History' })
    const diff = (await (
      await call('/wiki/history/revisions/1/diff/3', { headers: viewer.sessionHeaders })
    ).json()) as {
      fields: {
        field: string
        changed: boolean
        changes?: { value: string; added: boolean; removed: boolean }[]
      }[]
    }
    const field = (name: string) => diff.fields.find((f) => f.field === name)!
    expect(field('title').changed).toBe(true)
    expect(field('summary').changed).toBe(false)
    expect(field('content').changes).toEqual([
      { value: 'line one\n', added: false, removed: false },
      { value: 'line two\n', added: false, removed: true },
      { value: 'line 2\n', added: true, removed: false },
    ])
    expect(
      field('domain')
        .changes?.filter((c) => c.added)
        .map((c) => c.value),
    ).toEqual(['ops'])
    // Saving the same content again is not an edit.
    expect((await updateOk('history', { title: 'History (new)' })).revision).toBe(3)
    expect((await call('/wiki/history/revisions/9', { headers: viewer.sessionHeaders })).status).toBe(404)
  })

  it('queues a published page with its latest revision and sends it out of search on draft and archive', async () => {
    const page = await createOk({ title: 'Lifecycle', content: 'v1' })
    const queue = async () => (await queueRows('wiki', page.id)).map((r) => [r.revision, r.action, r.status])
    expect(await queue()).toEqual([])
    const published = await updateOk('lifecycle', { status: 'published' })
    expect(published.official).toBe(true)
    expect(await queue()).toEqual([[2, 'index', 'queued']])
    await updateOk('lifecycle', { content: 'v2' })
    expect(await queue()).toEqual([[3, 'index', 'queued']])
    // Leaving published turns the queued work into its removal (leaveSearch), at the new revision.
    const draft = await updateOk('lifecycle', { status: 'draft' })
    expect(draft.official).toBe(false)
    expect(await queue()).toEqual([[4, 'remove', 'queued']])
    // A draft edit queues nothing: the page is not in search.
    await updateOk('lifecycle', { content: 'v3' })
    expect(await queue()).toEqual([[4, 'remove', 'queued']])
    await updateOk('lifecycle', { status: 'published' })
    expect(await queue()).toEqual([[6, 'index', 'queued']])
    // A failed attempt is dropped when the page is archived: a retry must never bring it back.
    await em().execute(`update rag_index_queue set status = 'failed' where source_id = ?`, [page.id])
    await updateOk('lifecycle', { status: 'archived' })
    expect(await queue()).toEqual([[7, 'remove', 'queued']])
    // Archived pages can come back.
    const back = await updateOk('lifecycle', { status: 'published' })
    expect(back.status).toBe('published')
    expect(await queue()).toEqual([[8, 'index', 'queued']])
  })

  it('refuses an edit based on an old revision (409 revision_conflict)', async () => {
    await createOk({ title: 'Conflict', content: 'v1' })
    await updateOk('conflict', { content: 'v2', baseRevision: 1 })
    const res = await update('conflict', { content: 'v3', baseRevision: 1 })
    expect(res.status).toBe(409)
    expect(await errorCode(res)).toBe('revision_conflict')
    expect(
      ((await (await call('/wiki/conflict', { headers: viewer.sessionHeaders })).json()) as WikiPageDto)
        .content,
    ).toBe('v2')
  })

  it('races two edits from the same base revision: one 200, one 409 revision_conflict', async () => {
    await createOk({ title: 'Race', content: 'v1' })
    const other = await createUser({ role: 'editor' })
    const [first, second] = await Promise.all([
      update('race', { content: 'mine', baseRevision: 1 }),
      update('race', { content: 'theirs', baseRevision: 1 }, other.sessionHeaders),
    ])
    expect([first.status, second.status].sort()).toEqual([200, 409])
    expect(await errorCode(first.status === 409 ? first : second)).toBe('revision_conflict')
    const page = (await (await call('/wiki/race', { headers: viewer.sessionHeaders })).json()) as WikiPageDto
    expect(page.revision).toBe(2)
    expect(page.content).toBe(first.status === 200 ? 'mine' : 'theirs')
  })

  it('answers 404 for an unknown page and 400 for an empty edit', async () => {
    expect((await update('no-such-page', { content: 'x' })).status).toBe(404)
    expect((await call('/wiki/no-such-page', { headers: viewer.sessionHeaders })).status).toBe(404)
    await createOk({ title: 'Empty edit', content: 'x' })
    expect((await update('empty-edit', {})).status).toBe(400)
    expect((await update('empty-edit', { slug: 'renamed' })).status).toBe(400)
  })
})

describe('GET /wiki', () => {
  it('hides archived pages unless status=archived, and filters by q, domain and term', async () => {
    const gateway = await createTerm({ name: 'Gateway' })
    const ledger = await createTerm({ name: 'Ledger Book' })
    const a = await createOk({
      title: 'Gateway setup',
      content: 'about routing',
      domain: ['platform'],
      termSlugs: [gateway.slug],
    })
    const b = await createOk({
      title: 'Ledger close',
      content: 'the gateway posts entries',
      domain: ['finance'],
      termSlugs: [ledger.slug, gateway.slug],
      status: 'published',
    })
    const c = await createOk({ title: 'Old gateway notes', content: 'x', status: 'archived' })
    expect(a.termSlugs).toEqual([gateway.slug])
    expect(b.termSlugs.sort()).toEqual([gateway.slug, ledger.slug].sort())
    expect(b.terms.map((t) => t.id).sort()).toEqual([gateway.id, ledger.id].sort())

    const all = await list()
    expect(all.items.map((i) => i.id).sort()).toEqual([a.id, b.id].sort())
    expect(all).toMatchObject({ total: 2, page: 1, pageSize: 20 })
    expect((await list('?status=archived')).items.map((i) => i.id)).toEqual([c.id])
    expect((await list('?status=published')).items.map((i) => i.id)).toEqual([b.id])
    // Title matches first, then text matches.
    expect((await list('?q=GATEWAY')).items.map((i) => i.id)).toEqual([a.id, b.id])
    expect((await list('?domain=finance')).items.map((i) => i.id)).toEqual([b.id])
    expect((await list('?domain=finance&domain=platform')).total).toBe(2)
    expect((await list(`?termId=${ledger.id}`)).items.map((i) => i.id)).toEqual([b.id])
    expect((await list(`?termId=${gateway.id}`)).total).toBe(2)
    expect((await list('?q=100%25')).total).toBe(0)
  })

  it('pages with pageSize (default 20, at most 100)', async () => {
    for (let i = 0; i < 23; i++) await createOk({ title: `Paged ${i}`, content: 'x' })
    const first = await list()
    expect(first.items).toHaveLength(20)
    expect(first.total).toBe(23)
    const second = await list('?page=2')
    expect(second.items).toHaveLength(3)
    expect((await list('?pageSize=5&page=5')).items).toHaveLength(3)
    expect((await list('?pageSize=100')).items).toHaveLength(23)
    expect((await call('/wiki?pageSize=101', { headers: viewer.sessionHeaders })).status).toBe(400)
    expect((await call('/wiki?status=deleted', { headers: viewer.sessionHeaders })).status).toBe(400)
  })

  it('links terms by slug and refuses unknown term slugs', async () => {
    const res = await create({ title: 'Unknown link', content: 'x', termSlugs: ['no-such-term'] })
    expect(res.status).toBe(400)
    const json = (await res.json()) as { error: { details: { problems: { path: string }[] } } }
    expect(json.error.details.problems[0]!.path).toBe('termSlugs.0')
    const t = await createTerm()
    const page = await createOk({ title: 'Linked', content: 'x', termSlugs: [t.slug, t.slug] })
    expect(page.termSlugs).toEqual([t.slug])
    const unlinked = await updateOk('linked', { termSlugs: [] })
    expect(unlinked.termSlugs).toEqual([])
    expect((await list(`?termId=${t.id}`)).total).toBe(0)
  })
})

describe('wiki Markdown', () => {
  it('renders content without script, event handlers or javascript: URLs', async () => {
    for (const [i, payload] of XSS_PAYLOADS.entries()) {
      const page = await createOk({ title: `XSS ${i}`, content: `Intro\n\n${payload}\n` })
      expect(page.content).toContain(payload)
      assertSafeHtml(page.html)
      const fetched = (await (
        await call(`/wiki/${page.slug}`, { headers: viewer.sessionHeaders })
      ).json()) as WikiPageDto
      assertSafeHtml(fetched.html)
    }
  })
})

describe('partial edits', () => {
  it('keep the fields that are not sent and clear a summary only when asked', async () => {
    await createOk({ title: 'Partial', content: 'x', summary: 'kept', sourceUrl: 'https://a.example/' })
    const edited = await updateOk('partial', { content: 'y' })
    expect(edited).toMatchObject({ summary: 'kept', sourceUrl: 'https://a.example/', content: 'y' })
    const cleared = await updateOk('partial', { summary: null, sourceUrl: '' })
    expect(cleared).toMatchObject({ summary: null, sourceUrl: null })
  })
})
