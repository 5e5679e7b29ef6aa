import { beforeAll, describe, expect, it } from 'vitest'
import * as termHistoryPage from '#app/routes/terms.$slug.history.tsx'
import * as termPage from '#app/routes/terms.$slug._index.tsx'
import * as wikiHistoryPage from '#app/routes/wiki.$slug.history.tsx'
import { CreateWikiPageSchema, UpdateWikiPageSchema } from '#app/schemas/wiki.ts'
import { UpdateTermSchema } from '#app/schemas/terms.ts'
import { updateTerm } from '#app/services/terms/write.server.ts'
import { createWikiPage, updateWikiPage } from '#app/services/wiki/write.server.ts'
import { createTerm, createUser, type TestUser } from '#tests/factories.ts'
import { pageText, usePageServer } from '#tests/page-server.ts'
import { useTestDb } from '#tests/setup/db.ts'

useTestDb()

/**
 * One history control for terms and wiki pages (issue 27 item 11): the same columns, the same way to pick two
 * revisions (a GET form of "from"/"to" radios and a Compare button, no JavaScript needed), the same diff
 * heading, and the revision count with the plural rule.
 */

const pages = usePageServer({
  'routes/terms.$slug._index': { path: 'terms/:slug', module: termPage },
  'routes/terms.$slug.history': { path: 'terms/:slug/history', module: termHistoryPage },
  'routes/wiki.$slug.history': { path: 'wiki/:slug/history', module: wikiHistoryPage },
})

let admin: TestUser
let ko: Record<string, string>

beforeAll(async () => {
  admin = await createUser({ role: 'admin', name: 'Ada Admin' })
  ko = { ...admin.sessionHeaders, cookie: `${admin.sessionHeaders.cookie}; lang=ko` }
  const term = await createTerm({ name: 'Gateway', slug: 'gateway', note: 'first', actorId: admin.user.id })
  await updateTerm({
    idOrSlug: term.id,
    actorId: admin.user.id,
    input: UpdateTermSchema.parse({ baseRevision: 1, definition: 'Changed.', note: 'clarify' }),
  })
  await createTerm({ name: 'Lonely', slug: 'lonely' })
  const actor = { id: admin.user.id, name: admin.user.name }
  await createWikiPage({
    input: CreateWikiPageSchema.parse({ title: 'Runbook', slug: 'runbook', content: 'one\n' }),
    actor,
  })
  await updateWikiPage({
    slug: 'runbook',
    input: UpdateWikiPageSchema.parse({ content: 'one\ntwo\n', status: 'published' }),
    actor,
  })
})

/** The column headers of the page's revision list. */
function columnsOf(html: string): string[] {
  const table = /<table[^>]*class="stack-on-phone revision-list"[\s\S]*?<\/thead>/.exec(html)?.[0] ?? ''
  return [...table.matchAll(/<th[^>]*>([^<]*)<\/th>/g)].map((m) => m[1]!)
}

describe('the history control', () => {
  it('term and wiki history have the same columns, pickers and button', async () => {
    const term = await pages.get('/terms/gateway/history', admin.sessionHeaders)
    const wiki = await pages.get('/wiki/runbook/history', admin.sessionHeaders)
    for (const page of [term, wiki]) {
      expect(page.status).toBe(200)
      expect(columnsOf(page.html)).toEqual(['From', 'To', 'Revision', 'When', 'By', 'Summary'])
      // revision 2 is "to", revision 1 "from" by default; each row's cells carry their column's label
      expect(page.html).toMatch(/<input type="radio" name="to" aria-label="Compare to revision 2" checked=""/)
      expect(page.html).toMatch(
        /<input type="radio" name="from" aria-label="Compare from revision 1" checked=""/,
      )
      expect(page.html).toMatch(/<td role="cell" data-label="By">Ada Admin<\/td>/)
      expect(pageText(page.html)).toContain(' Compare ')
    }
    expect(term.html).toMatch(/<form method="get" action="\/terms\/gateway\/history"/)
    expect(wiki.html).toMatch(/<form method="get" action="\/wiki\/runbook\/history"/)
    expect(pageText(term.html)).toContain('History of “Gateway”')
    expect(pageText(wiki.html)).toContain('History of “Runbook”')
    expect(pageText(term.html)).toContain('clarify')
    expect(pageText(wiki.html)).toMatch(/Runbook published/)
  })

  it('shows the same diff heading for both, with statuses in words', async () => {
    const term = pageText((await pages.get('/terms/gateway/history?from=1&to=2', admin.sessionHeaders)).html)
    const wiki = pageText((await pages.get('/wiki/runbook/history?from=1&to=2', ko)).html)
    expect(term).toContain('Revision 1 → 2')
    expect(term).toContain('Definition')
    expect(wiki).toContain('1번째 판 → 2번째 판')
    expect(wiki).toContain('상태')
    expect(wiki).toContain('초안 → 게시됨')
    expect(wiki).toContain('+ two')
  })

  it('counts revisions with the plural rule on the term page', async () => {
    expect(pageText((await pages.get('/terms/gateway', admin.sessionHeaders)).html)).toContain(
      'Full history (2 revisions): compare any two',
    )
    expect(pageText((await pages.get('/terms/lonely', admin.sessionHeaders)).html)).toContain(
      'Full history (1 revision): compare any two',
    )
    expect(pageText((await pages.get('/terms/gateway', ko)).html)).toContain('전체 이력 (판 2개)')
  })

  it('a citation of an older revision (?revision=N, the chat\u2019s term links) says the term changed and links the changes', async () => {
    const cited = await pages.get('/terms/gateway?revision=1', admin.sessionHeaders)
    expect(pageText(cited.html)).toContain(
      'You followed a citation of revision 1. The term has changed since: this page shows revision 2.',
    )
    expect(cited.html).toContain('href="/terms/gateway/history?from=1&amp;to=2"')
    expect(pageText((await pages.get('/terms/gateway?revision=1', ko)).html)).toContain(
      '1번째 판을 인용한 링크로 들어왔습니다.',
    )
    // The current revision, a revision the term does not have yet, or a malformed one: no notice.
    for (const revision of ['2', '3', 'x', '0', '-1']) {
      const page = await pages.get(`/terms/gateway?revision=${revision}`, admin.sessionHeaders)
      expect(page.status).toBe(200)
      expect(page.html).not.toContain('data-testid="cited-revision"')
    }
  })
})
