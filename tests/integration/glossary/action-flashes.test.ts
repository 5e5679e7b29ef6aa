import { beforeAll, describe, expect, it } from 'vitest'
import * as candidatesPage from '#app/routes/candidates.tsx'
import * as importPage from '#app/routes/import._index.tsx'
import * as meetingPage from '#app/routes/meetings.$id.tsx'
import * as termEditPage from '#app/routes/terms.$slug.edit.tsx'
import * as termPage from '#app/routes/terms.$slug._index.tsx'
import * as termsPage from '#app/routes/terms._index.tsx'
import * as newTermPage from '#app/routes/terms.new.tsx'
import { ListCandidatesQuerySchema } from '#app/schemas/candidates.ts'
import { CreateMeetingSchema } from '#app/schemas/meetings.ts'
import { gatherCandidates, listCandidates } from '#app/services/candidates/candidates.server.ts'
import { createMeeting } from '#app/services/meetings/meetings.server.ts'
import { createTerm, createUser, type TestUser } from '#tests/factories.ts'
import { pageText, usePageServer, type PageAnswer } from '#tests/page-server.ts'
import { useTestDb } from '#tests/setup/db.ts'

useTestDb()

/**
 * The confirmations of the glossary pages' actions (issue 27 item 9): every successful action answers with a
 * redirect whose flash message the next page shows once, in the reader's language, without JavaScript. The
 * term list and term page no longer read notices from the address (`?deleted=`, `?merged=`, `?saved=`).
 */

const pages = usePageServer({
  'routes/terms._index': { path: 'terms', module: termsPage },
  'routes/terms.new': { path: 'terms/new', module: newTermPage },
  'routes/terms.$slug._index': { path: 'terms/:slug', module: termPage },
  'routes/terms.$slug.edit': { path: 'terms/:slug/edit', module: termEditPage },
  'routes/candidates': { path: 'candidates', module: candidatesPage },
  'routes/import._index': { path: 'import', module: importPage },
  'routes/meetings.$id': { path: 'meetings/:id', module: meetingPage },
})

let admin: TestUser
let ko: Record<string, string>

beforeAll(async () => {
  admin = await createUser({ role: 'admin', name: 'Ada Admin' })
  ko = { ...admin.sessionHeaders, cookie: `${admin.sessionHeaders.cookie}; lang=ko` }
})

/** The session's cookie plus the cookies an answer sets, as a browser sends them on the next request. */
function withCookies(session: Record<string, string>, answer: PageAnswer): Record<string, string> {
  const set = answer.headers.getSetCookie().map((line) => line.split(';')[0])
  return { ...session, cookie: [session.cookie, ...set].join('; ') }
}

/** Follows an action's redirect as a browser without JavaScript does; answers the page and its flash text. */
async function follow(answer: PageAnswer, session = admin.sessionHeaders) {
  expect(answer.status, answer.html.slice(0, 500)).toBe(302)
  expect(answer.headers.getSetCookie().some((l) => l.startsWith('glossary_flash='))).toBe(true)
  const page = await pages.get(answer.location!, withCookies(session, answer))
  expect(page.status).toBe(200)
  const flash = /<div class="flash flash-(\w+)" role="\w+">([^<]*)<\/div>/.exec(page.html)
  return { page, kind: flash?.[1], flash: flash?.[2] }
}

describe('term actions', () => {
  it('creating a term says so on its page', async () => {
    const created = await pages.post(
      '/terms/new',
      { name: 'Flash Gordon', definition: 'A hero.', note: 'first' },
      admin.sessionHeaders,
    )
    expect(created.location).toBe('/terms/flash-gordon')
    const { kind, flash } = await follow(created)
    expect(kind).toBe('success')
    expect(flash).toBe('Created “Flash Gordon”. This is revision 1.')
  })

  it('saving an edit names the revision; a save that changes nothing says so', async () => {
    const term = await createTerm({ name: 'Edited Term', slug: 'edited-term' })
    const fields = {
      name: 'Edited Term',
      slug: 'edited-term',
      definition: 'A new definition.',
      baseRevision: `${term.revision}`,
    }
    const saved = await pages.post('/terms/edited-term/edit', fields, admin.sessionHeaders)
    expect(saved.location).toBe('/terms/edited-term')
    expect((await follow(saved)).flash).toBe('Saved “Edited Term”. This is revision 2.')

    const same = await pages.post('/terms/edited-term/edit', { ...fields, baseRevision: '2' }, ko)
    const { kind, flash } = await follow(same, ko)
    expect(kind).toBe('info')
    expect(flash).toBe(
      '바뀐 내용이 없어 새 판을 만들지 않았습니다. “Edited Term”은(는) 2번째 판 그대로입니다.',
    )
  })

  it('deleting a term names it on the term list (no ?deleted= in the address)', async () => {
    await createTerm({ name: 'Doomed Term', slug: 'doomed-term' })
    const deleted = await pages.post('/terms/doomed-term', { intent: 'delete' }, admin.sessionHeaders)
    expect(deleted.location).toBe('/terms')
    const { page, kind, flash } = await follow(deleted)
    expect(kind).toBe('success')
    expect(flash).toBe('The term “Doomed Term” was deleted.')
    expect(pageText(page.html)).not.toContain('Doomed Term Definition')
    // The old notice read from the address is gone: a crafted address shows nothing.
    const crafted = await pages.get('/terms?deleted=anything', admin.sessionHeaders)
    expect(pageText(crafted.html)).not.toContain('was deleted')
  })

  it('merging names both terms on the surviving term, in Korean too', async () => {
    await createTerm({ name: 'Ledger', slug: 'ledger' })
    await createTerm({ name: 'Journal', slug: 'journal' })
    const merged = await pages.post('/terms/journal', { intent: 'merge', into: 'ledger' }, ko)
    expect(merged.location).toBe('/terms/ledger')
    const { kind, flash } = await follow(merged, ko)
    expect(kind).toBe('success')
    expect(flash).toBe('“Journal”을(를) “Ledger”(으)로 병합했습니다. 이전 주소도 여기로 연결됩니다.')
    const crafted = await pages.get('/terms/ledger?merged=journal&saved=9', admin.sessionHeaders)
    expect(pageText(crafted.html)).not.toMatch(/was merged into this one|This is revision 9/)
  })
})

describe('candidate actions', () => {
  it('dismissing returns to the same list with a confirmation; promoting opens the editor with one', async () => {
    await gatherCandidates({
      texts: ['The GDPR and the GDPR. The SLO and the SLO.'],
      source: 'validate',
      known: new Set(),
    })
    const { items } = await listCandidates(ListCandidatesQuerySchema.parse({}))
    const gdpr = items.find((c) => c.text === 'GDPR')!
    const slo = items.find((c) => c.text === 'SLO')!

    const dismissed = await pages.post(
      '/candidates?status=open&q=G',
      { intent: 'dismiss', id: gdpr.id },
      admin.sessionHeaders,
    )
    expect(dismissed.location).toBe('/candidates?q=G&status=open')
    expect((await follow(dismissed)).flash).toBe('“GDPR” was dismissed and will not be gathered again.')

    const promoted = await pages.post(
      '/candidates',
      { intent: 'promote', id: slo.id, name: 'SLO' },
      admin.sessionHeaders,
    )
    expect(promoted.location).toBe('/terms/slo/edit')
    expect((await follow(promoted)).flash).toBe(
      'The term “SLO” was created from the candidate. Complete it here.',
    )
  })
})

/**
 * Applies an import without JavaScript: the action leads to the job's page marked `announce`, which refreshes
 * itself while the job runs; once it has finished, the page drops the mark and shows the flash.
 */
async function applyImport(content: string, session: Record<string, string>) {
  const started = await pages.post('/import', { content, format: 'csv', intent: 'apply' }, session)
  expect(started.status).toBe(302)
  expect(started.location).toMatch(/^\/import\?job=[0-9a-f-]{36}&announce=1$/)
  for (;;) {
    const page = await pages.get(started.location!, session)
    if (page.status === 200) {
      // still running: the page shows its progress and refreshes itself
      expect(page.html).toContain('data-status="running"')
      await new Promise((resolve) => setTimeout(resolve, 20))
      continue
    }
    expect(page.status).toBe(302)
    expect(page.location).toBe(started.location!.replace('&announce=1', ''))
    return page
  }
}

describe('import apply', () => {
  it('says how many rows were imported, with the plural rule', async () => {
    const one = await applyImport('slug,name\nflash-one,Flash One', admin.sessionHeaders)
    expect((await follow(one)).flash).toBe('Imported 1 row: 1 new, 0 updated, 0 unchanged.')

    const two = await applyImport('slug,name\nflash-one,Flash One\nflash-two,Flash Two', admin.sessionHeaders)
    const { page, kind, flash } = await follow(two)
    expect(kind).toBe('success')
    expect(flash).toBe('Imported 2 rows: 1 new, 0 updated, 1 unchanged.')
    // shown once: the job's page itself (a reload) has no flash
    expect(page.html).toContain('data-status="succeeded"')
    const again = await pages.get(two.location!, admin.sessionHeaders)
    expect(again.html).not.toContain('class="flash')

    const korean = await applyImport('slug,name\nflash-three,Flash Three', ko)
    expect((await follow(korean, ko)).flash).toBe('1행을 가져왔습니다: 새 용어 1, 수정 0, 변경 없음 0.')
  })

  it('a failed import shows no confirmation, only its failure', async () => {
    const failed = await applyImport(
      'slug,name,domains\nbad-row,Bad Row,no-such-domain',
      admin.sessionHeaders,
    )
    expect(failed.headers.getSetCookie().some((l) => l.startsWith('glossary_flash='))).toBe(false)
    const page = await pages.get(failed.location!, admin.sessionHeaders)
    expect(page.html).toContain('data-status="failed"')
    expect(page.html).not.toContain('class="flash')
  })
})

describe('meeting actions', () => {
  it('archiving a record says so', async () => {
    const meeting = await createMeeting({
      input: CreateMeetingSchema.parse({
        title: 'Weekly sync',
        meetingDate: '2024-03-05T10:00:00+09:00',
        content: 'We talked.',
      }),
      actorId: admin.user.id,
    })
    const archived = await pages.post(`/meetings/${meeting.id}`, {}, admin.sessionHeaders)
    expect(archived.location).toBe(`/meetings/${meeting.id}`)
    const { page, flash } = await follow(archived)
    expect(flash).toBe('The record “Weekly sync” was archived; search no longer finds it.')
    expect(pageText(page.html)).toContain('Archived records')
  })
})
