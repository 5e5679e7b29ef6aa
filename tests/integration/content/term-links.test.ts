import { beforeAll, describe, expect, it } from 'vitest'
import * as wikiPage from '#app/routes/wiki.$slug._index.tsx'
import { CreateWikiPageSchema, UpdateWikiPageSchema } from '#app/schemas/wiki.ts'
import { clearPageLinkCache } from '#app/services/annotate/page-links.server.ts'
import { matcherCache } from '#app/services/validation/matcher-cache.server.ts'
import { createWikiPage, updateWikiPage } from '#app/services/wiki/write.server.ts'
import { createTerm, createUser, type TestUser } from '#tests/factories.ts'
import { usePageServer } from '#tests/page-server.ts'
import { useTestDb } from '#tests/setup/db.ts'

/**
 * A wiki page as readers see it (issue 32): the uses of glossary terms link to them with their definitions,
 * in the reader's language, computed against the current glossary (a term saved after the page was written is
 * linked at the next read), never inside links, code or headings.
 */
useTestDb()
const pages = usePageServer({ wikiPage: { path: 'wiki/:slug', module: wikiPage } })

let reader: TestUser

beforeAll(async () => {
  reader = await createUser({ role: 'viewer' })
  const admin = await createUser({ role: 'admin' })
  await createTerm({
    name: 'Release train',
    slug: 'release-train',
    definition: 'A fixed schedule of releases.',
    notations: [{ text: 'RT', kind: 'deprecated', lang: null }],
  })
  await createWikiPage({
    input: CreateWikiPageSchema.parse({
      title: 'Runbook',
      slug: 'runbook',
      status: 'published',
      content: [
        '## The release train',
        '',
        'Every release train leaves on time; the old RT name is gone. Ask the canary group.',
        '',
        'See [release train notes](https://example.test/notes) and `release train`.',
      ].join('\n'),
    }),
    actor: { id: admin.user.id, name: admin.user.name },
  })
  await matcherCache.whenIdle()
})

const linksOf = (html: string) =>
  [...html.matchAll(/<a class="term-link" href="([^"]+)" aria-describedby="term-def-\d+">/g)].map((m) => m[1])

describe('term links on a wiki page', () => {
  it('links a term in the prose with its definition, and marks a deprecated notation with the form to write', async () => {
    const page = await pages.get('/wiki/runbook', reader.sessionHeaders)
    expect(page.status).toBe(200)
    expect(linksOf(page.html)).toEqual(['/terms/release-train'])
    expect(page.html).toMatch(
      /role="tooltip" id="term-def-\d+"><strong>Release train<\/strong> — A fixed schedule of releases\.<\/span>/,
    )
    expect(page.html).toMatch(
      /<mark class="term-deprecated" tabindex="0" aria-describedby="term-def-\d+">RT<\/mark>/,
    )
    expect(page.html).toContain('Deprecated: write “Release train”.')
    // Not in the heading, the link's text or code.
    expect(page.html).toMatch(/<h2>The release train<\/h2>/)
    expect(page.html).toContain('>release train notes</a>')
    expect(page.html).toContain('<code>release train</code>')
  })

  it('speaks the reader language in its tooltips', async () => {
    const res = await fetch(`${pages.url()}/wiki/runbook`, {
      headers: { cookie: `${reader.sessionHeaders.cookie}; lang=ko`, 'accept-language': 'ko' },
    })
    expect(await res.text()).toContain('사용 중지된 표기: “Release train”(으)로 쓰세요.')
  })

  it('follows the glossary: a term saved later is linked at the next read, and a new revision is rendered anew', async () => {
    clearPageLinkCache()
    expect(linksOf((await pages.get('/wiki/runbook', reader.sessionHeaders)).html)).toHaveLength(1)
    await createTerm({
      name: 'Canary group',
      slug: 'canary-group',
      definition: 'Users who get a release first.',
    })
    await matcherCache.whenIdle()
    expect(linksOf((await pages.get('/wiki/runbook', reader.sessionHeaders)).html)).toEqual([
      '/terms/release-train',
      '/terms/canary-group',
    ])
    const admin = await createUser({ role: 'admin' })
    await updateWikiPage({
      slug: 'runbook',
      input: UpdateWikiPageSchema.parse({ content: 'Only the canary group now.' }),
      actor: { id: admin.user.id, name: admin.user.name },
    })
    expect(linksOf((await pages.get('/wiki/runbook', reader.sessionHeaders)).html)).toEqual([
      '/terms/canary-group',
    ])
  })

  it('can be switched off and on per page, without a new revision', async () => {
    const admin = await createUser({ role: 'admin' })
    const actor = { id: admin.user.id, name: admin.user.name }
    const before = await updateWikiPage({
      slug: 'runbook',
      input: UpdateWikiPageSchema.parse({ termLinks: false }),
      actor,
    })
    expect(before.termLinks).toBe(false)
    const off = await pages.get('/wiki/runbook', reader.sessionHeaders)
    expect(linksOf(off.html)).toEqual([])
    expect(off.html).toContain('Only the canary group now.')
    const on = await updateWikiPage({
      slug: 'runbook',
      input: UpdateWikiPageSchema.parse({ termLinks: true }),
      actor,
    })
    expect(on.revision).toBe(before.revision)
    expect(linksOf((await pages.get('/wiki/runbook', reader.sessionHeaders)).html)).toEqual([
      '/terms/canary-group',
    ])
  })

  it('a page cannot forge a link slot with private-use characters', async () => {
    const admin = await createUser({ role: 'admin' })
    await createWikiPage({
      input: CreateWikiPageSchema.parse({
        title: 'Forged',
        slug: 'forged',
        status: 'published',
        content: 'A \ue0000\ue001 slot and the canary group.',
      }),
      actor: { id: admin.user.id, name: admin.user.name },
    })
    const page = await pages.get('/wiki/forged', reader.sessionHeaders)
    expect(page.html).toContain('A \ufffd0\ufffd slot and the')
    expect(linksOf(page.html)).toEqual(['/terms/canary-group'])
  })
})
