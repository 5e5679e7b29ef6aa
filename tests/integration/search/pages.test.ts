import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { fill } from '#app/lib/i18n.ts'
import { homeEn } from '#app/lib/messages/home.ts'
import { searchEn } from '#app/lib/messages/search.ts'
import * as searchIndexPage from '#app/routes/admin.search-index.tsx'
import * as searchSettingsPage from '#app/routes/admin.search-settings.tsx'
import * as meetingPage from '#app/routes/meetings.$id.tsx'
import * as searchPage from '#app/routes/search.tsx'
import * as wikiPage from '#app/routes/wiki.$slug._index.tsx'
import { em } from '#db/orm.ts'
import { RETRY } from '#pipeline/flow.ts'
import { RUNNER, runReindexStep } from '#pipeline/reindex-runner.ts'
import { createTerm, createUser, type TestUser } from '#tests/factories.ts'
import { dispatch } from '#tests/http.ts'
import { drainIndexQueue, TEST_HOLDER } from '#tests/index-queue.ts'
import { usePageServer } from '#tests/page-server.ts'
import { startStandIn, type StandIn } from '#tests/provider-stand-in.ts'
import { useTestDb } from '#tests/setup/db.ts'

useTestDb()

const RUNNER_BATCH = RUNNER.sourcesPerBatch

/**
 * The pages of search by meaning over real HTTP (the app's Express stack and Remix handler, tests/page-server):
 * who may open them, the settings form (save, validation, write-only secrets, the model list, the connection
 * test, an unreadable secret), the index status page (counts, failed rows and their retry, reindex and its
 * progress) and the search page (results with marked words and source links, in-page problems).
 */

const pages = usePageServer({
  'routes/search': { path: 'search', module: searchPage },
  'routes/admin.search-settings': { path: 'admin/search-settings', module: searchSettingsPage },
  'routes/admin.search-index': { path: 'admin/search-index', module: searchIndexPage },
  'routes/wiki.$slug._index': { path: 'wiki/:slug', module: wikiPage },
  'routes/meetings.$id': { path: 'meetings/:id', module: meetingPage },
})

let admin: TestUser
let viewer: TestUser
let provider: StandIn
const KEY = 'sk-page-KEY-7f3a'
const HEADER_VALUE = 'tenant-SECRET-91'

type Fields = Record<string, string>

/** The settings form as a browser without JavaScript sends it: the stored settings plus `overrides`. */
function settingsForm(overrides: Fields = {}): Fields {
  return {
    intent: 'save',
    enabled: 'on',
    embeddingProvider: 'alpha_compatible',
    embeddingBaseUrl: provider.url,
    embeddingModel: 'text-embed-small',
    embeddingApiKey: '',
    rerankerProvider: 'gamma_compatible',
    rerankerBaseUrl: '',
    rerankerModel: '',
    rerankerApiKey: '',
    chunkSize: '400',
    chunkOverlap: '50',
    topK: '10',
    ...overrides,
  }
}

const saveSettings = (fields: Fields) => pages.post('/admin/search-settings', fields, admin.sessionHeaders)

/** A save as a browser without JavaScript makes it: the redirect followed, with the flash cookie it set. */
async function savedPage(fields: Fields) {
  const res = await saveSettings(fields)
  expect(res.status, textOf(res.html)).toBe(302)
  expect(res.location).toBe('/admin/search-settings')
  const flash = res.headers
    .getSetCookie()
    .map((line) => line.split(';')[0])
    .join('; ')
  return pages.get(res.location!, { cookie: `${admin.sessionHeaders.cookie}; ${flash}` })
}

/** The text of the page without tags, whitespace folded (what a reader sees). */
const textOf = (html: string) =>
  html
    .replace(/<script[\s\S]*?<\/script>/g, '')
    .replace(/<[^>]+>/g, ' ')
    .replace(/&amp;/g, '&')
    .replace(/&#x27;/g, "'")
    .replace(/&quot;/g, '"')
    .replace(/\s+/g, ' ')

/** The page's HTML without its hydration data (which carries the same values again as JSON). */
const bodyOf = (html: string) => html.replace(/<script[\s\S]*?<\/script>/g, '')

async function storedConfig() {
  const [row] = await em().execute<
    { embedding_api_key: string | null; embedding_headers: unknown; enabled: boolean }[]
  >('select embedding_api_key, embedding_headers, enabled from rag_config')
  return row!
}

beforeAll(async () => {
  admin = await createUser({ role: 'admin' })
  viewer = await createUser({ role: 'viewer' })
  provider = await startStandIn()
  RETRY.backoffMs = 5
})
afterAll(async () => {
  RETRY.backoffMs = 5_000
  await provider.close()
})
beforeEach(() => {
  provider.requests.length = 0
})

describe('who may open the pages', () => {
  it('search: every signed-in user; no session → the login page', async () => {
    const anonymous = await pages.get('/search?q=x')
    expect(anonymous.status).toBe(302)
    expect(anonymous.location).toBe('/login?redirectTo=%2Fsearch%3Fq%3Dx')
    const res = await pages.get('/search', viewer.sessionHeaders)
    expect(res.status).toBe(200)
    expect(textOf(res.html)).toContain(searchEn['search.title'])
    expect(res.html).toContain('href="/search"') // the site navigation links to it
    expect(res.html).not.toContain('href="/admin/search-settings"') // not for a viewer
  })

  it('the admin pages: no session → login, a viewer → 403, an admin → the page with its navigation links', async () => {
    for (const path of ['/admin/search-settings', '/admin/search-index']) {
      const anonymous = await pages.get(path)
      expect(anonymous.status).toBe(302)
      expect(anonymous.location).toBe(`/login?redirectTo=${encodeURIComponent(path)}`)
      const refused = await pages.get(path, viewer.sessionHeaders)
      expect(refused.status).toBe(403)
      expect(textOf(refused.html)).toContain('This page needs the Admin role. Your role is Viewer.')
      const res = await pages.get(path, admin.sessionHeaders)
      expect(res.status).toBe(200)
      expect(res.html).toContain('href="/admin/search-settings"')
      expect(res.html).toContain('href="/admin/search-index"')
    }
  })

  it('the admin forms refuse a viewer, a visitor and a foreign origin', async () => {
    const before = await storedConfig()
    for (const path of ['/admin/search-settings', '/admin/search-index']) {
      const fields = path.endsWith('index') ? { intent: 'reindex' } : settingsForm()
      expect((await pages.post(path, fields, viewer.sessionHeaders)).status).toBe(403)
      expect((await pages.post(path, fields)).status).toBe(302)
      const foreign = await pages.post(path, fields, {
        ...admin.sessionHeaders,
        origin: 'https://evil.example',
      })
      expect(foreign.status).toBe(403)
    }
    expect(await storedConfig()).toEqual(before)
    const [{ n }] = await em().execute<{ n: string }[]>('select count(*) as n from rag_index_queue')
    expect(Number(n)).toBe(0)
  })
})

describe('/admin/search-settings', () => {
  it('saves every field; the key and header values are stored encrypted and never appear in a page', async () => {
    const res = await savedPage(
      settingsForm({
        embeddingApiKey: KEY,
        'embeddingHeaders.0.name': 'X-Tenant',
        'embeddingHeaders.0.value': HEADER_VALUE,
        rerankerEnabled: 'on',
        rerankerBaseUrl: provider.url,
        rerankerModel: 'bge-reranker-v2',
        topK: '7',
      }),
    )
    expect(res.status, textOf(res.html)).toBe(200)
    expect(res.html).toMatch(/class="flash flash-success" role="status">Search settings saved\./)
    const stored = await storedConfig()
    expect(stored.embedding_api_key).toMatch(/^v1:/)
    expect(JSON.stringify(stored)).not.toContain(KEY)
    expect(JSON.stringify(stored)).not.toContain(HEADER_VALUE)
    const read = await (await dispatch('/admin/rag-config', { headers: admin.sessionHeaders })).json()
    expect(read).toMatchObject({
      enabled: true,
      chatEnabled: false, // its box was not ticked
      embeddingBaseUrl: provider.url,
      embeddingModel: 'text-embed-small',
      hasApiKey: true,
      embeddingCustomHeaders: [{ name: 'X-Tenant', configured: true }],
      rerankerEnabled: true,
      rerankerModel: 'bge-reranker-v2',
      topK: 7,
    })
    const page = await pages.get('/admin/search-settings', admin.sessionHeaders)
    for (const html of [res.html, page.html]) {
      expect(html).not.toContain(KEY)
      expect(html).not.toContain(HEADER_VALUE)
    }
    expect(page.html).toMatch(/data-testid="embedding-key-state"[^>]*>configured</)
    expect(page.html).toMatch(/data-testid="reranker-key-state"[^>]*>not configured</)
    expect(page.html).toContain('<code>X-Tenant</code>')
    // the chat's switch (issue 29), linking to the AI provider page where its model is set
    expect(page.html).toMatch(/<input type="checkbox" name="chatEnabled"(?![^>]*checked)/)
    expect(page.html).toContain('href="/admin/ai-provider"')
    // (the stored header row goes along, as the page sends it: a missing row would delete the header)
    const storedHeader = { 'embeddingHeaders.0.name': 'X-Tenant', 'embeddingHeaders.0.stored': '1' }
    const chatOn = await savedPage(settingsForm({ chatEnabled: 'on', ...storedHeader }))
    expect(chatOn.html).toMatch(/<input type="checkbox" name="chatEnabled"[^>]*checked/)
    expect(
      (
        (await (await dispatch('/admin/rag-config', { headers: admin.sessionHeaders })).json()) as {
          chatEnabled: boolean
        }
      ).chatEnabled,
    ).toBe(true)
    expect((await saveSettings(settingsForm(storedHeader))).status).toBe(302)
  })

  it('an empty key and header value keep the stored ones; "remove" deletes the key; a removed row deletes the header', async () => {
    const stored = await storedConfig()
    const keep = settingsForm({
      'embeddingHeaders.0.name': 'X-Tenant',
      'embeddingHeaders.0.stored': '1',
      'embeddingHeaders.0.value': '',
      'embeddingHeaders.1.name': '',
      'embeddingHeaders.1.value': '',
    })
    expect((await saveSettings(keep)).status).toBe(302)
    expect(await storedConfig()).toMatchObject({
      embedding_api_key: stored.embedding_api_key,
      embedding_headers: stored.embedding_headers,
    })
    const removed = await savedPage({
      ...keep,
      embeddingApiKeyRemove: 'on',
      'embeddingHeaders.0.remove': 'on',
    })
    expect(removed.status).toBe(200)
    expect(await storedConfig()).toMatchObject({ embedding_api_key: null, embedding_headers: [] })
    expect(removed.html).toMatch(/data-testid="embedding-key-state"[^>]*>not configured</)
    // put the key back for the tests below
    expect((await saveSettings(settingsForm({ embeddingApiKey: KEY }))).status).toBe(302)
  })

  it('shows each validation problem at its field, keeps the submitted values and never echoes a typed secret', async () => {
    const before = await storedConfig()
    const res = await saveSettings(
      settingsForm({
        embeddingBaseUrl: 'ftp://models.example',
        embeddingApiKey: 'typed-KEY-never-shown',
        chunkSize: '100',
        'embeddingHeaders.0.name': 'Bad Header',
        'embeddingHeaders.0.value': 'typed-VALUE-never-shown',
      }),
    )
    expect(res.status).toBe(400)
    const body = bodyOf(res.html)
    expect(body).toMatch(
      /id="field-embeddingBaseUrl-error"[^>]*>Enter a web address starting with http:\/\/ or https:\/\/\./,
    )
    expect(body).toMatch(/id="field-chunkSize-error"/)
    expect(textOf(body)).toContain('Use only letters, digits and - _ . in a header name.')
    expect(body).toContain('value="ftp://models.example"')
    expect(body).toContain('value="Bad Header"')
    expect(res.html).not.toContain('typed-KEY-never-shown')
    expect(res.html).not.toContain('typed-VALUE-never-shown')
    expect(textOf(body)).toContain(searchEn['searchSettings.retypeSecrets'])
    // the refusal is shown at the Save button, and a browser without JavaScript opens the answer there
    expect(body).toMatch(
      /<div class="settings-action" id="save-settings">[\s\S]*?role="alert"[\s\S]*?value="save"/,
    )
    expect(body).toContain('action="/admin/search-settings#save-settings"')
    // the service's own rules come back the same way (formAction)
    const overlap = await saveSettings(settingsForm({ chunkSize: '400', chunkOverlap: '400' }))
    expect(overlap.status).toBe(400)
    expect(bodyOf(overlap.html)).toMatch(
      /id="field-chunkOverlap-error"[^>]*>Make the overlap smaller than the chunk size \(400\)/,
    )
    const newHeader = await saveSettings(settingsForm({ 'embeddingHeaders.0.name': 'X-New' }))
    expect(newHeader.status).toBe(400)
    expect(textOf(newHeader.html)).toContain('Enter a value for the new header “X-New”.')
    expect(await storedConfig()).toEqual(before)
  })

  it('"load models" lists the provider’s embedding models in a select without saving anything', async () => {
    const before = await storedConfig()
    const res = await saveSettings(
      settingsForm({ intent: 'models-embedding', embeddingModel: 'typed-model', chunkSize: '999' }),
    )
    expect(res.status, textOf(res.html)).toBe(200)
    const body = bodyOf(res.html)
    const select = /<select id="embedding-model" name="embeddingModel">([\s\S]*?)<\/select>/.exec(body)?.[1]
    expect(select).toBeDefined()
    expect([...select!.matchAll(/<option value="([^"]*)"/g)].map((m) => m[1])).toEqual([
      'text-embed-large',
      'text-embed-small',
      '',
    ])
    // a model the list does not hold stays in the free-text field; the other typed values stay too
    expect(body).toMatch(/name="embeddingModelOther"[^>]*value="typed-model"/)
    expect(body).toContain('value="999"')
    expect(provider.requests.map((r) => `${r.method} ${r.path}`)).toEqual(['GET /v1/models'])
    expect(await storedConfig()).toEqual(before)
    const reranker = await saveSettings(
      settingsForm({
        intent: 'models-reranker',
        rerankerBaseUrl: provider.url,
        embeddingKnownModel: 'text-embed-small',
      }),
    )
    const rerankerBody = bodyOf(reranker.html)
    expect(rerankerBody).toMatch(/<select id="reranker-model"[^>]*>[\s\S]*bge-reranker-v2/)
    // the embedding list loaded before is still offered
    expect(rerankerBody).toMatch(/<select id="embedding-model"/)
    const bad = await saveSettings(settingsForm({ intent: 'models-embedding', embeddingBaseUrl: '' }))
    expect(bad.status).toBe(400)
    expect(bodyOf(bad.html)).toMatch(/id="field-embeddingBaseUrl-error"/)
  })

  it('the connection test shows ok, or the failure class of a failed call', async () => {
    let res = await saveSettings({ intent: 'test' })
    expect(res.status).toBe(200)
    expect(bodyOf(res.html)).toMatch(/data-testid="test-result" data-ok="true"/)
    expect(textOf(res.html)).toContain(searchEn['searchSettings.testOk'])
    provider.failNext(401)
    res = await saveSettings({ intent: 'test' })
    expect(res.status).toBe(200)
    expect(bodyOf(res.html)).toMatch(/data-testid="test-result" data-ok="false"/)
    expect(bodyOf(res.html)).toMatch(
      new RegExp(
        `data-testid="failure-class">${searchEn['ai.failure.authentication'].replace(/[()]/g, '\\$&')}<`,
      ),
    )
    expect(res.html).not.toContain('secret echo') // the provider's answer body is never shown
    expect(res.html).not.toContain(KEY)
  })

  it('a stored secret that cannot be decrypted: the settings page says so and what to do; search says why', async () => {
    const [{ k }] = await em().execute<{ k: string }[]>('select embedding_api_key as k from rag_config')
    await em().execute(`update rag_config set embedding_api_key = 'v1:AAAAbroken'`)
    try {
      const page = await pages.get('/admin/search-settings', admin.sessionHeaders)
      expect(page.status).toBe(200)
      expect(bodyOf(page.html)).toContain('data-testid="secrets-unreadable"')
      expect(textOf(page.html)).toContain(searchEn['searchSettings.unreadable'])
      expect(textOf(page.html)).toContain(searchEn['searchSettings.unreadableFix'])
      // the terms tab falls back to names and notations and says why; the wiki tab says why
      const search = await pages.get('/search?q=anything', viewer.sessionHeaders)
      expect(search.status).toBe(200)
      expect(bodyOf(search.html)).toContain('data-reason="secret_unreadable"')
      expect(textOf(search.html)).toContain(homeEn['home.fallback.notReady'])
      expect(textOf(search.html)).toContain(searchEn['search.reason.secret_unreadable'])
      const wiki = await pages.get('/search?tab=wiki&q=anything', viewer.sessionHeaders)
      expect(bodyOf(wiki.html)).toContain('data-code="rag_not_ready"')
      expect(textOf(wiki.html)).toContain(searchEn['search.reason.secret_unreadable'])
      // entering the key again is the fix
      expect((await saveSettings(settingsForm({ embeddingApiKey: KEY }))).status).toBe(302)
      const fixed = await pages.get('/admin/search-settings', admin.sessionHeaders)
      expect(bodyOf(fixed.html)).not.toContain('data-testid="secrets-unreadable"')
    } finally {
      await em().execute('update rag_config set embedding_api_key = ?', [k])
    }
  })
})

describe('/search', () => {
  let term: { slug: string }
  let wikiSlug = ''
  let meetingId = ''

  beforeAll(async () => {
    expect((await saveSettings(settingsForm({ embeddingApiKey: KEY }))).status).toBe(302)
    await em().execute('delete from rag_index_queue')
    term = await createTerm({
      name: 'Pangolin Ledger',
      definition: 'The nightly pangolin ledger closes <img src=x onerror=alert(1)> every account.',
    })
    const wiki = await dispatch('/wiki', {
      headers: admin.sessionHeaders,
      body: {
        title: 'Pangolin handbook',
        content: 'How the pangolin ledger is closed at night.',
        status: 'published',
      },
    })
    expect(wiki.status, await wiki.clone().text()).toBe(201)
    wikiSlug = ((await wiki.json()) as { slug: string }).slug
    const meeting = await dispatch('/meetings', {
      headers: admin.sessionHeaders,
      body: {
        title: 'Ledger sync',
        meetingDate: '2024-03-10',
        team: 'finance',
        content: 'We discussed the pangolin ledger migration.',
      },
    })
    expect(meeting.status, await meeting.clone().text()).toBe(201)
    meetingId = ((await meeting.json()) as { id: string }).id
    await drainIndexQueue()
  })

  it('finds terms with the query’s words marked in the chunk, escaped, with a link to the term', async () => {
    const res = await pages.get('/search?q=pangolin+ledger', viewer.sessionHeaders)
    expect(res.status, textOf(res.html)).toBe(200)
    const body = bodyOf(res.html)
    expect(body).toContain(`href="/terms/${term.slug}"`)
    expect(body).toMatch(/<mark>[Pp]angolin<\/mark>/)
    expect(body).toMatch(/<mark>[Ll]edger<\/mark>/)
    // the chunk's markup is text: escaped, never an element
    expect(body).toContain('&lt;img src=x onerror=alert(1)&gt;')
    expect(body).not.toContain('<img src=x')
    expect(body).toContain('data-testid="search-result"')
  })

  it('the wiki and meetings tabs link to their sources; the meetings tab filters by team and date', async () => {
    const wiki = await pages.get('/search?tab=wiki&q=pangolin', viewer.sessionHeaders)
    expect(wiki.status).toBe(200)
    expect(bodyOf(wiki.html)).toContain(`href="/wiki/${wikiSlug}?passage=`)
    expect(bodyOf(wiki.html)).toMatch(/<mark>pangolin<\/mark>/)
    const meetings = await pages.get('/search?tab=meetings&q=pangolin&team=finance', viewer.sessionHeaders)
    expect(bodyOf(meetings.html)).toContain(`href="/meetings/${meetingId}?passage=`)
    expect(bodyOf(meetings.html)).toContain('name="team"')
    const otherTeam = await pages.get('/search?tab=meetings&q=pangolin&team=sales', viewer.sessionHeaders)
    expect(bodyOf(otherTeam.html)).not.toContain(`href="/meetings/${meetingId}`)
    expect(textOf(otherTeam.html)).toContain(searchEn['search.none'])
    // `to` is the whole day: a meeting on that day is found
    const sameDay = await pages.get(
      '/search?tab=meetings&q=pangolin&from=2024-03-10&to=2024-03-10',
      viewer.sessionHeaders,
    )
    expect(bodyOf(sameDay.html)).toContain(`href="/meetings/${meetingId}?passage=`)
    const bad = await pages.get('/search?tab=meetings&q=pangolin&from=yesterday', viewer.sessionHeaders)
    expect(bad.status).toBe(400)
  })

  it('a result’s link opens its source at the passage, marked; another revision’s passage is not marked', async () => {
    /** The address of the first result's link, without the fragment the browser keeps to itself. */
    const firstLink = (html: string) => {
      const href = /data-testid="search-result"><a [^>]*href="([^"]+)"/.exec(bodyOf(html))![1]!
      return href.replace(/&amp;/g, '&').split('#')
    }
    // The sources' term links (issue 32) are left out: this is about the passage.
    const plain = (html: string) =>
      html.replace(
        /<span class="term"><a class="term-link"[^>]*>([^<]*)<\/a><span class="term-def".*?<\/span><\/span>/g,
        '$1',
      )
    const [wikiLink, wikiAnchor] = firstLink(
      (await pages.get('/search?tab=wiki&q=pangolin', viewer.sessionHeaders)).html,
    )
    expect(wikiLink).toBe(`/wiki/${wikiSlug}?passage=0-43&revision=1`)
    expect(wikiAnchor).toBe('passage')
    const wikiOpened = await pages.get(wikiLink!, viewer.sessionHeaders)
    expect(wikiOpened.status).toBe(200)
    expect(plain(bodyOf(wikiOpened.html))).toContain(
      '<p class="passage" id="passage">How the pangolin ledger',
    )

    const [meetingLink] = firstLink(
      (await pages.get('/search?tab=meetings&q=pangolin', viewer.sessionHeaders)).html,
    )
    expect(meetingLink).toBe(`/meetings/${meetingId}?passage=0-43&revision=1`)
    const meetingOpened = await pages.get(meetingLink!, viewer.sessionHeaders)
    expect(plain(bodyOf(meetingOpened.html))).toContain(
      '<mark class="passage" id="passage">We discussed the pangolin ledger migration.</mark>',
    )
    // a part of the record: the text around the mark stays as recorded
    const part = await pages.get(`/meetings/${meetingId}?passage=3-12`, viewer.sessionHeaders)
    expect(plain(bodyOf(part.html))).toMatch(
      /<pre class="original">We <mark class="passage" id="passage">discussed<\/mark> the pangolin/,
    )

    const stale = await pages.get(`/wiki/${wikiSlug}?passage=0-43&revision=7`, viewer.sessionHeaders)
    expect(stale.status).toBe(200)
    expect(bodyOf(stale.html)).not.toContain('id="passage"')
    expect(textOf(stale.html)).toContain(searchEn['search.passageStale'].replace('{revision}', '7'))
    for (const bad of ['0-999', '9-3', 'x']) {
      const ignored = await pages.get(`/meetings/${meetingId}?passage=${bad}`, viewer.sessionHeaders)
      expect(ignored.status, bad).toBe(200)
      expect(bodyOf(ignored.html), bad).not.toContain('id="passage"')
    }
  })

  it('a search that cannot run is a message in the page (200, never 5xx): switched off, the provider failing', async () => {
    provider.failNext(500)
    const failing = await pages.get('/search?q=pangolin', viewer.sessionHeaders)
    expect(failing.status).toBe(200)
    expect(bodyOf(failing.html)).toContain('data-code="rag_provider_error"')
    expect(textOf(failing.html)).toContain(searchEn['search.providerError'])
    expect(textOf(failing.html)).toContain(searchEn['ai.failure.provider_unavailable'])
    expect(failing.html).not.toContain('secret echo')
    expect((await saveSettings(settingsForm({ enabled: '' }))).status).toBe(302)
    try {
      // switched off: the terms tab searches names and notations instead and says so in one sentence
      provider.requests.length = 0
      const off = await pages.get('/search?q=pangolin', viewer.sessionHeaders)
      expect(off.status).toBe(200)
      expect(bodyOf(off.html)).toContain('data-reason="off"')
      expect(textOf(off.html)).toContain(homeEn['home.fallback.off'])
      expect(bodyOf(off.html)).toContain(`href="/terms/${term.slug}"`)
      expect(provider.requests).toHaveLength(0) // no provider call while search is off
      // the wiki and meeting tabs cannot fall back: they say why
      const offWiki = await pages.get('/search?tab=wiki&q=pangolin', viewer.sessionHeaders)
      expect(offWiki.status).toBe(200)
      expect(bodyOf(offWiki.html)).toContain('data-code="rag_not_ready"')
      expect(textOf(offWiki.html)).toContain(searchEn['search.notReady'])
      expect(textOf(offWiki.html)).toContain(searchEn['search.reason.off'])
      // the form is still there to search again
      expect(bodyOf(off.html)).toContain('name="q"')
    } finally {
      expect((await saveSettings(settingsForm())).status).toBe(302)
    }
  })

  it('speaks Korean', async () => {
    const res = await fetch(`${pages.url()}/search?q=pangolin`, {
      headers: { cookie: `${viewer.sessionHeaders.cookie}; lang=ko` },
    })
    const text = textOf(await res.text())
    expect(text).toContain('의미 검색')
    expect(text).toContain('결과')
  })
})

describe('/admin/search-index', () => {
  const failedIds = async () =>
    (
      await em().execute<{ id: string }[]>(
        `select id from rag_index_queue where status = 'failed' order by id`,
      )
    ).map((r) => r.id)

  it('lists a failed row with its source, revision and message; retry puts it back to queued', async () => {
    await drainIndexQueue()
    const term = await createTerm({ name: 'Refused Term' })
    provider.failNext(401)
    await drainIndexQueue()
    const [id] = await failedIds()
    expect(id).toBeDefined()
    const page = await pages.get('/admin/search-index', admin.sessionHeaders)
    expect(page.status).toBe(200)
    const body = bodyOf(page.html)
    expect(body).toContain(`data-id="${id}"`)
    expect(body).toContain(`href="/terms/${term.slug}"`)
    expect(textOf(body)).toMatch(/authentication \(HTTP 401\)/)
    expect(body).toMatch(/data-count="failed">1</)
    expect(page.html).not.toContain('secret echo')

    const retried = await pages.post(
      '/admin/search-index',
      { intent: 'retry', id: id! },
      admin.sessionHeaders,
    )
    expect(retried.status).toBe(200)
    expect(textOf(retried.html)).toContain('1 failed rows are queued again.')
    const [row] = await em().execute<{ status: string; attempts: number }[]>(
      'select status, attempts from rag_index_queue where id = ?',
      [id],
    )
    expect(row).toEqual({ status: 'queued', attempts: 0 })
    // the progress bar counts from the work there was after the retry
    expect(bodyOf(retried.html)).toMatch(/<progress[^>]*value="0"[^>]*max="1"/)
    expect(bodyOf(retried.html)).toContain('href="/admin/search-index?of=1"')
    // an id that is no failed row retries nothing
    const none = await pages.post(
      '/admin/search-index',
      { intent: 'retry', id: 'not-an-id' },
      admin.sessionHeaders,
    )
    expect(textOf(none.html)).toContain('0 failed rows are queued again.')
    await drainIndexQueue()
    expect(await failedIds()).toEqual([])
  })

  it('"retry all failed" retries every failed row', async () => {
    await createTerm({ name: 'Refused One' })
    await createTerm({ name: 'Refused Two' })
    provider.failNext(404, 2)
    await drainIndexQueue()
    expect(await failedIds()).toHaveLength(2)
    const res = await pages.post('/admin/search-index', { intent: 'retry-all' }, admin.sessionHeaders)
    expect(textOf(res.html)).toContain('2 failed rows are queued again.')
    expect(await failedIds()).toEqual([])
    await drainIndexQueue()
  })

  it('reindex starts a full reindex run; the progress bar counts down against the work there was', async () => {
    const res = await pages.post('/admin/search-index', { intent: 'reindex' }, admin.sessionHeaders)
    expect(res.status).toBe(200)
    const [{ terms }] = await em().execute<{ terms: string }[]>(
      `select count(*) as terms from terms where deleted_at is null and status <> 'merged'`,
    )
    expect(textOf(res.html)).toContain(
      `A full reindex of ${Number(terms) === 1 ? '1 term' : `${terms} terms`}, 1 wiki page and 1 meeting has started.`,
    )
    const total = Number(terms) + 2
    expect(bodyOf(res.html)).toMatch(new RegExp(`data-count="queued">${total}<`))
    expect(bodyOf(res.html)).toMatch(new RegExp(`<progress[^>]*value="0"[^>]*max="${total}"`))
    expect(bodyOf(res.html)).toContain(`href="/admin/search-index?of=${total}"`)
    expect(textOf(res.html)).toContain(`0 of ${total} sources done (reading and embedding)`)
    // Part of the run: the bar moves with the run's sources, and one step stays left until the swap.
    RUNNER.sourcesPerBatch = 2
    await runReindexStep(TEST_HOLDER)
    RUNNER.sourcesPerBatch = RUNNER_BATCH
    const during = await pages.get(`/admin/search-index?of=${total}`, admin.sessionHeaders)
    expect(bodyOf(during.html)).toMatch(new RegExp(`<progress[^>]*value="2"[^>]*max="${total}"`))
    expect(textOf(during.html)).toContain(`2 of ${total} sources done`)
    // No estimate in a run's first half minute; ten minutes in, the pace so far: 2 sources in 600 s.
    expect(bodyOf(during.html)).not.toContain('data-testid="index-run-left"')
    // (every run moved back alike: the latest stays the latest)
    await em().execute(`update rag_reindex_runs set created_at = created_at - interval '10 minutes'`)
    const later = await pages.get(`/admin/search-index?of=${total}`, admin.sessionHeaders)
    expect(textOf(later.html)).toContain(
      fill(searchEn['searchIndex.runLeft'], { minutes: Math.round((600 * (total - 2)) / 2 / 60) }),
    )
    await drainIndexQueue()
    // the refresh link of a page without JavaScript: the bar is full, nothing is left
    const after = await pages.get(`/admin/search-index?of=${total}`, admin.sessionHeaders)
    expect(bodyOf(after.html)).toMatch(new RegExp(`<progress[^>]*value="${total}"[^>]*max="${total}"`))
    expect(textOf(after.html)).toContain(searchEn['searchIndex.upToDate'])
    expect(bodyOf(after.html)).not.toContain('data-testid="index-refresh"')
    expect(bodyOf(after.html)).toMatch(/data-count="queued">0</)
  })

  it('says when the last full reindex failed, and why', async () => {
    await em().execute(
      `insert into rag_reindex_runs (id, status, space, chunk_size, chunk_overlap, error, finished_at)
       values (gen_random_uuid(), 'failed', 'x', 400, 50, 'The provider refused the key (401).', now())`,
    )
    const page = await pages.get('/admin/search-index', admin.sessionHeaders)
    expect(bodyOf(page.html)).toContain('data-testid="index-run-failed"')
    expect(textOf(page.html)).toContain(
      'and its sources were queued one by one instead. The reason: The provider refused the key (401).',
    )
  })
})
