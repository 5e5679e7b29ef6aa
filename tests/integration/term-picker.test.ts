import { beforeAll, describe, expect, it } from 'vitest'
import * as relationEditPage from '#app/routes/relations.$id.edit.tsx'
import * as relationsPage from '#app/routes/relations._index.tsx'
import * as proposePage from '#app/routes/relations.new.tsx'
import * as pickerRoute from '#app/routes/relations.terms.tsx'
import * as wikiEditPage from '#app/routes/wiki.$slug.edit.tsx'
import * as wikiPage from '#app/routes/wiki.$slug._index.tsx'
import * as wikiListPage from '#app/routes/wiki._index.tsx'
import * as newWikiPage from '#app/routes/wiki.new.tsx'
import { getRelation, listRelations } from '#app/services/relations/read.server.ts'
import { createClassification } from '#app/services/terms/classification.server.ts'
import type { TermDto } from '#app/services/terms/read.server.ts'
import { getWikiPage } from '#app/services/wiki/read.server.ts'
import { em } from '#db/orm.ts'
import { createTerm, createUser, type TestUser } from '#tests/factories.ts'
import { pageText, usePageServer, type PageAnswer } from '#tests/page-server.ts'
import { useTestDb } from '#tests/setup/db.ts'

useTestDb()

/**
 * Terms taken by name (issue 27 item 7) in the relation form and the wiki editor, without JavaScript: the typed
 * name (or notation, or address) is resolved on submit; a name of several terms comes back as a choice with the
 * other values kept; an unknown one is named next to its field, never "Invalid UUID". Every successful action
 * answers with a redirect whose flash names what was done. The wiki's domains come from the classification
 * scheme (item 2).
 */

const pages = usePageServer({
  'routes/relations._index': { path: 'relations', module: relationsPage },
  'routes/relations.new': { path: 'relations/new', module: proposePage },
  'routes/relations.terms': { path: 'relations/terms', module: pickerRoute },
  'routes/relations.$id.edit': { path: 'relations/:id/edit', module: relationEditPage },
  'routes/wiki._index': { path: 'wiki', module: wikiListPage },
  'routes/wiki.new': { path: 'wiki/new', module: newWikiPage },
  'routes/wiki.$slug._index': { path: 'wiki/:slug', module: wikiPage },
  'routes/wiki.$slug.edit': { path: 'wiki/:slug/edit', module: wikiEditPage },
})

let editor: TestUser
let viewer: TestUser
let gateway: TermDto
let limiter: TermDto
let ko: Record<string, string>

beforeAll(async () => {
  editor = await createUser({ role: 'editor', name: 'Eddie Editor' })
  viewer = await createUser({ role: 'viewer', name: 'Vera Viewer' })
  ko = { ...viewer.sessionHeaders, cookie: `${viewer.sessionHeaders.cookie}; lang=ko` }
  gateway = await createTerm({
    name: 'API Gateway',
    slug: 'api-gateway',
    notations: [{ text: 'APIGW', kind: 'admitted', lang: null }],
  })
  limiter = await createTerm({ name: 'Rate Limiter', slug: 'rate-limiter' })
  // Two terms share the notation "Cache": typing it names both.
  await createTerm({
    name: 'Response Cache',
    slug: 'response-cache',
    notations: [{ text: 'Cache', kind: 'admitted', lang: null }],
  })
  await createTerm({
    name: 'Data Cache',
    slug: 'data-cache',
    notations: [{ text: 'cache', kind: 'admitted', lang: null }],
  })
  await createClassification({
    kind: 'domain',
    input: { key: 'platform', nameEn: 'Platform', nameKo: '플랫폼', sort: 1 },
  })
})

/** The session's cookie plus the cookies an answer sets, as a browser sends them on the next request. */
function withCookies(session: Record<string, string>, answer: PageAnswer): Record<string, string> {
  const set = answer.headers.getSetCookie().map((line) => line.split(';')[0])
  return { ...session, cookie: [session.cookie, ...set].join('; ') }
}

/** Follows an action's redirect as a browser without JavaScript does; answers the page and its flash text. */
async function follow(answer: PageAnswer, session: Record<string, string>) {
  expect(answer.status, pageText(answer.html).slice(0, 800)).toBe(302)
  const page = await pages.get(answer.location!, withCookies(session, answer))
  expect(page.status).toBe(200)
  const flash = /<div class="flash flash-(\w+)" role="\w+">([^<]*)<\/div>/.exec(page.html)
  return { page, location: answer.location!, kind: flash?.[1], flash: flash?.[2] }
}

/** The markup of one picker field (its label, box, messages and choice), to check what sits next to it. */
function pickerOf(html: string, field: string): string {
  const start = html.indexOf(`data-picker="${field}"`)
  expect(start, `picker ${field}`).toBeGreaterThan(-1)
  const next = html.indexOf('data-picker="', start + 1)
  return html.slice(start, next === -1 ? html.indexOf('name="relationType"', start) : next)
}

async function clearRelations() {
  await em().execute('delete from relations')
}

describe('proposing a relation by typing names (no JavaScript)', () => {
  it('two names and Propose: the relation is proposed and the next page says so', async () => {
    await clearRelations()
    const answer = await pages.post(
      '/relations/new',
      {
        source: 'api gateway',
        target: 'Rate Limiter',
        relationType: 'part_of',
        evidenceMd: 'The gateway embeds a limiter.',
      },
      viewer.sessionHeaders,
    )
    const { flash, kind, location } = await follow(answer, viewer.sessionHeaders)
    expect(location).toBe('/relations?status=proposed')
    expect(kind).toBe('success')
    expect(flash).toBe('Relation proposed: API Gateway → Rate Limiter. It waits for review.')
    const { items } = await listRelations({ status: 'proposed', page: 1 } as never)
    expect(items).toHaveLength(1)
    expect(items[0]).toMatchObject({
      relationType: 'part_of',
      source: { id: gateway.id },
      target: { id: limiter.id },
      sourceRevision: gateway.revision,
      targetRevision: limiter.revision,
    })
  })

  it('takes a notation, and an address (slug), as well as a name', async () => {
    await clearRelations()
    const answer = await pages.post(
      '/relations/new',
      {
        source: 'apigw',
        target: 'rate-limiter',
        relationType: 'related_to',
        evidenceMd: 'Deployed together.',
      },
      viewer.sessionHeaders,
    )
    const { flash } = await follow(answer, viewer.sessionHeaders)
    expect(flash).toBe('Relation proposed: API Gateway → Rate Limiter. It waits for review.')
  })

  it('a name of several terms brings the page back with a choice for that field, the other values kept', async () => {
    await clearRelations()
    const answer = await pages.post(
      '/relations/new',
      { source: 'API Gateway', target: 'CACHE', relationType: 'used_in', evidenceMd: 'Kept **warm**.' },
      viewer.sessionHeaders,
    )
    expect(answer.status).toBe(400)
    const target = pickerOf(answer.html, 'target')
    expect(pageText(target)).toContain('Several terms are called “CACHE”. Choose one:')
    // Both terms are offered as radios of the target's chosen id; the source keeps what was resolved.
    expect(target.match(/type="radio" name="targetId"/g)).toHaveLength(2)
    expect(pageText(target)).toContain('Response Cache')
    expect(pageText(target)).toContain('Data Cache')
    expect(pickerOf(answer.html, 'source')).toContain(`name="sourceId" value="${gateway.id}"`)
    expect(pickerOf(answer.html, 'source')).not.toContain('class="error')
    expect(answer.html).toMatch(/<option value="used_in" selected="">/)
    expect(answer.html).toContain('Kept **warm**.')
    expect(pageText(answer.html)).toContain('Check the marked fields: Target term.')

    // Choosing one of the radios and posting again proposes it.
    const dataCache = /value="([0-9a-f-]{36})"[^>]*\/?>\s*<span><strong>Data Cache/.exec(target)?.[1]
    expect(dataCache).toBeDefined()
    const chosen = await pages.post(
      '/relations/new',
      {
        source: 'API Gateway',
        sourceId: gateway.id,
        target: 'CACHE',
        targetId: dataCache!,
        relationType: 'used_in',
        evidenceMd: 'Kept **warm**.',
      },
      viewer.sessionHeaders,
    )
    expect((await follow(chosen, viewer.sessionHeaders)).flash).toBe(
      'Relation proposed: API Gateway → Data Cache. It waits for review.',
    )
  })

  it('an unknown name is named next to its field, in the reader’s language, never "Invalid UUID"', async () => {
    const answer = await pages.post(
      '/relations/new',
      { source: 'API Gatewy', target: 'Rate Limiter', relationType: 'related_to', evidenceMd: 'x' },
      viewer.sessionHeaders,
    )
    expect(answer.status).toBe(400)
    const source = pickerOf(answer.html, 'source')
    expect(pageText(source)).toContain(
      'No term called “API Gatewy”. Check the spelling or search the term list.',
    )
    expect(source).toMatch(/aria-describedby="picker-source-hint picker-source-error"/)
    expect(source).toContain('id="picker-source-error"')
    expect(source).toContain('href="/terms?q=API+Gatewy"')
    expect(pickerOf(answer.html, 'target')).not.toContain('class="error')
    expect(answer.html).not.toMatch(/Invalid UUID|invalid_format|uuid/i)
    expect(answer.html).toContain('value="API Gatewy"')

    const korean = await pages.post(
      '/relations/new',
      { source: '', target: 'nothing like it', relationType: 'related_to', evidenceMd: 'x' },
      ko,
    )
    expect(korean.status).toBe(400)
    expect(pageText(pickerOf(korean.html, 'source'))).toContain('용어 이름을 입력하세요.')
    expect(pageText(pickerOf(korean.html, 'target'))).toContain('“nothing like it”(이)라는 용어가 없습니다.')
    expect(korean.html).not.toMatch(/Invalid UUID/i)
  })

  it('the same term on both sides is refused next to the target', async () => {
    const answer = await pages.post(
      '/relations/new',
      { source: 'API Gateway', target: 'APIGW', relationType: 'related_to', evidenceMd: 'x' },
      viewer.sessionHeaders,
    )
    expect(answer.status).toBe(400)
    expect(pageText(pickerOf(answer.html, 'target'))).toContain(
      'Choose a target term other than the source term.',
    )
  })

  it('a chosen id that no longer matches the text is not trusted: the text decides', async () => {
    await clearRelations()
    const answer = await pages.post(
      '/relations/new',
      {
        source: 'API Gateway',
        // The picker chose Rate Limiter, then the user typed another name over it.
        target: 'Response Cache',
        targetId: limiter.id,
        relationType: 'related_to',
        evidenceMd: 'x',
      },
      viewer.sessionHeaders,
    )
    expect((await follow(answer, viewer.sessionHeaders)).flash).toBe(
      'Relation proposed: API Gateway → Response Cache. It waits for review.',
    )
  })

  it('opens with the term of a term page as the source (?sourceId=)', async () => {
    const page = await pages.get(`/relations/new?sourceId=${gateway.id}`, viewer.sessionHeaders)
    expect(page.status).toBe(200)
    const source = pickerOf(page.html, 'source')
    expect(source).toContain('value="API Gateway"')
    expect(source).toContain(`name="sourceId" value="${gateway.id}"`)
    // The old search form outside the fields is gone.
    expect(page.html).not.toContain('id="picker"')
    expect(page.html).not.toContain('Find a term')
  })

  it('suggests terms as you type (the resource route the picker loads)', async () => {
    const res = await fetch(`${pages.url()}/relations/terms?q=cach`, {
      headers: { cookie: viewer.sessionHeaders.cookie! },
    })
    expect(res.status).toBe(200)
    const body = (await res.json()) as { q: string; items: { name: string; revision: number }[] }
    expect(body.q).toBe('cach')
    expect(body.items.map((item) => item.name).sort()).toEqual(['Data Cache', 'Response Cache'])
    const visitor = await fetch(`${pages.url()}/relations/terms?q=cach`, { redirect: 'manual' })
    expect(visitor.status).not.toBe(200)
  })
})

describe('the review queue says what each action did', () => {
  it('approve, reject and reverse redirect back to the list with a flash naming the relation', async () => {
    await clearRelations()
    const proposed = await pages.post(
      '/relations/new',
      { source: 'API Gateway', target: 'Rate Limiter', relationType: 'part_of', evidenceMd: 'x' },
      viewer.sessionHeaders,
    )
    expect(proposed.status).toBe(302)
    const [relation] = (await listRelations({ status: 'proposed', page: 1 } as never)).items
    const approved = await pages.post(
      '/relations?index&status=proposed',
      { id: relation!.id, version: relation!.version, intent: 'approved' },
      editor.sessionHeaders,
    )
    const shown = await follow(approved, editor.sessionHeaders)
    expect(shown.location).toBe('/relations?status=proposed')
    expect(shown.flash).toBe('Relation approved: API Gateway → Rate Limiter.')
    expect((await getRelation({ id: relation!.id })).status).toBe('approved')

    const current = await getRelation({ id: relation!.id })
    const reversed = await pages.post(
      '/relations?index&status=approved',
      { id: current.id, version: current.version, intent: 'reverse' },
      editor.sessionHeaders,
    )
    expect((await follow(reversed, editor.sessionHeaders)).flash).toBe(
      'Reversed: Rate Limiter → API Gateway is proposed for review.',
    )

    const [opposite] = (await listRelations({ status: 'proposed', page: 1 } as never)).items
    const rejected = await pages.post(
      '/relations?index',
      { id: opposite!.id, version: opposite!.version, intent: 'rejected' },
      { ...editor.sessionHeaders, cookie: `${editor.sessionHeaders.cookie}; lang=ko` },
    )
    const rejectedShown = await follow(rejected, {
      ...editor.sessionHeaders,
      cookie: `${editor.sessionHeaders.cookie}; lang=ko`,
    })
    expect(rejectedShown.location).toBe('/relations')
    expect(rejectedShown.flash).toBe('관계를 반려했습니다: Rate Limiter → API Gateway.')
  })

  it('a conflict stays on the page next to the relation, without a flash', async () => {
    const [relation] = (await listRelations({ status: 'rejected', page: 1 } as never)).items
    const stale = await pages.post(
      '/relations?index&status=rejected',
      { id: relation!.id, version: 'not-the-version', intent: 'approved' },
      editor.sessionHeaders,
    )
    expect(stale.status).toBe(409)
    expect(stale.headers.getSetCookie().some((line) => line.startsWith('glossary_flash='))).toBe(false)
    expect(stale.html).toContain('role="alert"')
  })

  it('editing a relation says so', async () => {
    const [relation] = (await listRelations({ status: 'rejected', page: 1 } as never)).items
    const edited = await pages.post(
      `/relations/${relation!.id}/edit`,
      {
        version: relation!.version,
        relationType: 'related_to',
        evidenceMd: 'Reconsidered.',
        useCurrent: 'on',
      },
      editor.sessionHeaders,
    )
    expect((await follow(edited, editor.sessionHeaders)).flash).toBe(
      `Relation saved: ${relation!.source.name} → ${relation!.target.name}. It waits for review again.`,
    )
  })
})

describe('the wiki editor takes linked terms by name and domains from the scheme', () => {
  const base = { content: 'How we run it.', summary: '', sourceUrl: '', status: 'draft', intent: 'save' }

  it('offers the scheme’s domains as checkboxes', async () => {
    const page = await pages.get('/wiki/new', editor.sessionHeaders)
    expect(page.status).toBe(200)
    expect(page.html).toMatch(/<input type="checkbox" name="domain" value="platform"\/?>Platform/)
    expect(page.html).not.toContain('comma-separated')
  })

  it('links terms by name, notation and address, and says the page was created', async () => {
    const answer = await pages.post(
      '/wiki/new',
      [
        ['title', 'Gateway operations'],
        ...Object.entries(base),
        ['domain', 'platform'],
        ['termSlugs', 'API Gateway\nrate-limiter, Response Cache'],
      ],
      editor.sessionHeaders,
    )
    const shown = await follow(answer, editor.sessionHeaders)
    expect(shown.flash).toBe('Wiki page “Gateway operations” created.')
    const page = await getWikiPage({ slug: 'gateway-operations' })
    expect([...page.termSlugs].sort()).toEqual(['api-gateway', 'rate-limiter', 'response-cache'])
    expect(page.domain).toEqual(['platform'])
    expect(pageText(shown.page.html)).toContain('Domains: Platform')
  })

  it('names unknown terms in the field’s message and keeps every value', async () => {
    const answer = await pages.post(
      '/wiki/new',
      [
        ['title', 'Unknown links'],
        ...Object.entries(base),
        ['termSlugs', 'API Gateway, Gatewy, no-such-term'],
      ],
      editor.sessionHeaders,
    )
    expect(answer.status).toBe(400)
    const text = pageText(answer.html)
    expect(text).toContain(
      'No term called “Gatewy”, “no-such-term”. Check the spelling or search the term list.',
    )
    expect(answer.html).toMatch(/id="wiki-termSlugs-error" class="error">No term called/)
    expect(answer.html).toContain('aria-describedby="wiki-termSlugs-hint wiki-termSlugs-error"')
    expect(answer.html).toContain('API Gateway, Gatewy, no-such-term</textarea>')
    expect(answer.html).toContain('value="Unknown links"')
    expect(text).not.toMatch(/Invalid|The request is not valid/)
  })

  it('offers a choice for a name of several terms, and takes it', async () => {
    const answer = await pages.post(
      '/wiki/new',
      [['title', 'Caching'], ...Object.entries(base), ['termSlugs', 'cache']],
      editor.sessionHeaders,
    )
    expect(answer.status).toBe(400)
    expect(pageText(answer.html)).toContain('“cache” names several terms:')
    const radios = [
      ...answer.html.matchAll(/type="radio" name="termSlugsPick\.cache" value="([0-9a-f-]{36})"/g),
    ]
    expect(radios).toHaveLength(2)
    const chosen = await pages.post(
      '/wiki/new',
      [
        ['title', 'Caching'],
        ...Object.entries(base),
        ['termSlugs', 'cache'],
        ['termSlugsPick.cache', radios[1]![1]!],
      ],
      editor.sessionHeaders,
    )
    expect((await follow(chosen, editor.sessionHeaders)).flash).toBe('Wiki page “Caching” created.')
    expect((await getWikiPage({ slug: 'caching' })).termSlugs).toHaveLength(1)
  })

  it('refuses a domain that is not in the scheme, next to the domains', async () => {
    const answer = await pages.post(
      '/wiki/new',
      [['title', 'Free domain'], ...Object.entries(base), ['domain', 'payments']],
      editor.sessionHeaders,
    )
    expect(answer.status).toBe(400)
    expect(answer.html).toMatch(
      /id="wiki-domain-error" class="error">“payments” is not a domain of the classification scheme/,
    )
  })

  it('an edit keeps a domain the page already had outside the scheme, and says it saved', async () => {
    // Written through the API, which keeps taking any domain key (its specification: an array of strings).
    const { createWikiPage } = await import('#app/services/wiki/write.server.ts')
    const { CreateWikiPageSchema } = await import('#app/schemas/wiki.ts')
    const created = await createWikiPage({
      input: CreateWikiPageSchema.parse({
        title: 'Older page',
        content: 'x',
        domain: ['legacy-key'],
        termSlugs: ['api-gateway'],
      }),
      actor: { id: editor.user.id, name: editor.user.name },
    })
    const form = await pages.get(`/wiki/${created.slug}/edit`, editor.sessionHeaders)
    expect(pageText(form.html)).toContain('legacy-key (not in the classification scheme)')
    expect(form.html).toContain('api-gateway</textarea>')
    const saved = await pages.post(
      `/wiki/${created.slug}/edit`,
      [
        ['title', 'Older page'],
        ['baseRevision', String(created.revision)],
        ...Object.entries(base),
        ['domain', 'legacy-key'],
        ['domain', 'platform'],
        ['termSlugs', 'api-gateway\nRate Limiter'],
      ],
      editor.sessionHeaders,
    )
    expect((await follow(saved, editor.sessionHeaders)).flash).toBe('Wiki page “Older page” saved.')
    const page = await getWikiPage({ slug: created.slug })
    expect([...page.domain].sort()).toEqual(['legacy-key', 'platform'])
    expect([...page.termSlugs].sort()).toEqual(['api-gateway', 'rate-limiter'])
  })

  it('filters the list by a domain of the scheme', async () => {
    const list = await pages.get('/wiki?domain=platform', editor.sessionHeaders)
    expect(list.status).toBe(200)
    expect(list.html).toMatch(/<option value="platform" selected="">Platform<\/option>/)
    expect(pageText(list.html)).toContain('Gateway operations')
    expect(pageText(list.html)).not.toContain('Caching')
  })
})
