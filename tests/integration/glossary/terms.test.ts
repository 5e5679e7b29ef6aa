import { describe, expect, it } from 'vitest'
import { em } from '#db/orm.ts'
import { createApiKey, createTerm, createUser, TEST_ORIGIN } from '#tests/factories.ts'
import { useApiServer, type Json } from '#tests/http.ts'
import { useTestDb } from '#tests/setup/db.ts'

useTestDb()
const server = useApiServer()
const api = server.api

async function queueRows(termId: string) {
  return em().execute<{ revision: number; status: string }[]>(
    `select revision, status from rag_index_queue where source_type = 'term' and source_id = ?`,
    [termId],
  )
}

describe('term create, read and revision history', () => {
  it('creates revision 1 with a queue row, and every changed save adds an immutable revision', async () => {
    const { sessionHeaders, user } = await createUser({ role: 'editor', name: 'Kim Editor' })
    const created = await api('POST', '/terms', sessionHeaders, {
      name: 'API Gateway',
      nameKo: 'API 게이트웨이',
      notations: [
        { text: 'API GW', kind: 'admitted' },
        { text: 'API 관문', kind: 'deprecated', lang: 'ko' },
      ],
      definition: 'The single entry point.',
      tags: ['network'],
      note: 'first',
    })
    expect(created.status).toBe(201)
    const term = created.json
    expect(term).toMatchObject({
      slug: 'api-gateway',
      name: 'API Gateway',
      nameKo: 'API 게이트웨이',
      status: 'active',
      revision: 1,
      tags: ['network'],
      mergedInto: null,
      oldSlugs: [],
      updatedBy: { id: user.id, name: 'Kim Editor' },
    })
    expect(term.notations).toEqual([
      { text: 'API GW', kind: 'admitted', lang: null },
      { text: 'API 관문', kind: 'deprecated', lang: 'ko' },
    ])
    expect(await queueRows(term.id)).toEqual([{ revision: 1, status: 'queued' }])

    const patched = await api('PATCH', `/terms/${term.slug}`, sessionHeaders, {
      baseRevision: 1,
      definition: 'The single entry point for API calls.\nIt routes them.',
      note: 'longer definition',
    })
    expect(patched.status).toBe(200)
    expect(patched.json.revision).toBe(2)
    // The queued row moved forward instead of a second queued row appearing.
    expect(await queueRows(term.id)).toEqual([{ revision: 2, status: 'queued' }])

    // Identical content: no new revision.
    const same = await api('PATCH', `/terms/${term.id}`, sessionHeaders, {
      baseRevision: 2,
      name: 'API Gateway',
    })
    expect(same.status).toBe(200)
    expect(same.json.revision).toBe(2)

    const revisions = await api('GET', `/terms/${term.id}/revisions`, sessionHeaders)
    expect(revisions.status).toBe(200)
    expect(revisions.json.items.map((r: Json) => [r.revision, r.note, r.author?.name])).toEqual([
      [2, 'longer definition', 'Kim Editor'],
      [1, 'first', 'Kim Editor'],
    ])

    const r1 = await api('GET', `/terms/${term.id}/revisions/1`, sessionHeaders)
    expect(r1.json.content.definition).toBe('The single entry point.')

    const diff = await api('GET', `/terms/${term.slug}/revisions/1/diff/2`, sessionHeaders)
    expect(diff.status).toBe(200)
    const definition = diff.json.fields.find((f: Json) => f.field === 'definition')
    expect(definition.changed).toBe(true)
    expect(definition.changes.filter((c: Json) => c.removed).map((c: Json) => c.value)).toEqual([
      'The single entry point.',
    ])
    expect(definition.changes.filter((c: Json) => c.added).map((c: Json) => c.value)).toEqual([
      'The single entry point for API calls.\nIt routes them.',
    ])
    expect(diff.json.fields.find((f: Json) => f.field === 'name').changed).toBe(false)
  })

  it('a stale baseRevision gives 409 revision_conflict and writes nothing', async () => {
    const { sessionHeaders } = await createUser({ role: 'editor' })
    const term = await createTerm({ name: 'Conflict Term' })
    const first = await api('PATCH', `/terms/${term.id}`, sessionHeaders, {
      baseRevision: 1,
      definition: 'A',
    })
    expect(first.status).toBe(200)
    const second = await api('PATCH', `/terms/${term.id}`, sessionHeaders, {
      baseRevision: 1,
      definition: 'B',
    })
    expect(second.status).toBe(409)
    expect(second.json.error.code).toBe('revision_conflict')
    expect(second.json.error.details.currentRevision).toBe(2)
    const now = await api('GET', `/terms/${term.id}`, sessionHeaders)
    expect(now.json.definition).toBe('A')
    expect(now.json.revision).toBe(2)
  })

  it('old slugs keep resolving after a rename, and a used address is refused', async () => {
    const { sessionHeaders } = await createUser({ role: 'editor' })
    const term = await createTerm({ name: 'Rename Me', slug: 'rename-me' })
    const renamed = await api('PATCH', `/terms/rename-me`, sessionHeaders, {
      baseRevision: 1,
      slug: 'renamed',
    })
    expect(renamed.status).toBe(200)
    expect(renamed.json.oldSlugs).toEqual(['rename-me'])
    for (const address of ['rename-me', 'renamed', term.id]) {
      const got = await api('GET', `/terms/${address}`, sessionHeaders)
      expect(got.status, address).toBe(200)
      expect(got.json.id).toBe(term.id)
    }
    const other = await createTerm({ name: 'Other' })
    const clash = await api('PATCH', `/terms/${other.id}`, sessionHeaders, {
      baseRevision: 1,
      slug: 'rename-me',
    })
    expect(clash.status).toBe(409)
    expect(clash.json.error.code).toBe('slug_taken')
    const clash2 = await api('POST', '/terms', sessionHeaders, { name: 'X', slug: 'renamed' })
    expect(clash2.json.error.code).toBe('slug_taken')
    expect((await api('GET', '/terms/no-such-term', sessionHeaders)).status).toBe(404)
  })

  it('checks input: unknown classification keys, notation rules, reserved slugs', async () => {
    const { sessionHeaders } = await createUser({ role: 'editor' })
    const bad = await api('POST', '/terms', sessionHeaders, {
      name: 'Bad',
      domains: ['nope'],
      notations: [
        { text: 'Bad', kind: 'deprecated' },
        { text: 'Dup', kind: 'admitted' },
        { text: 'Ｄｕｐ', kind: 'admitted' },
        // Differing only by letter case is no collision (docs/decisions/013-letter-case.md).
        { text: 'DUP', kind: 'deprecated' },
        { text: 'bad', kind: 'deprecated' },
      ],
    })
    expect(bad.status).toBe(400)
    const paths = bad.json.error.details.problems.map((p: Json) => p.path).sort()
    expect(paths).toEqual(['domains.0', 'notations.0.kind', 'notations.2.text'])
    const reserved = await api('POST', '/terms', sessionHeaders, { name: 'Suggest', slug: 'suggest' })
    expect(reserved.status).toBe(400)
    const noDefinition = await api('POST', '/terms', sessionHeaders, { name: 'Empty One' })
    expect(noDefinition.json.status).toBe('needs_completion')
  })

  it('access: viewers and read keys read; writes need an editor or a write key', async () => {
    const viewer = await createUser({ role: 'viewer' })
    const term = await createTerm({ name: 'Access Term' })
    expect((await api('GET', `/terms/${term.id}`, viewer.sessionHeaders)).status).toBe(200)
    expect((await api('POST', '/terms', viewer.sessionHeaders, { name: 'No' })).status).toBe(403)
    const readKey = await createApiKey(viewer.user.id, ['read'])
    expect((await api('GET', '/terms', readKey)).status).toBe(200)
    expect((await api('POST', '/terms', readKey, { name: 'No' })).status).toBe(403)
    const writeKey = await createApiKey(viewer.user.id, ['write'])
    expect((await api('POST', '/terms', writeKey, { name: 'Via Key' })).status).toBe(201)
    expect((await api('GET', '/terms', {})).status).toBe(401)
  })
})

describe('merge', () => {
  it('makes the source read-only, moves its addresses and names to the survivor, hides it from search', async () => {
    const { sessionHeaders } = await createUser({ role: 'editor' })
    const source = await createTerm({
      name: 'Old Widget',
      slug: 'old-widget',
      notations: [{ text: 'OW', kind: 'deprecated', lang: null }],
    })
    const target = await createTerm({ name: 'Widget', slug: 'widget' })
    const merged = await api('POST', '/terms/old-widget/merge', sessionHeaders, { into: 'widget' })
    expect(merged.status).toBe(200)
    expect(merged.json.merged).toMatchObject({
      status: 'merged',
      mergedInto: { id: target.id, slug: 'widget' },
    })
    expect(merged.json.into.oldSlugs).toEqual(['old-widget'])
    expect(merged.json.into.notations).toEqual([
      { text: 'Old Widget', kind: 'admitted', lang: null },
      { text: 'OW', kind: 'deprecated', lang: null },
    ])
    // The old slug is now an address of the survivor; the UUID still shows the merged term.
    expect((await api('GET', '/terms/old-widget', sessionHeaders)).json.id).toBe(target.id)
    expect((await api('GET', `/terms/${source.id}`, sessionHeaders)).json.status).toBe('merged')
    // Read-only.
    const edit = await api('PATCH', `/terms/${source.id}`, sessionHeaders, {
      baseRevision: 2,
      definition: 'x',
    })
    expect(edit.status).toBe(409)
    expect(edit.json.error.code).toBe('term_merged')
    // Not in search or lists by default; listed when asked for explicitly.
    const search = await api('GET', `/terms?q=${encodeURIComponent('old widget')}`, sessionHeaders)
    expect(search.json.items.map((i: Json) => i.id)).toEqual([target.id])
    const mergedList = await api('GET', '/terms?status=merged', sessionHeaders)
    expect(mergedList.json.items.map((i: Json) => i.id)).toContain(source.id)
    // Both queued.
    expect((await queueRows(source.id))[0]!.revision).toBe(2)
    expect((await queueRows(target.id))[0]!.revision).toBe(2)
  })
})

describe('delete', () => {
  it('admin session only (keys and editors refused); keeps a tombstone and frees the slug', async () => {
    const admin = await createUser({ role: 'admin' })
    const editor = await createUser({ role: 'editor' })
    const term = await createTerm({ name: 'Doomed', slug: 'doomed' })
    const key = await createApiKey(admin.user.id, ['read', 'write', 'validate'])
    expect((await api('DELETE', `/terms/${term.id}`, key)).status).toBe(403)
    expect((await api('DELETE', `/terms/${term.id}`, editor.sessionHeaders)).status).toBe(403)
    const noOrigin = { cookie: admin.sessionHeaders.cookie! }
    expect((await api('DELETE', `/terms/${term.id}`, noOrigin)).status).toBe(403)
    const res = await api('DELETE', `/terms/doomed`, { ...admin.sessionHeaders, origin: TEST_ORIGIN })
    expect(res.status).toBe(204)
    expect((await api('GET', `/terms/${term.id}`, admin.sessionHeaders)).status).toBe(404)
    const list = await api('GET', '/terms?q=doomed', admin.sessionHeaders)
    expect(list.json.total).toBe(0)
    const tombstones = await em().execute(
      `select entity_type, deleted_by_id from deletions where entity_id = ?`,
      [term.id],
    )
    expect(tombstones).toEqual([{ entity_type: 'term', deleted_by_id: admin.user.id }])
    const again = await api('POST', '/terms', editor.sessionHeaders, { name: 'Doomed', slug: 'doomed' })
    expect(again.status).toBe(201)
  })
})

describe('the queue row is written in the same transaction as the revision', () => {
  it('a failure after the revision insert leaves neither the revision nor the queue row', async () => {
    const { sessionHeaders } = await createUser({ role: 'editor' })
    const term = await createTerm({ name: 'Atomic' })
    // A real failure inside the save, after the revision insert: the queue insert raises.
    await em().execute(`create function fail_queue() returns trigger language plpgsql as $$
      begin raise exception 'queue unavailable'; end $$`)
    await em().execute(`create trigger fail_queue before insert or update on rag_index_queue
      for each row execute function fail_queue()`)
    try {
      const res = await api('PATCH', `/terms/${term.id}`, sessionHeaders, {
        baseRevision: 1,
        definition: 'changed',
      })
      expect(res.status).toBe(500)
      const created = await api('POST', '/terms', sessionHeaders, { name: 'Never Saved' })
      expect(created.status).toBe(500)
    } finally {
      await em().execute('drop trigger fail_queue on rag_index_queue')
      await em().execute('drop function fail_queue()')
    }
    const revisions = await em().execute<{ revision: number }[]>(
      'select revision from term_revisions where term_id = ? order by revision',
      [term.id],
    )
    expect(revisions).toEqual([{ revision: 1 }])
    expect(await queueRows(term.id)).toEqual([{ revision: 1, status: 'queued' }])
    expect((await em().execute(`select 1 from terms where name = 'Never Saved'`)).length).toBe(0)
    expect((await api('GET', `/terms/${term.id}`, sessionHeaders)).json.definition).not.toBe('changed')
  })
})

describe('list totals', () => {
  it('answers the same total on a full page, the last page and a page past the end', async () => {
    const { sessionHeaders } = await createUser({ role: 'viewer' })
    for (const name of ['Totalia One', 'Totalia Two', 'Totalia Three', 'Totalia Four', 'Totalia Five']) {
      await createTerm({ name })
    }
    const page = async (n: number) => {
      const res = await api('GET', `/terms?q=totalia&pageSize=2&page=${n}`, sessionHeaders)
      expect(res.status).toBe(200)
      return { names: res.json.items.map((i: Json) => i.name), total: res.json.total }
    }
    // A full page counts; the last, short page knows the total from its rows; past the end counts again.
    expect(await page(1)).toEqual({ names: ['Totalia Five', 'Totalia Four'], total: 5 })
    expect(await page(2)).toEqual({ names: ['Totalia One', 'Totalia Three'], total: 5 })
    expect(await page(3)).toEqual({ names: ['Totalia Two'], total: 5 })
    expect(await page(4)).toEqual({ names: [], total: 5 })

    // Without q the page is read in index order and the total counted apart: the same on every page.
    const [{ n }] = await em().execute<{ n: number }[]>(
      `select count(*)::int as n from terms where deleted_at is null and status <> 'merged'`,
    )
    for (const at of [1, Math.ceil(n / 2), Math.ceil(n / 2) + 1]) {
      const res = await api('GET', `/terms?pageSize=2&page=${at}`, sessionHeaders)
      expect(res.json.total, `page ${at}`).toBe(n)
    }
  })
})
