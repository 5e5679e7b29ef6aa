import { beforeAll, describe, expect, it } from 'vitest'
import { NAV_GROUPS } from '#app/components/site-header.tsx'
import { siteEn, siteKo } from '#app/lib/messages/site.ts'
import * as notFoundPage from '#app/routes/$.tsx'
import * as homePage from '#app/routes/_index.tsx'
import * as auditPage from '#app/routes/admin.audit.tsx'
import * as classificationPage from '#app/routes/admin.classification.tsx'
import * as searchIndexPage from '#app/routes/admin.search-index.tsx'
import * as aiObservabilityPage from '#app/routes/admin.ai-observability.tsx'
import * as searchSettingsPage from '#app/routes/admin.search-settings.tsx'
import * as aiProviderPage from '#app/routes/admin.ai-provider.tsx'
import * as serviceSettingsPage from '#app/routes/admin.settings.tsx'
import * as ssoPage from '#app/routes/admin.sso.tsx'
import * as syncPage from '#app/routes/admin.sync.tsx'
import * as usersPage from '#app/routes/admin.users.tsx'
import * as candidatesPage from '#app/routes/candidates.tsx'
import * as chatPage from '#app/routes/chat.($id).tsx'
import * as checkPage from '#app/routes/check.tsx'
import * as importPage from '#app/routes/import._index.tsx'
import * as meetingsPage from '#app/routes/meetings._index.tsx'
import * as relationsPage from '#app/routes/relations._index.tsx'
import * as searchPage from '#app/routes/search.tsx'
import * as settingsPage from '#app/routes/settings.tsx'
import * as termPage from '#app/routes/terms.$slug._index.tsx'
import * as termsPage from '#app/routes/terms._index.tsx'
import * as newTermPage from '#app/routes/terms.new.tsx'
import * as loginPage from '#app/routes/login.tsx'
import * as registerPage from '#app/routes/register.tsx'
import * as wikiPage from '#app/routes/wiki._index.tsx'
import { createTerm, createUser, type TestUser } from '#tests/factories.ts'
import { pageText, usePageServer, type PageAnswer } from '#tests/page-server.ts'
import { useTestDb } from '#tests/setup/db.ts'

useTestDb()

/**
 * The site around every page (app/components/site-header.tsx, app/components/error-page.tsx, the root layout):
 * the navigation's groups by role, each entry named as the page it opens is titled, the current page marked,
 * error pages inside the site in the reader's language, and the confirmation after saving a settings page.
 */

const pages = usePageServer({
  'routes/_index': { path: '', module: homePage },
  'routes/terms._index': { path: 'terms', module: termsPage },
  'routes/terms.new': { path: 'terms/new', module: newTermPage },
  'routes/terms.$slug._index': { path: 'terms/:slug', module: termPage },
  'routes/check': { path: 'check', module: checkPage },
  'routes/search': { path: 'search', module: searchPage },
  'routes/chat.($id)': { path: 'chat/:id?', module: chatPage },
  'routes/relations._index': { path: 'relations', module: relationsPage },
  'routes/wiki._index': { path: 'wiki', module: wikiPage },
  'routes/meetings._index': { path: 'meetings', module: meetingsPage },
  'routes/candidates': { path: 'candidates', module: candidatesPage },
  'routes/import._index': { path: 'import', module: importPage },
  'routes/admin.users': { path: 'admin/users', module: usersPage },
  'routes/admin.audit': { path: 'admin/audit', module: auditPage },
  'routes/admin.classification': { path: 'admin/classification', module: classificationPage },
  'routes/admin.sso': { path: 'admin/sso', module: ssoPage },
  'routes/admin.settings': { path: 'admin/settings', module: serviceSettingsPage },
  'routes/admin.search-settings': { path: 'admin/search-settings', module: searchSettingsPage },
  'routes/admin.search-index': { path: 'admin/search-index', module: searchIndexPage },
  'routes/admin.ai-observability': { path: 'admin/ai-observability', module: aiObservabilityPage },
  'routes/admin.ai-provider': { path: 'admin/ai-provider', module: aiProviderPage },
  'routes/admin.sync': { path: 'admin/sync', module: syncPage },
  'routes/settings': { path: 'settings', module: settingsPage },
  'routes/register': { path: 'register', module: registerPage },
  'routes/login': { path: 'login', module: loginPage },
  'routes/$': { path: '*', module: notFoundPage },
})

let viewer: TestUser
let editor: TestUser
let admin: TestUser
let slug: string

beforeAll(async () => {
  viewer = await createUser({ role: 'viewer', name: 'Vera Viewer' })
  editor = await createUser({ role: 'editor', name: 'Ed Editor' })
  admin = await createUser({ role: 'admin', name: 'Ada Admin' })
  slug = (await createTerm({ name: 'Message Queue' })).slug
})

const korean = (user: TestUser) => ({
  ...user.sessionHeaders,
  cookie: `${user.sessionHeaders.cookie}; lang=ko`,
})

/** The desktop navigation of a page: its groups (by their names) and the addresses of their links. */
function navOf(html: string): { groups: string[]; links: string[]; current: string[] } {
  const nav = /<nav class="site-nav"[\s\S]*?<\/nav>/.exec(html)?.[0] ?? ''
  const groups = [...nav.matchAll(/role="group" aria-label="([^"]+)"/g)].map((m) => m[1]!)
  const anchors = [...nav.matchAll(/<a\b[^>]*>/g)].map((m) => m[0])
  const hrefOf = (a: string) => /href="([^"]+)"/.exec(a)![1]!
  return {
    groups,
    links: anchors.map(hrefOf),
    current: anchors.filter((a) => a.includes('aria-current="page"')).map(hrefOf),
  }
}

const hasHeader = (html: string) => /<header class="site-header"/.test(html)

describe('the navigation shows what the role may use, in three groups', () => {
  it('a viewer: Glossary and Content without candidates and import; no Admin', async () => {
    const { groups, links } = navOf((await pages.get('/terms', viewer.sessionHeaders)).html)
    expect(groups).toEqual(['Glossary', 'Content'])
    expect(links).toEqual(['/terms', '/check', '/search', '/chat', '/relations', '/wiki', '/meetings'])
  })

  it('an editor: also term candidates and import', async () => {
    const { groups, links } = navOf((await pages.get('/terms', editor.sessionHeaders)).html)
    expect(groups).toEqual(['Glossary', 'Content'])
    expect(links).toEqual([
      '/terms',
      '/check',
      '/search',
      '/chat',
      '/relations',
      '/wiki',
      '/meetings',
      '/candidates',
      '/import',
    ])
  })

  it('an admin: also the Admin group, classification included', async () => {
    const { groups, links } = navOf((await pages.get('/terms', admin.sessionHeaders)).html)
    expect(groups).toEqual(['Glossary', 'Content', 'Admin'])
    expect(links.slice(9)).toEqual([
      '/admin/users',
      '/admin/audit',
      '/admin/classification',
      '/admin/sso',
      '/admin/settings',
      '/admin/search-settings',
      '/admin/search-index',
      '/admin/ai-observability',
      '/admin/ai-provider',
      '/admin/sync',
    ])
  })

  it('a visitor sees no navigation, only sign-in and the language switch', async () => {
    const home = await pages.get('/')
    expect(hasHeader(home.html)).toBe(true)
    expect(navOf(home.html).links).toEqual([])
    expect(home.html).toContain('href="/login"')
  })

  it('the phone menu holds the same entries and the account', async () => {
    const { html } = await pages.get('/terms', admin.sessionHeaders)
    const menu = /<details class="site-menu">[\s\S]*?<\/details>/.exec(html)?.[0] ?? ''
    expect(menu).toContain('<summary>Menu</summary>')
    const links = [...menu.matchAll(/href="([^"]+)"/g)].map((m) => m[1])
    expect(links).toEqual([...navOf(html).links, '/settings'])
    expect(pageText(menu)).toContain('Sign out')
  })

  it('names every entry as the page it opens is titled, in English and Korean', async () => {
    for (const entry of NAV_GROUPS.flatMap((group) => group.entries)) {
      for (const session of [admin.sessionHeaders, korean(admin)]) {
        const page = await pages.get(entry.to, session)
        expect(page.status, entry.to).toBe(200)
        const link = new RegExp(`<a\\b[^>]*href="${entry.to}"[^>]*>([^<]*)</a>`).exec(page.html)?.[1]
        const h1 = pageText(/<h1\b[^>]*>([\s\S]*?)<\/h1>/.exec(page.html)?.[1] ?? '').trim()
        expect(link, entry.to).toBeTruthy()
        expect(h1, entry.to).toBe(pageText(link!).trim())
        const title = /<title>([^<]*)<\/title>/.exec(page.html)?.[1] ?? ''
        expect(title.split(' · ')[0], entry.to).toBe(h1)
      }
    }
  })
})

describe('the current page is marked', () => {
  it('on /terms and on a term below it, and on an admin page with its group', async () => {
    expect(navOf((await pages.get('/terms', viewer.sessionHeaders)).html).current).toEqual(['/terms'])
    expect(navOf((await pages.get(`/terms/${slug}`, viewer.sessionHeaders)).html).current).toEqual(['/terms'])
    const check = await pages.get('/check', viewer.sessionHeaders)
    expect(navOf(check.html).current).toEqual(['/check'])
    const sso = await pages.get('/admin/sso', admin.sessionHeaders)
    expect(navOf(sso.html).current).toEqual(['/admin/sso'])
    expect(sso.html).toMatch(/<summary class="current">Admin<\/summary>/)
    // the /search entry is not marked on /admin/search-settings
    expect(navOf((await pages.get('/admin/search-settings', admin.sessionHeaders)).html).current).toEqual([
      '/admin/search-settings',
    ])
  })
})

describe('error pages inside the site', () => {
  it('a viewer opening an editor page: 403 with the header, naming the role it needs (English, Korean)', async () => {
    for (const path of ['/terms/new', '/import']) {
      const english = await pages.get(path, viewer.sessionHeaders)
      expect(english.status, path).toBe(403)
      expect(hasHeader(english.html)).toBe(true)
      expect(navOf(english.html).links).toContain('/terms')
      const text = pageText(english.html)
      expect(text).toContain(siteEn['error.forbidden.title'])
      expect(text).toContain('This page needs the Editor role. Your role is Viewer.')
      expect(text).not.toContain('Something went wrong')
      // the error page has a title of its own (the root's; a failed child route's meta does not run)
      expect(english.html).toContain(`<title>${siteEn['error.forbidden.title']} · Glossary</title>`)

      const ko = await pages.get(path, korean(viewer))
      expect(ko.status, path).toBe(403)
      expect(hasHeader(ko.html)).toBe(true)
      expect(pageText(ko.html)).toContain(siteKo['error.forbidden.title'])
      expect(pageText(ko.html)).toContain('이 페이지에는 편집자 역할이 필요합니다. 현재 역할은 열람자입니다.')
    }
    const adminOnly = await pages.get('/admin/settings', editor.sessionHeaders)
    expect(adminOnly.status).toBe(403)
    expect(pageText(adminOnly.html)).toContain('This page needs the Admin role. Your role is Editor.')
  })

  it('an unknown item and an unknown address: 404 with the header and links home and to the terms', async () => {
    for (const path of ['/terms/no-such-term', '/no/such/page']) {
      const page = await pages.get(path, viewer.sessionHeaders)
      expect(page.status, path).toBe(404)
      expect(hasHeader(page.html), path).toBe(true)
      expect(navOf(page.html).links, path).toContain('/terms')
      expect(pageText(page.html)).toContain(siteEn['error.notFound.text'])
      expect(page.html).toMatch(/<a [^>]*href="\/">Go to the home page<\/a>/)
      expect(page.html).toMatch(/<a [^>]*href="\/terms">Go to the term list<\/a>/)
    }
    const ko = await pages.get('/no/such/page', korean(viewer))
    expect(ko.status).toBe(404)
    expect(pageText(ko.html)).toContain(siteKo['error.notFound.text'])
    expect(ko.html).toContain(`<title>${siteKo['error.notFound.title']} · 용어 사전</title>`)
    // a visitor gets the header too (no navigation: nothing to navigate to before signing in)
    const visitor = await pages.get('/no/such/page')
    expect(visitor.status).toBe(404)
    expect(hasHeader(visitor.html)).toBe(true)
    // a form sent to an unknown address is a 404 as well
    const posted = await pages.post('/no/such/page', { a: 'b' }, viewer.sessionHeaders)
    expect(posted.status).toBe(404)
    expect(hasHeader(posted.html)).toBe(true)
  })
})

/** The `name=value` pairs of an answer's Set-Cookie lines, as a browser sends them back. */
function cookiesOf(headers: Headers): string {
  return headers
    .getSetCookie()
    .map((line) => line.split(';')[0])
    .join('; ')
}

/** Follows a post's redirect as a browser does, with the session and the cookies the answer set. */
async function follow(answer: PageAnswer, user: TestUser) {
  expect(answer.status).toBe(302)
  return pages.get(answer.location!, {
    cookie: `${user.sessionHeaders.cookie}; ${cookiesOf(answer.headers)}`,
  })
}

describe('confirmations after saving', () => {
  it('/admin/settings: post → redirect → the page with the stored value and "saved"', async () => {
    const saved = await pages.post('/admin/settings', { wrongCaseSeverity: 'error' }, admin.sessionHeaders)
    expect(saved.location).toBe('/admin/settings')
    const next = await follow(saved, admin)
    expect(pageText(next.html)).toContain(siteEn['flash.serviceSettingsSaved'])
    expect(next.html).toMatch(/<option value="error" selected="">/)
    // a refused value stays on the form with its error and no confirmation
    const refused = await pages.post('/admin/settings', { wrongCaseSeverity: 'loud' }, admin.sessionHeaders)
    expect(refused.status).toBe(400)
    expect(pageText(refused.html)).not.toContain(siteEn['flash.serviceSettingsSaved'])
  })

  it('/settings: a new name and a revoked key say so on the next page', async () => {
    const user = await createUser({ role: 'editor', name: 'Old Name' })
    const renamed = await pages.post('/settings', { intent: 'rename', name: 'New Name' }, user.sessionHeaders)
    const afterRename = await follow(renamed, user)
    expect(pageText(afterRename.html)).toContain(siteEn['flash.nameSaved'])
    expect(afterRename.html).toMatch(/href="\/settings">New Name \(Editor\)<\/a>/)

    const created = await pages.post(
      '/settings',
      [
        ['intent', 'create-key'],
        ['name', 'ci-linter'],
        ['scopes', 'read'],
      ],
      user.sessionHeaders,
    )
    // the new key's token is shown once on the answer itself, never carried in a cookie
    expect(created.status).toBe(200)
    expect(created.html).toMatch(/glk_[0-9a-f]{8}_/)
    expect(created.headers.getSetCookie().join('\n')).not.toContain('glk_')
    const keyId = /name="keyId" value="([^"]+)"/.exec(created.html)![1]!
    const revoked = await pages.post('/settings', { intent: 'revoke-key', keyId }, user.sessionHeaders)
    const afterRevoke = await follow(revoked, user)
    expect(pageText(afterRevoke.html)).toContain(siteEn['flash.keyRevoked'].replace('{name}', 'ci-linter'))
  })

  it('/register: the new account lands on the home page, welcomed by name', async () => {
    const created = await pages.post('/register', {
      email: 'newcomer@example.test',
      name: 'Nora Newcomer',
      password: 'a long password 1',
    })
    const home = await pages.get(created.location!, { cookie: cookiesOf(created.headers) })
    expect(created.location).toBe('/')
    expect(pageText(home.html)).toContain('Your account is created. Welcome, Nora Newcomer.')
    expect(home.html).toMatch(/href="\/settings">Nora Newcomer \(Viewer\)<\/a>/)
  })

  it('/settings: deleting the account says so on the sign-in page', async () => {
    const user = await createUser({ role: 'viewer' })
    const deleted = await pages.post(
      '/settings',
      { intent: 'delete-account', confirmEmail: user.user.email, password: user.password },
      user.sessionHeaders,
    )
    expect(deleted.location).toBe('/login')
    const login = await pages.get('/login', { cookie: cookiesOf(deleted.headers) })
    expect(pageText(login.html)).toContain(siteEn['flash.accountDeleted'])
  })
})
