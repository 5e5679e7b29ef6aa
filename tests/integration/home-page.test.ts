import crypto from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { homeEn, homeKo } from '#app/lib/messages/home.ts'
import * as findRoute from '#app/routes/find.tsx'
import * as homePage from '#app/routes/_index.tsx'
import * as searchPage from '#app/routes/search.tsx'
import { gatherCandidates } from '#app/services/candidates/candidates.server.ts'
import { proposeRelation } from '#app/services/relations/write.server.ts'
import { getPasswordLoginEnabled } from '#app/services/settings/settings.server.ts'
import { createClassification, deleteClassification } from '#app/services/terms/classification.server.ts'
import { em } from '#db/orm.ts'
import { RETRY } from '#pipeline/flow.ts'
import { createTerm, createUser, type TestUser } from '#tests/factories.ts'
import { dispatch } from '#tests/http.ts'
import { drainIndexQueue } from '#tests/index-queue.ts'
import { elementWith, pageText, usePageServer } from '#tests/page-server.ts'
import { startStandIn, type StandIn } from '#tests/provider-stand-in.ts'
import { useTestDb } from '#tests/setup/db.ts'

useTestDb()

/**
 * The home page as a signed-in user's start (issue 27 item 3), over real HTTP: a visitor's way in; the first
 * steps of a fresh install for an administrator, gone once a term exists; what waits for each role, counted
 * from real rows; the terms changed last; and the search box, which without JavaScript is a GET form to
 * `/search`, where a search by meaning that is off falls back to names and notations and says so. `/find` is
 * what the box asks as you type.
 */

const pages = usePageServer({
  'routes/_index': { path: '', module: homePage },
  'routes/search': { path: 'search', module: searchPage },
  'routes/find': { path: 'find', module: findRoute },
})

let admin: TestUser
let editor: TestUser
let viewer: TestUser

/** The page's own content (the home section), without the site header and the hydration data. */
function homeOf(html: string): string {
  const start = html.indexOf('<section class="home">')
  expect(start, 'the home section').toBeGreaterThan(-1)
  return html.slice(start, html.indexOf('</main>', start))
}

/** The hrefs of the links inside `html`, in order. */
const hrefsOf = (html: string) =>
  [...html.matchAll(/<a [^>]*href="([^"]*)"/g)].map((m) => m[1]!.replace(/&amp;/g, '&'))

/**
 * What `/find` answers the home page's fetchers (its loader called as Remix calls it for a fetcher, with the
 * viewer's session), with a failure's status.
 */
async function find(query: string): Promise<Record<string, unknown>> {
  const request = new Request(`${pages.url()}/find?${query}`, {
    headers: { cookie: viewer.sessionHeaders.cookie! },
  })
  const answer = (await findRoute.loader({ request, params: {}, context: {} })) as object
  if ('type' in answer && answer.type === 'DataWithResponseInit') {
    const { data, init } = answer as unknown as { data: object; init: { status?: number } | null }
    return { ...data, status: init?.status ?? 200 }
  }
  return answer as Record<string, unknown>
}

/** The part of the page inside the element with this test id. */
const partOf = (html: string, testId: string) => elementWith(html, `data-testid="${testId}"`)

beforeAll(async () => {
  admin = await createUser({ role: 'admin' })
  editor = await createUser({ role: 'editor' })
  viewer = await createUser({ role: 'viewer' })
})

describe('a visitor', () => {
  it('sees what the glossary is and the way in, no search box', async () => {
    const res = await pages.get('/')
    expect(res.status).toBe(200)
    const home = homeOf(res.html)
    expect(home).toContain('<h1>Glossary</h1>')
    expect(pageText(home)).toContain(homeEn['home.visitor.what'])
    const links = hrefsOf(home)
    expect(links).toContain('/login')
    expect(links.includes('/register')).toBe(await getPasswordLoginEnabled())
    expect(home).not.toContain('name="q"')
    expect(pageText(home)).not.toContain(homeEn['home.recent.title'])
  })

  it('is sent to sign in by the search box’s addresses', async () => {
    expect((await pages.get('/find?q=x')).status).toBe(302)
    expect((await pages.get('/search?q=x')).status).toBe(302)
  })
})

describe('a fresh install (no terms yet)', () => {
  it('shows an administrator the first steps, with links to each place', async () => {
    const res = await pages.get('/', admin.sessionHeaders)
    expect(res.status).toBe(200)
    const steps = partOf(res.html, 'home-first-steps')
    expect(pageText(steps)).toContain(homeEn['home.first.title'])
    expect(hrefsOf(steps)).toEqual(
      expect.arrayContaining([
        '/admin/classification',
        '/import',
        '/api/v1/import/template.csv',
        '/terms/new',
        '/admin/sso',
        '/admin/users',
        '/admin/search-settings',
      ]),
    )
    // nothing is done yet: no domain, search by meaning off
    expect(steps).not.toContain('data-testid="step-done"')
    expect(pageText(partOf(res.html, 'home-recent-panel'))).toContain(homeEn['home.recent.empty'])
  })

  it('marks a step done once it is', async () => {
    await createClassification({
      kind: 'domain',
      input: { key: 'platform', nameEn: 'Platform', nameKo: '플랫폼', sort: 0 },
    })
    try {
      const steps = partOf((await pages.get('/', admin.sessionHeaders)).html, 'home-first-steps')
      expect(steps.match(/data-testid="step-done"/g)).toHaveLength(1)
    } finally {
      await deleteClassification({ kind: 'domain', key: 'platform', actorId: admin.user.id })
    }
  })

  it('shows the first steps to no one else', async () => {
    for (const user of [editor, viewer]) {
      const res = await pages.get('/', user.sessionHeaders)
      expect(res.status).toBe(200)
      expect(res.html).not.toContain('data-testid="home-first-steps"')
    }
  })
})

describe('once terms exist', () => {
  const names = ['Gateway Alpha', 'Gateway Beta', 'Ledger', 'Quota']
  const terms: Awaited<ReturnType<typeof createTerm>>[] = []

  beforeAll(async () => {
    for (const name of names) {
      terms.push(
        await createTerm({
          name,
          notations: name === 'Ledger' ? [{ text: 'LDG-7', kind: 'admitted', lang: 'en' }] : [],
        }),
      )
    }
    // changed 4, 3, 2 and 1 days ago: Quota last
    for (const [i, term] of terms.entries()) {
      await em().execute(`update terms set updated_at = now() - make_interval(days => ?) where id = ?`, [
        names.length - i,
        term.id,
      ])
    }
  })

  it('hides the first steps', async () => {
    const res = await pages.get('/', admin.sessionHeaders)
    expect(res.html).not.toContain('data-testid="home-first-steps"')
  })

  it('lists the terms changed last, newest first, each linked, with its status and when', async () => {
    const res = await pages.get('/', viewer.sessionHeaders)
    const recent = partOf(res.html, 'home-recent')
    expect(hrefsOf(recent)).toEqual([...terms].reverse().map((t) => `/terms/${t.slug}`))
    const text = pageText(recent)
    expect(text).toContain('Quota Active')
    expect(text).toContain('yesterday')
    expect(text).toContain('4 days ago')
    expect(recent).toContain(`dateTime="${terms[0]!.updatedAt.slice(0, 4)}`)
  })

  it('leaves out deleted and merged terms', async () => {
    const gone = await createTerm({ name: 'Gone Soon' })
    await em().execute(`update terms set deleted_at = now() where id = ?`, [gone.id])
    const merged = await createTerm({ name: 'Merged Away' })
    await em().execute(`update terms set status = 'merged', merged_into_id = ? where id = ?`, [
      terms[0]!.id,
      merged.id,
    ])
    const recent = pageText(partOf((await pages.get('/', viewer.sessionHeaders)).html, 'home-recent'))
    expect(recent).not.toContain('Gone Soon')
    expect(recent).not.toContain('Merged Away')
    expect(recent).toContain('Quota')
  })

  it('speaks Korean', async () => {
    const res = await pages.get('/', { cookie: `${viewer.sessionHeaders.cookie}; lang=ko` })
    const text = pageText(res.html)
    expect(text).toContain('용어 사전')
    expect(text).toContain(homeKo['home.find.label'])
    expect(text).toContain(homeKo['home.recent.title'])
    expect(text).toContain('어제')
  })
})

describe('what waits for each role', () => {
  beforeAll(async () => {
    const [a, b] = [await createTerm({ name: 'Source Term' }), await createTerm({ name: 'Target Term' })]
    await proposeRelation({
      input: {
        sourceTermId: a.id,
        targetTermId: b.id,
        relationType: 'related_to',
        evidenceMd: 'They are used together.',
        sourceRevision: 1,
        targetRevision: 1,
      },
      actor: { id: viewer.user.id, role: 'viewer' },
    })
    await gatherCandidates({
      texts: ['The ZORBX service talks to ZORBX daily; Frobnicate Engine and Frobnicate Engine too.'],
      source: 'validate',
      known: new Set(),
    })
  })

  it('an editor: relation proposals to review and term candidates, counted and linked', async () => {
    const res = await pages.get('/', editor.sessionHeaders)
    const queue = partOf(res.html, 'home-queue')
    expect(pageText(queue)).toContain('1 relation proposal to review')
    expect(pageText(queue)).toContain('2 term candidates found in checked texts and imports')
    expect(hrefsOf(queue)).toEqual(['/relations?status=proposed', '/candidates'])
    const todo = partOf(res.html, 'home-do')
    expect(hrefsOf(todo)).toEqual(
      expect.arrayContaining(['/terms/new', '/import', '/check', '/relations/new']),
    )
  })

  it('an administrator: also the sources that failed to enter the search index', async () => {
    const before = partOf((await pages.get('/', admin.sessionHeaders)).html, 'home-queue')
    expect(hrefsOf(before)).not.toContain('/admin/search-index')
    const sourceId = crypto.randomUUID()
    await em().execute(
      `insert into rag_index_queue (id, source_type, source_id, revision, action, status, attempts, error,
                                    finished_at, created_at, updated_at)
       values (gen_random_uuid(), 'term', ?, 1, 'index', 'failed', 3, 'provider down', now(), now(), now())`,
      [sourceId],
    )
    try {
      const queue = partOf((await pages.get('/', admin.sessionHeaders)).html, 'home-queue')
      expect(pageText(queue)).toContain('1 source failed to enter the search index')
      expect(hrefsOf(queue)).toContain('/admin/search-index')
      // an editor does not see the index
      const editorQueue = partOf((await pages.get('/', editor.sessionHeaders)).html, 'home-queue')
      expect(hrefsOf(editorQueue)).not.toContain('/admin/search-index')
    } finally {
      await em().execute('delete from rag_index_queue where source_id = ?', [sourceId])
    }
  })

  it('a viewer: no queue, but what a viewer can do', async () => {
    const res = await pages.get('/', viewer.sessionHeaders)
    expect(res.html).not.toContain('data-testid="home-queue"')
    const todo = partOf(res.html, 'home-do')
    expect(hrefsOf(todo)).toEqual(expect.arrayContaining(['/check', '/relations/new', '/terms']))
    expect(hrefsOf(todo)).not.toContain('/terms/new')
    expect(hrefsOf(todo)).not.toContain('/import')
    expect(pageText(todo)).toContain(homeEn['home.do.viewerNote'])
  })

  it('nothing waiting says so', async () => {
    await em().execute(`update relations set status = 'rejected'`)
    await em().execute(`update term_candidates set status = 'dismissed'`)
    const queue = partOf((await pages.get('/', editor.sessionHeaders)).html, 'home-queue')
    expect(pageText(queue)).toContain(homeEn['home.queue.nothing'])
    expect(hrefsOf(queue)).toEqual([])
  })
})

describe('finding a term from the home page', () => {
  let ledger: { slug: string }
  beforeAll(async () => {
    ledger = await createTerm({
      name: 'Settlement Ledger',
      notations: [{ text: 'STL-42', kind: 'admitted', lang: 'en' }],
    })
  })

  it('without JavaScript the box is a GET form to /search', async () => {
    const home = homeOf((await pages.get('/', viewer.sessionHeaders)).html)
    expect(home).toMatch(/<form method="get" action="\/search"[^>]*>/)
    expect(home).toMatch(/<input [^>]*name="q"/)
    expect(home).toMatch(/<label for="home-find-q">Find a term<\/label>/)
    expect(home).toContain('id="home-find-q"')
    expect(pageText(home)).toContain(homeEn['home.find.hint']) // search by meaning is off
  })

  it('/search finds a term by name while search by meaning is off, and says so', async () => {
    const res = await pages.get('/search?q=settlement', viewer.sessionHeaders)
    expect(res.status).toBe(200)
    const text = pageText(res.html)
    expect(text).toContain(homeEn['home.fallback.off'])
    expect(res.html).toContain('data-reason="off"')
    expect(res.html).not.toContain('data-code="rag_not_ready"')
    expect(text).toContain('1 term')
    expect(res.html).toContain(`href="/terms/${ledger.slug}"`)
    expect(text).toMatch(/Settlement Ledger Active/)
  })

  it('/search finds a term by notation, in any letter case', async () => {
    const res = await pages.get('/search?q=stl-4', viewer.sessionHeaders)
    expect(pageText(res.html)).toContain(homeEn['home.fallback.off'])
    expect(pageText(res.html)).toMatch(/Settlement Ledger STL-42 Active/) // the notation that matched
    expect(res.html).toContain(`href="/terms/${ledger.slug}"`)
    const none = await pages.get('/search?q=nothing-like-this', viewer.sessionHeaders)
    expect(pageText(none.html)).toContain(homeEn['home.fallback.off'])
    expect(pageText(none.html)).toContain('0 terms')
    expect(none.html).not.toContain('data-testid="search-result"')
  })

  it('/search links to the term list when more terms match than it shows', async () => {
    for (let i = 0; i < 21; i++) await createTerm({ name: `Manyterm ${String(i).padStart(2, '0')}` })
    const res = await pages.get('/search?q=manyterm', viewer.sessionHeaders)
    expect(res.html.match(/data-testid="search-result"/g)).toHaveLength(20)
    expect(pageText(res.html)).toContain('All 21 matches on the term list')
    expect(res.html).toContain('href="/terms?q=manyterm"')
  })

  it('/find answers the matches as you type: by name, by notation with the notation that matched', async () => {
    expect(await find('q=settle')).toMatchObject({
      ok: true,
      total: 1,
      items: [{ slug: ledger.slug, name: 'Settlement Ledger', status: 'active', notation: null }],
    })
    expect(await find('q=STL')).toMatchObject({ items: [{ slug: ledger.slug, notation: 'STL-42' }] })
    expect(await find('q=%20')).toMatchObject({ ok: true, items: [], total: 0 })
    // by meaning while it is off: the reason as data (status 200), not an error page
    expect(await find('q=settle&by=meaning')).toMatchObject({ status: 200, ok: false, code: 'rag_not_ready' })
  })
})

describe('when search by meaning is on', () => {
  let provider: StandIn
  let reef: { slug: string }
  beforeAll(async () => {
    provider = await startStandIn()
    RETRY.backoffMs = 5
    reef = await createTerm({ name: 'Coral Reef', definition: 'A ridge of coral where fish shelter.' })
    const res = await dispatch('/admin/rag-config', {
      method: 'PATCH',
      headers: admin.sessionHeaders,
      body: { enabled: true, embeddingBaseUrl: provider.url, embeddingModel: 'text-embed-small' },
    })
    expect(res.status, await res.clone().text()).toBe(200)
    await drainIndexQueue()
  })
  afterAll(async () => {
    RETRY.backoffMs = 5_000
    await provider.close()
  })

  it('the box says it searches by meaning too, and /find answers by meaning', async () => {
    const home = homeOf((await pages.get('/', viewer.sessionHeaders)).html)
    expect(pageText(home)).toContain(homeEn['home.find.hintMeaning'])
    provider.requests.length = 0
    const answer = await find('q=fish%20shelter&by=meaning')
    expect(answer).toMatchObject({ ok: true })
    expect((answer.items as { slug: string }[]).map((i) => i.slug)).toContain(reef.slug)
    expect(provider.requests.length).toBeGreaterThan(0)
    // by name never asks the provider
    provider.requests.length = 0
    expect(await find('q=coral')).toMatchObject({ items: [{ slug: reef.slug }] })
    expect(provider.requests).toHaveLength(0)
  })

  it('/search searches by meaning, as before, without the name search sentence', async () => {
    const res = await pages.get('/search?q=fish%20shelter', viewer.sessionHeaders)
    expect(res.status).toBe(200)
    expect(res.html).not.toContain('data-testid="search-fallback"')
    expect(res.html).toContain(`href="/terms/${reef.slug}"`)
    expect(pageText(res.html)).not.toContain(homeEn['home.fallback.off'])
  })

  it('a provider that fails leaves the name matches and says so as data', async () => {
    provider.failNext(500, 5)
    expect(await find('q=fish&by=meaning')).toMatchObject({
      ok: false,
      code: 'rag_provider_error',
      status: 200,
    })
  })
})
