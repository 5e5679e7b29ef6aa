import { beforeAll, beforeEach, describe, expect, it } from 'vitest'
import type { RelationDto } from '#app/services/relations/read.server.ts'
import type { TermDto } from '#app/services/terms/read.server.ts'
import { em } from '#db/orm.ts'
import { createApiKey, createTerm, createUser, type TestUser } from '#tests/factories.ts'
import { useTestDb } from '#tests/setup/db.ts'
import { assertSafeHtml, call, editTermDefinition, errorCode, XSS_PAYLOADS } from './helpers.ts'

useTestDb()

let viewer: TestUser
let otherViewer: TestUser
let editor: TestUser
let otherEditor: TestUser
let admin: TestUser

beforeAll(async () => {
  viewer = await createUser({ role: 'viewer', name: 'Vera Viewer' })
  otherViewer = await createUser({ role: 'viewer' })
  editor = await createUser({ role: 'editor', name: 'Eddie Editor' })
  otherEditor = await createUser({ role: 'editor' })
  admin = await createUser({ role: 'admin' })
})

beforeEach(async () => {
  await em().execute('delete from relations')
})

function body(source: TermDto, target: TermDto, extra: Record<string, unknown> = {}) {
  return {
    sourceTermId: source.id,
    targetTermId: target.id,
    relationType: 'part_of',
    evidenceMd: 'Both appear in the **payment** spec.',
    sourceRevision: source.revision,
    targetRevision: target.revision,
    ...extra,
  }
}

async function propose(as: TestUser, payload: Record<string, unknown>): Promise<Response> {
  return call('/relations', { method: 'POST', headers: as.sessionHeaders, body: payload })
}

async function proposeOk(as: TestUser, payload: Record<string, unknown>): Promise<string> {
  const res = await propose(as, payload)
  expect(res.status, await res.clone().text()).toBe(201)
  return ((await res.json()) as { id: string }).id
}

async function read(
  id: string,
  headers: Record<string, string> = editor.sessionHeaders,
): Promise<RelationDto> {
  const res = await call(`/relations/${id}`, { headers })
  expect(res.status).toBe(200)
  return (await res.json()) as RelationDto
}

function patch(id: string, as: TestUser, payload: Record<string, unknown>): Promise<Response> {
  return call(`/relations/${id}`, { method: 'PATCH', headers: as.sessionHeaders, body: payload })
}

async function twoTerms(): Promise<[TermDto, TermDto]> {
  return [
    await createTerm({ definition: 'The source definition.' }),
    await createTerm({ definition: 'The target definition.' }),
  ]
}

describe('POST /relations', () => {
  it('lets any signed-in role propose; the relation is proposed and embeds both terms', async () => {
    const [a, b] = await twoTerms()
    const id = await proposeOk(viewer, body(a, b))
    const item = await read(id)
    expect(item).toMatchObject({
      id,
      sourceTermId: a.id,
      targetTermId: b.id,
      relationType: 'part_of',
      status: 'proposed',
      official: false,
      stale: false,
      sourceRevision: 1,
      targetRevision: 1,
      source: { id: a.id, slug: a.slug, name: a.name, revision: 1, definition: 'The source definition.' },
      target: { id: b.id, slug: b.slug, revision: 1, definition: 'The target definition.' },
      proposedBy: { id: viewer.user.id, name: 'Vera Viewer' },
      lastReviewedBy: null,
      lastEditedBy: null,
    })
    expect(typeof item.version).toBe('string')
    expect(item.version.length).toBeGreaterThan(0)
    expect(item.evidenceHtml).toContain('<strong>payment</strong>')
    for (const as of [editor, admin]) {
      const [c, d] = await twoTerms()
      expect((await propose(as, body(c, d))).status).toBe(201)
    }
  })

  it('refuses API keys (403) on every relation write, even with every scope, but lets read keys list', async () => {
    const [a, b] = await twoTerms()
    const key = await createApiKey(editor.user.id, ['read', 'write', 'validate'])
    const res = await call('/relations', { method: 'POST', headers: key, body: body(a, b) })
    expect(res.status).toBe(403)
    expect(await errorCode(res)).toBe('forbidden')
    const id = await proposeOk(editor, body(a, b))
    const { version } = await read(id)
    const patched = await call(`/relations/${id}`, {
      method: 'PATCH',
      headers: key,
      body: { action: 'approved', version },
    })
    expect(patched.status).toBe(403)
    const reversed = await call(`/relations/${id}/reverse`, {
      method: 'POST',
      headers: key,
      body: { version },
    })
    expect(reversed.status).toBe(403)
    expect((await read(id)).status).toBe('proposed')
    const readKey = await createApiKey(viewer.user.id, ['read'])
    const list = await call('/relations', { headers: readKey })
    expect(list.status).toBe(200)
    expect(((await list.json()) as { total: number }).total).toBe(1)
  })

  it('needs a session (401 without one)', async () => {
    const [a, b] = await twoTerms()
    expect((await call('/relations', { method: 'POST', body: body(a, b) })).status).toBe(401)
    expect((await call('/relations')).status).toBe(401)
  })

  it('accepts evidence of 1 and 4000 characters and refuses empty, blank and 4001', async () => {
    const terms = await Promise.all(Array.from({ length: 6 }, () => createTerm()))
    expect((await propose(editor, body(terms[0]!, terms[1]!, { evidenceMd: 'x' }))).status).toBe(201)
    expect(
      (await propose(editor, body(terms[0]!, terms[2]!, { evidenceMd: '가'.repeat(4000) }))).status,
    ).toBe(201)
    // 4000 characters outside the BMP are 8000 UTF-16 units: still 4000 characters.
    expect(
      (await propose(editor, body(terms[0]!, terms[3]!, { evidenceMd: '😀'.repeat(4000) }))).status,
    ).toBe(201)
    for (const evidenceMd of ['', '   \n', 'x'.repeat(4001), '😀'.repeat(4001)]) {
      const res = await propose(editor, body(terms[4]!, terms[5]!, { evidenceMd }))
      expect(res.status).toBe(400)
      expect(await errorCode(res)).toBe('validation_failed')
    }
    const missing = await propose(editor, { ...body(terms[4]!, terms[5]!), evidenceMd: undefined })
    expect(missing.status).toBe(400)
  })

  it('refuses a relation from a term to itself', async () => {
    const a = await createTerm()
    const res = await propose(editor, body(a, a))
    expect(res.status).toBe(400)
    const json = (await res.json()) as { error: { details: { problems: { path: string }[] } } }
    expect(json.error.details.problems.map((p) => p.path)).toContain('targetTermId')
  })

  it('answers 409 duplicate_relation for the same source, target and type, whatever its status', async () => {
    const [a, b] = await twoTerms()
    const id = await proposeOk(viewer, body(a, b))
    const again = await propose(otherViewer, body(a, b, { evidenceMd: 'other words' }))
    expect(again.status).toBe(409)
    const json = (await again.json()) as { error: { code: string; details: { existingId: string } } }
    expect(json.error.code).toBe('duplicate_relation')
    expect(json.error.details.existingId).toBe(id)
    // Another type, or the other direction, is a different relation.
    expect((await propose(viewer, body(a, b, { relationType: 'related_to' }))).status).toBe(201)
    expect((await propose(viewer, body(b, a))).status).toBe(201)
    // A rejected relation still occupies its place.
    const { version } = await read(id)
    expect((await patch(id, editor, { action: 'rejected', version })).status).toBe(200)
    expect((await propose(viewer, body(a, b))).status).toBe(409)
  })

  it('answers 404 for an unknown term and 400 for a revision the term does not have', async () => {
    const [a, b] = await twoTerms()
    const unknown = await propose(editor, body(a, b, { targetTermId: crypto.randomUUID() }))
    expect(unknown.status).toBe(404)
    const future = await propose(editor, body(a, b, { sourceRevision: 2 }))
    expect(future.status).toBe(400)
    expect(await errorCode(future)).toBe('validation_failed')
  })
})

describe('PATCH /relations/{id}', () => {
  it('lets editors and admins approve; the reviewer is recorded and the relation becomes official', async () => {
    for (const reviewer of [editor, admin]) {
      const [a, b] = await twoTerms()
      const id = await proposeOk(viewer, body(a, b))
      const { version } = await read(id)
      const res = await patch(id, reviewer, { action: 'approved', version })
      expect(res.status).toBe(200)
      expect(await res.json()).toEqual({ id })
      const item = await read(id)
      expect(item.status).toBe('approved')
      expect(item.official).toBe(true)
      expect(item.lastReviewedBy?.id).toBe(reviewer.user.id)
      expect(item.lastReviewedAt).not.toBeNull()
      expect(item.version).not.toBe(version)
    }
  })

  it('refuses approve and reject by a viewer (403), even the proposer', async () => {
    const [a, b] = await twoTerms()
    const id = await proposeOk(viewer, body(a, b))
    const { version } = await read(id)
    for (const action of ['approved', 'rejected']) {
      const res = await patch(id, viewer, { action, version })
      expect(res.status).toBe(403)
      expect(await errorCode(res)).toBe('forbidden')
    }
    expect((await read(id)).status).toBe('proposed')
  })

  it('races two approvals with the same version: exactly one 200 and one 409 operation_conflict', async () => {
    const [a, b] = await twoTerms()
    const id = await proposeOk(viewer, body(a, b))
    const { version } = await read(id)
    const responses = await Promise.all([
      patch(id, editor, { action: 'approved', version }),
      patch(id, otherEditor, { action: 'approved', version }),
    ])
    expect(responses.map((r) => r.status).sort()).toEqual([200, 409])
    const loser = responses.find((r) => r.status === 409)!
    expect(await errorCode(loser)).toBe('operation_conflict')
    expect((await read(id)).status).toBe('approved')
  })

  it('races an approval against a rejection: one wins, the other gets operation_conflict', async () => {
    const [a, b] = await twoTerms()
    const id = await proposeOk(viewer, body(a, b))
    const { version } = await read(id)
    const [approve, reject] = await Promise.all([
      patch(id, editor, { action: 'approved', version }),
      patch(id, otherEditor, { action: 'rejected', version }),
    ])
    expect([approve.status, reject.status].sort()).toEqual([200, 409])
    const winner = approve.status === 200 ? 'approved' : 'rejected'
    expect((await read(id)).status).toBe(winner)
    expect(await errorCode(approve.status === 409 ? approve : reject)).toBe('operation_conflict')
  })

  it('answers 409 operation_conflict for an old or made-up version and changes nothing', async () => {
    const [a, b] = await twoTerms()
    const id = await proposeOk(viewer, body(a, b))
    const first = await read(id)
    const edit = {
      action: 'edit',
      version: first.version,
      relationType: 'is_a',
      evidenceMd: 'better evidence',
      sourceRevision: 1,
      targetRevision: 1,
    }
    expect((await patch(id, editor, edit)).status).toBe(200)
    for (const version of [first.version, 'not-a-token', crypto.randomUUID()]) {
      const res = await patch(id, otherEditor, { action: 'approved', version })
      expect(res.status).toBe(409)
      expect(await errorCode(res)).toBe('operation_conflict')
    }
    expect((await read(id)).status).toBe('proposed')
  })

  it('refuses approval after a term changed (409 revision_conflict); the item is stale until edited', async () => {
    const [a, b] = await twoTerms()
    const id = await proposeOk(viewer, body(a, b))
    await editTermDefinition(b.id, 1, 'A newer target definition.', editor.user.id)
    const item = await read(id)
    expect(item.stale).toBe(true)
    expect(item.target.revision).toBe(2)
    expect(item.target.definition).toBe('A newer target definition.')
    const res = await patch(id, editor, { action: 'approved', version: item.version })
    expect(res.status).toBe(409)
    const json = (await res.json()) as { error: { code: string; details: Record<string, number> } }
    expect(json.error.code).toBe('revision_conflict')
    expect(json.error.details).toEqual({
      sourceRevision: 1,
      currentSourceRevision: 1,
      targetRevision: 1,
      currentTargetRevision: 2,
    })
    expect((await read(id)).status).toBe('proposed')
    // The stale filter finds it for the review queue.
    const stale = (await (
      await call('/relations?stale=true', { headers: editor.sessionHeaders })
    ).json()) as {
      items: RelationDto[]
    }
    expect(stale.items.map((i) => i.id)).toEqual([id])
    // Edit to the current revisions, then approve.
    const edited = await patch(id, editor, {
      action: 'edit',
      version: item.version,
      relationType: 'part_of',
      evidenceMd: 'Checked against the new definition.',
      sourceRevision: 1,
      targetRevision: 2,
    })
    expect(edited.status).toBe(200)
    const fresh = await read(id)
    expect(fresh.stale).toBe(false)
    expect(fresh.lastEditedBy?.id).toBe(editor.user.id)
    expect((await patch(id, otherEditor, { action: 'approved', version: fresh.version })).status).toBe(200)
  })

  it('races an approval against a term edit by another session: never approved against an old revision', async () => {
    for (let round = 0; round < 3; round++) {
      const [a, b] = await twoTerms()
      const id = await proposeOk(viewer, body(a, b))
      const { version } = await read(id)
      const [approve, termEdit] = await Promise.all([
        patch(id, editor, { action: 'approved', version }),
        call(`/terms/${b.id}`, {
          method: 'PATCH',
          headers: otherEditor.sessionHeaders,
          body: { baseRevision: 1, definition: `Changed in round ${round}.` },
        }),
      ])
      expect(termEdit.status).toBe(200)
      const item = await read(id)
      if (approve.status === 200) {
        // The approval committed first: it was judged on revision 1, which is now stale.
        expect(item).toMatchObject({ status: 'approved', stale: true, targetRevision: 1 })
      } else {
        expect(approve.status).toBe(409)
        expect(await errorCode(approve)).toBe('revision_conflict')
        expect(item).toMatchObject({ status: 'proposed', stale: true })
      }
    }
  })

  it('follows the state table: withdraw approval, rejected only leaves through edit', async () => {
    const [a, b] = await twoTerms()
    const id = await proposeOk(viewer, body(a, b))
    let { version } = await read(id)
    expect((await patch(id, editor, { action: 'approved', version })).status).toBe(200)
    ;({ version } = await read(id))
    // approved → approved is not a move.
    const again = await patch(id, editor, { action: 'approved', version })
    expect(again.status).toBe(409)
    expect(await errorCode(again)).toBe('conflict')
    // approved → rejected withdraws the approval.
    expect((await patch(id, editor, { action: 'rejected', version })).status).toBe(200)
    ;({ version } = await read(id))
    expect((await read(id)).official).toBe(false)
    for (const action of ['approved', 'rejected']) {
      const res = await patch(id, editor, { action, version })
      expect(res.status).toBe(409)
      expect(await errorCode(res)).toBe('conflict')
    }
    // edit brings it back to proposed, then it can be approved.
    const edit = {
      action: 'edit',
      version,
      relationType: 'used_in',
      evidenceMd: 'reconsidered',
      sourceRevision: 1,
      targetRevision: 1,
    }
    expect((await patch(id, editor, edit)).status).toBe(200)
    const item = await read(id)
    expect(item).toMatchObject({ status: 'proposed', relationType: 'used_in', evidenceMd: 'reconsidered' })
    expect((await patch(id, editor, { action: 'approved', version: item.version })).status).toBe(200)
    // edit of an approved relation returns it to proposed.
    const approved = await read(id)
    const reEdit = { ...edit, version: approved.version, evidenceMd: 'once more' }
    expect((await patch(id, admin, reEdit)).status).toBe(200)
    expect((await read(id)).status).toBe('proposed')
  })

  it('never changes the two terms on edit', async () => {
    const [a, b] = await twoTerms()
    const c = await createTerm()
    const id = await proposeOk(editor, body(a, b))
    const { version } = await read(id)
    const res = await patch(id, editor, {
      action: 'edit',
      version,
      relationType: 'part_of',
      evidenceMd: 'x',
      sourceRevision: 1,
      targetRevision: 1,
      targetTermId: c.id,
    })
    expect(res.status).toBe(400)
    expect((await read(id)).targetTermId).toBe(b.id)
  })

  it('refuses an edit that would duplicate another relation (409 duplicate_relation)', async () => {
    const [a, b] = await twoTerms()
    await proposeOk(editor, body(a, b, { relationType: 'is_a' }))
    const id = await proposeOk(editor, body(a, b, { relationType: 'part_of' }))
    const { version } = await read(id)
    const res = await patch(id, editor, {
      action: 'edit',
      version,
      relationType: 'is_a',
      evidenceMd: 'x',
      sourceRevision: 1,
      targetRevision: 1,
    })
    expect(res.status).toBe(409)
    expect(await errorCode(res)).toBe('duplicate_relation')
    expect((await read(id)).relationType).toBe('part_of')
  })

  it('lets the proposer edit their own proposal while it is proposed, and no one else below editor', async () => {
    const [a, b] = await twoTerms()
    const id = await proposeOk(viewer, body(a, b))
    let { version } = await read(id)
    const edit = (v: string, evidenceMd: string) => ({
      action: 'edit',
      version: v,
      relationType: 'part_of',
      evidenceMd,
      sourceRevision: 1,
      targetRevision: 1,
    })
    expect((await patch(id, otherViewer, edit(version, 'not mine'))).status).toBe(403)
    expect((await patch(id, viewer, edit(version, 'fixed a typo'))).status).toBe(200)
    ;({ version } = await read(id))
    expect((await read(id)).lastEditedBy?.id).toBe(viewer.user.id)
    expect((await patch(id, editor, { action: 'approved', version })).status).toBe(200)
    ;({ version } = await read(id))
    // Once approved, the proposer can no longer change it.
    expect((await patch(id, viewer, edit(version, 'sneaky'))).status).toBe(403)
    expect((await read(id)).status).toBe('approved')
  })

  it('answers 404 for an unknown relation', async () => {
    const res = await patch(crypto.randomUUID(), editor, { action: 'approved', version: crypto.randomUUID() })
    expect(res.status).toBe(404)
  })
})

describe('POST /relations/{id}/reverse (wrong direction)', () => {
  it('rejects the relation and proposes the reverse with the current revisions, in one step', async () => {
    const [a, b] = await twoTerms()
    await editTermDefinition(a.id, 1, 'Changed source.', editor.user.id)
    const id = await proposeOk(viewer, body(a, b, { relationType: 'is_a', sourceRevision: 1 }))
    const { version } = await read(id)
    const res = await call(`/relations/${id}/reverse`, {
      method: 'POST',
      headers: editor.sessionHeaders,
      body: { version },
    })
    expect(res.status).toBe(201)
    const { id: newId, rejectedId } = (await res.json()) as { id: string; rejectedId: string }
    expect(rejectedId).toBe(id)
    const old = await read(id)
    expect(old.status).toBe('rejected')
    expect(old.lastReviewedBy?.id).toBe(editor.user.id)
    const reversed = await read(newId)
    expect(reversed).toMatchObject({
      status: 'proposed',
      sourceTermId: b.id,
      targetTermId: a.id,
      relationType: 'is_a',
      evidenceMd: old.evidenceMd,
      sourceRevision: 1,
      targetRevision: 2,
      stale: false,
      reversedFromId: id,
      proposedBy: { id: editor.user.id },
    })
  })

  it('changes nothing when the reverse already exists (409 duplicate_relation)', async () => {
    const [a, b] = await twoTerms()
    await proposeOk(editor, body(b, a))
    const id = await proposeOk(viewer, body(a, b))
    const before = await read(id)
    const res = await call(`/relations/${id}/reverse`, {
      method: 'POST',
      headers: editor.sessionHeaders,
      body: { version: before.version },
    })
    expect(res.status).toBe(409)
    expect(await errorCode(res)).toBe('duplicate_relation')
    const after = await read(id)
    expect(after.status).toBe('proposed')
    expect(after.version).toBe(before.version)
  })

  it('checks the version and the role like PATCH', async () => {
    const [a, b] = await twoTerms()
    const id = await proposeOk(viewer, body(a, b))
    const res = await call(`/relations/${id}/reverse`, {
      method: 'POST',
      headers: editor.sessionHeaders,
      body: { version: crypto.randomUUID() },
    })
    expect(res.status).toBe(409)
    expect(await errorCode(res)).toBe('operation_conflict')
    const { version } = await read(id)
    const byOther = await call(`/relations/${id}/reverse`, {
      method: 'POST',
      headers: otherViewer.sessionHeaders,
      body: { version },
    })
    expect(byOther.status).toBe(403)
    // The proposer may turn their own proposal round.
    const byOwner = await call(`/relations/${id}/reverse`, {
      method: 'POST',
      headers: viewer.sessionHeaders,
      body: { version, evidenceMd: 'the other way round' },
    })
    expect(byOwner.status).toBe(201)
  })
})

describe('GET /relations', () => {
  it('pages by 20 with a total and filters by term, status and type', async () => {
    const hub = await createTerm()
    const others = await Promise.all(Array.from({ length: 23 }, () => createTerm()))
    const ids: string[] = []
    for (const [i, other] of others.entries()) {
      const type = i % 2 === 0 ? 'related_to' : 'used_in'
      ids.push(await proposeOk(editor, body(hub, other, { relationType: type })))
    }
    const [x, y] = await twoTerms()
    await proposeOk(editor, body(x, y))
    const { version } = await read(ids[0]!)
    expect((await patch(ids[0]!, editor, { action: 'approved', version })).status).toBe(200)

    const get = async (query: string) => {
      const res = await call(`/relations${query}`, { headers: viewer.sessionHeaders })
      expect(res.status).toBe(200)
      return (await res.json()) as { items: RelationDto[]; total: number; page: number }
    }
    const page1 = await get('')
    expect(page1.total).toBe(24)
    expect(page1.page).toBe(1)
    expect(page1.items).toHaveLength(20)
    const page2 = await get('?page=2')
    expect(page2.items).toHaveLength(4)
    expect(new Set([...page1.items, ...page2.items].map((i) => i.id)).size).toBe(24)

    const byTerm = await get(`?termId=${hub.id}`)
    expect(byTerm.total).toBe(23)
    const asTarget = await get(`?termId=${others[3]!.id}`)
    expect(asTarget.items.map((i) => i.id)).toEqual([ids[3]])
    expect((await get('?status=approved')).items.map((i) => i.id)).toEqual([ids[0]])
    expect((await get('?status=proposed')).total).toBe(23)
    expect((await get('?type=used_in')).total).toBe(11)
    expect((await get(`?type=related_to&status=proposed&termId=${hub.id}`)).total).toBe(11)
    expect((await get('?page=9')).items).toEqual([])
    expect((await get('?page=9')).total).toBe(24)
    for (const bad of ['?status=maybe', '?type=likes', '?termId=abc', '?page=0']) {
      expect((await call(`/relations${bad}`, { headers: viewer.sessionHeaders })).status).toBe(400)
    }
  })

  it('renders evidence to HTML without script, event handlers or javascript: URLs', async () => {
    const hub = await createTerm()
    for (const payload of XSS_PAYLOADS) {
      const other = await createTerm()
      const id = await proposeOk(viewer, body(hub, other, { evidenceMd: payload }))
      const item = await read(id)
      expect(item.evidenceMd).toBe(payload)
      assertSafeHtml(item.evidenceHtml)
    }
  })
})

describe('GET /relations/terms', () => {
  it('returns at most 20 candidates with id, revision and definition, and the total', async () => {
    for (let i = 0; i < 25; i++) await createTerm({ name: `Ledger ${String(i).padStart(2, '0')}` })
    const exact = await createTerm({ name: '원장', nameEn: 'Ledger', definition: '거래를 기록하는 장부.' })
    const res = await call('/relations/terms?q=ledger', { headers: viewer.sessionHeaders })
    expect(res.status).toBe(200)
    const json = (await res.json()) as {
      items: { id: string; revision: number; definition: string }[]
      total: number
    }
    expect(json.total).toBe(26)
    expect(json.items).toHaveLength(20)
    // The exact name comes first.
    expect(json.items[0]).toMatchObject({ id: exact.id, revision: 1, definition: '거래를 기록하는 장부.' })
    const korean = (await (
      await call(`/relations/terms?q=${encodeURIComponent('원장')}`, { headers: viewer.sessionHeaders })
    ).json()) as {
      items: { id: string }[]
      total: number
    }
    expect(korean.items.map((i) => i.id)).toEqual([exact.id])
    expect(korean.total).toBe(1)
    const key = await createApiKey(viewer.user.id, ['read'])
    expect((await call('/relations/terms?q=ledger', { headers: key })).status).toBe(200)
  })
})
