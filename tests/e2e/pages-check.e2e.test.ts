import fs from 'node:fs'
import { createRequire } from 'node:module'
import type { BrowserContext, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startStandIn, STAND_IN_CHAT_MODEL, type StandIn } from '#tests/provider-stand-in.ts'
import { apiOf, useAdminAndViewer, useAppAndBrowser } from './use-app.ts'

/**
 * Every page of the app, as an administrator, an editor, a viewer and a visitor meet it (issue 27, "How to work"
 * and Accessibility), at 1280×800 and at phone size 390×844: each page answers the expected status, keeps the
 * site header (error pages too), never scrolls sideways at 390 px, has no duplicate id, and axe-core finds no
 * serious or critical violation of WCAG 2 A/AA. A subset again in Korean and with JavaScript off.
 */

const app = useAppAndBrowser()
const api = apiOf(app)
const cookies = useAdminAndViewer(app)

const AXE_SOURCE = fs.readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8')
const AXE_TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa']
const DESKTOP = { width: 1280, height: 800 }
const PHONE = { width: 390, height: 844 }

type Who = 'admin' | 'editor' | 'viewer' | 'visitor'

interface PageCase {
  who: Who
  /** The address, or a function of the content made in beforeAll. */
  path: string | (() => string)
  /** The answer's status (200 unless given). */
  status?: number
  /** Where the page ends up after redirects, when not `path`. */
  landsOn?: RegExp
  /** Pages made to live in other sites' frames have no site header. */
  bare?: boolean
  /** What to do on the page before checking it (fill and send a form). */
  act?: (page: Page) => Promise<void>
  /** A label for the test name, when the path does not say it. */
  label?: string
}

/** Content made through the API before the pages are visited. */
const made = { editorCookie: '', relationId: '', meetingId: '', importJobId: '', conversationId: '' }
/** The AI provider the chat answers from (the chat pages need a conversation with a cited answer). */
let chatProvider: StandIn | undefined

const LONG_TERM = {
  slug: 'api-gateway',
  name: 'Application Programming Interface Gateway for Cross-Region Internal Service Traffic',
  fullName: 'Application Programming Interface Gateway for Cross-Region Internal Service Traffic Management',
  nameEn: 'API Gateway',
  nameKo: '교차 리전 내부 서비스 트래픽을 위한 애플리케이션 프로그래밍 인터페이스 게이트웨이',
  definition:
    'The single entry point for every API call between regions; it authenticates, limits and routes requests. ' +
    'See https://intra.example/architecture/platform/networking/gateways/cross-region-internal-traffic-management.',
  body: '# Operating\n\nUse `CrossRegionInternalServiceTrafficGatewayConfiguration` for the configuration.',
  notations: [
    { text: 'API Gateway', kind: 'preferred', lang: 'en' },
    { text: 'CrossRegionInternalServiceTrafficGatewayWithoutAnySpaces', kind: 'admitted', lang: 'en' },
    { text: 'API GW', kind: 'deprecated', lang: 'en' },
    { text: 'API 게이트웨이', kind: 'preferred', lang: 'ko' },
  ],
  domains: ['platform'],
  categories: ['infrastructure'],
  tags: ['networking', 'edge-traffic-management-and-routing'],
}

const CHECK_TEXT =
  'The API GW routes calls; the api gateway is the entry point, and the Rate Limiter caps them. ' +
  'API 게이트웨이를 통해 호출한다. Service Mesh Controller and Observability Pipeline are new words.'

const IMPORT_CSV = [
  'slug,name,definition',
  'api-gateway,API Gateway,The one entry point for all API calls between regions and their services.',
  'service-mesh,Service Mesh,A layer of proxies between services.',
].join('\n')

async function checkText(page: Page) {
  await page.fill('#check-text', CHECK_TEXT)
  await page.locator('form:has(#check-text) button[type="submit"]').click()
  await page.locator('p.summary[role="status"]').waitFor()
}

async function importDryRun(page: Page) {
  await page.fill('textarea[name="content"]', IMPORT_CSV)
  await page.locator('button[name="intent"][value="dry-run"]').click()
  await page.getByTestId('import-report').waitFor()
}

const PAGES: PageCase[] = [
  // visitors
  { who: 'visitor', path: '/login' },
  { who: 'visitor', path: '/register' },
  { who: 'visitor', path: '/setup', landsOn: /\/login$/, label: '/setup (done: to /login)' },
  { who: 'visitor', path: '/terms', landsOn: /\/login\?/, label: '/terms (to /login)' },
  { who: 'visitor', path: '/embed', bare: true },
  { who: 'visitor', path: '/no-such-page', status: 404 },
  // every signed-in reader
  { who: 'viewer', path: '/' },
  { who: 'viewer', path: '/terms' },
  { who: 'viewer', path: '/terms?q=gateway&status=active' },
  { who: 'viewer', path: '/terms/api-gateway' },
  { who: 'viewer', path: '/terms/rate-limiter' },
  { who: 'viewer', path: '/terms/api-gateway/history' },
  { who: 'viewer', path: '/terms/api-gateway/history?from=1&to=2' },
  { who: 'viewer', path: '/check' },
  { who: 'viewer', path: '/check', act: checkText, label: '/check (results)' },
  { who: 'viewer', path: '/search' },
  { who: 'viewer', path: '/search?q=gateway' },
  { who: 'viewer', path: '/relations' },
  { who: 'viewer', path: '/relations?status=approved' },
  { who: 'viewer', path: '/wiki' },
  { who: 'viewer', path: '/wiki/gateway-operations' },
  { who: 'viewer', path: '/wiki/gateway-operations/history' },
  { who: 'viewer', path: '/wiki/gateway-operations/history?from=1&to=2' },
  { who: 'viewer', path: '/meetings' },
  { who: 'viewer', path: () => `/meetings/${made.meetingId}`, label: '/meetings/:id' },
  { who: 'viewer', path: '/sheet' },
  { who: 'viewer', path: '/sheet?share=1&cols=name&cols=definition&compact=1' },
  { who: 'viewer', path: '/embed', bare: true },
  { who: 'viewer', path: '/settings' },
  { who: 'viewer', path: '/chat' },
  { who: 'viewer', path: () => `/chat/${made.conversationId}`, label: '/chat/:id' },
  { who: 'viewer', path: '/terms/new', status: 403 },
  { who: 'viewer', path: '/import', status: 403 },
  { who: 'viewer', path: '/terms/no-such-term', status: 404 },
  { who: 'viewer', path: '/no-such-page', status: 404 },
  // editors
  { who: 'editor', path: '/' },
  { who: 'editor', path: '/terms/new' },
  { who: 'editor', path: '/terms/api-gateway/edit' },
  { who: 'editor', path: '/relations/new?sq=gateway&tq=limiter' },
  { who: 'editor', path: () => `/relations/${made.relationId}/edit`, label: '/relations/:id/edit' },
  { who: 'editor', path: '/wiki/new' },
  { who: 'editor', path: '/wiki/gateway-operations/edit' },
  { who: 'editor', path: '/candidates' },
  { who: 'editor', path: '/import' },
  { who: 'editor', path: '/import', act: importDryRun, label: '/import (dry run)' },
  { who: 'editor', path: () => `/import?job=${made.importJobId}`, label: '/import?job=:id' },
  { who: 'editor', path: '/admin/users', status: 403 },
  { who: 'editor', path: '/admin/sync', status: 403 },
  // administrators
  { who: 'admin', path: '/' },
  { who: 'admin', path: '/admin/users' },
  { who: 'admin', path: '/admin/audit' },
  { who: 'admin', path: '/admin/classification' },
  { who: 'admin', path: '/admin/search-index' },
  { who: 'admin', path: '/admin/ai-observability' },
  { who: 'admin', path: '/admin/ai-observability?hours=720&trace=no-such-trace' },
  { who: 'admin', path: '/admin/search-settings' },
  { who: 'admin', path: '/admin/ai-provider' },
  { who: 'admin', path: '/admin/settings' },
  { who: 'admin', path: '/admin/sso' },
  { who: 'admin', path: '/admin/sync' },
  { who: 'admin', path: '/meetings?status=archived' },
]

/** Pages seen again in Korean, and with JavaScript off (by who, and which of PAGES). */
const KOREAN: [Who, string][] = [
  ['viewer', '/'],
  ['viewer', '/terms'],
  ['viewer', '/terms/api-gateway'],
  ['viewer', '/terms/api-gateway/history?from=1&to=2'],
  ['viewer', '/check (results)'],
  ['viewer', '/relations'],
  ['viewer', '/wiki/gateway-operations'],
  ['viewer', '/sheet'],
  ['viewer', '/settings'],
  ['viewer', '/chat/:id'],
  ['viewer', '/terms/new'],
  ['viewer', '/no-such-page'],
  ['editor', '/terms/api-gateway/edit'],
  ['editor', '/import (dry run)'],
  ['admin', '/admin/users'],
  ['admin', '/admin/search-settings'],
  ['admin', '/admin/ai-observability'],
  ['admin', '/admin/ai-provider'],
  ['admin', '/admin/sync'],
]
const NO_SCRIPT: [Who, string][] = [
  ['viewer', '/'],
  ['viewer', '/chat'],
  ['viewer', '/chat/:id'],
  ['viewer', '/terms'],
  ['viewer', '/terms/api-gateway'],
  ['viewer', '/check (results)'],
  ['viewer', '/terms/new'],
  ['editor', '/terms/api-gateway/edit'],
  ['editor', '/relations/new?sq=gateway&tq=limiter'],
  ['editor', '/wiki/new'],
  ['editor', '/import (dry run)'],
  ['admin', '/admin/users'],
  ['admin', '/admin/search-settings'],
  ['admin', '/admin/sso'],
  ['admin', '/admin/ai-observability'],
  ['admin', '/admin/ai-provider'],
  ['admin', '/admin/sync'],
]

function pageCase(who: Who, name: string): PageCase {
  const c = PAGES.find((p) => p.who === who && (p.label ?? p.path) === name)
  if (!c) throw new Error(`no page ${who} ${name}`)
  return c
}

beforeAll(async () => {
  const admin = cookies.admin
  const call = async (path: string, body: unknown, method = 'POST') => {
    const res = await api(path, { method, cookie: admin, body })
    const json = await res.json()
    expect(res.status, `${method} ${path}: ${JSON.stringify(json)}`).toBeLessThan(300)
    return json
  }
  // An editor: registered, then given the role by the admin.
  const register = await api('/auth/register', {
    method: 'POST',
    body: { email: 'editor@example.test', password: 'editor password 1', name: 'Eddie Editor' },
  })
  expect(register.status).toBe(200)
  const editor = await register.json()
  made.editorCookie = register.headers
    .getSetCookie()
    .find((l) => l.startsWith('glossary_session='))!
    .split(';')[0]!
  await call(`/admin/users/${editor.user.id}`, { role: 'editor' }, 'PATCH')

  await call('/domains', { key: 'platform', nameEn: 'Platform', nameKo: '플랫폼' })
  await call('/categories', { key: 'infrastructure', nameEn: 'Infrastructure', nameKo: '인프라' })
  const gateway = await call('/terms', LONG_TERM)
  const limiter = await call('/terms', {
    slug: 'rate-limiter',
    name: 'Rate Limiter',
    definition: 'Caps how many requests a client may send.',
    notations: [{ text: 'throttler', kind: 'deprecated', lang: 'en' }],
  })
  await call('/terms', {
    slug: 'service-discovery',
    name: '서비스 디스커버리',
    definition: '서비스 위치 찾기.',
  })
  // A second revision of the gateway, for its history and diff.
  const updated = await call(
    '/terms/api-gateway',
    {
      baseRevision: gateway.revision,
      definition: `${LONG_TERM.definition} It also terminates TLS.`,
      notations: [...LONG_TERM.notations, { text: 'Edge Router', kind: 'admitted', lang: 'en' }],
    },
    'PATCH',
  )
  const approved = await call('/relations', {
    sourceTermId: limiter.id,
    targetTermId: gateway.id,
    relationType: 'part_of',
    evidenceMd: 'The gateway **embeds** a rate limiter on every route.',
    sourceRevision: limiter.revision,
    targetRevision: updated.revision,
  })
  const { version } = await (await api(`/relations/${approved.id}`, { cookie: admin })).json()
  await call(`/relations/${approved.id}`, { action: 'approved', version }, 'PATCH')
  const proposed = await call('/relations', {
    sourceTermId: gateway.id,
    targetTermId: limiter.id,
    relationType: 'related_to',
    evidenceMd: 'Often deployed together; see the architecture review of 2024.',
    sourceRevision: updated.revision,
    targetRevision: limiter.revision,
  })
  made.relationId = proposed.id
  const wiki = await call('/wiki', {
    slug: 'gateway-operations',
    title: 'Operating the cross-region API gateway: a runbook for platform on-call engineers',
    content:
      '# Operating\n\nUse the **API Gateway**.\n\n| Setting | Value |\n|---|---|\n| timeout | 30 s |\n\n' +
      '`averyveryveryveryveryveryveryveryveryveryveryveryverylongidentifierwithoutanyspace`',
    summary: 'How to run the gateway.',
    sourceUrl: 'https://intra.example/doc/architecture/platform/networking/gateways/runbook',
    domain: ['platform'],
    termSlugs: ['api-gateway'],
    status: 'published',
  })
  await call(
    '/wiki/gateway-operations',
    { baseRevision: wiki.revision, summary: 'How to run the gateway, step by step.' },
    'PATCH',
  )
  const meeting = await call('/meetings', {
    title: 'Gateway naming review 2024-03',
    meetingDate: '2024-03-05T09:00:00Z',
    team: 'platform',
    content: 'We agreed to call it "API Gateway" and to stop writing "API GW".',
  })
  made.meetingId = meeting.id
  // Candidates are gathered from checked texts, after the answer.
  await call('/validate', { text: CHECK_TEXT })
  for (let i = 0; i < 100; i++) {
    const list = await (await api('/candidates', { cookie: admin })).json()
    if (list.items?.length) break
    await new Promise((r) => setTimeout(r, 100))
  }
  // A finished import job (the dry run is made in the page, from the form).
  const job = await call('/import', {
    format: 'csv',
    csv: 'slug,name,definition\nservice-mesh,Service Mesh,A layer of proxies between services.',
    wait: true,
  })
  made.importJobId = job.id
  // A conversation with a cited answer (the chat on, answering from the provider stand-in).
  chatProvider = await startStandIn()
  await call('/admin/rag-config', { chatEnabled: true }, 'PATCH')
  await call('/admin/ai-provider', { baseUrl: chatProvider.url, model: STAND_IN_CHAT_MODEL }, 'PATCH')
  const asked = await api('/chat', {
    method: 'POST',
    cookie: cookies.viewer,
    body: { message: 'What is the API gateway and what did the naming review decide?' },
  })
  expect(asked.status, await asked.clone().text()).toBe(200)
  made.conversationId = ((await asked.json()) as { conversationId: string }).conversationId
})
afterAll(async () => {
  await chatProvider?.close()
})

/**
 * Pages as a browser with JavaScript off gets them: every script is taken out of each document (and what a
 * <noscript> holds is shown), so nothing hydrates and every form posts. Not `javaScriptEnabled: false`: axe-core
 * runs in the page and needs its timers, which that setting stops.
 */
async function withoutScripts(context: BrowserContext) {
  await context.route('**/*', async (route) => {
    if (route.request().resourceType() !== 'document') return route.continue()
    const response = await route.fetch({ maxRedirects: 0 })
    const body = (await response.text())
      .replace(/<script\b[^>]*>[\s\S]*?<\/script>/gi, '')
      .replace(/<\/?noscript>/gi, '')
    await route.fulfill({ response, body })
  })
}

/** One browser context per kind of visit, made on first use and closed after the file. */
const contexts = new Map<string, BrowserContext>()
async function pageFor(who: Who, options: { lang?: 'ko'; noScript?: boolean } = {}): Promise<Page> {
  const key = `${who}:${options.lang ?? 'en'}:${options.noScript ? 'noscript' : 'script'}`
  let context = contexts.get(key)
  if (!context) {
    context = await app.browser.newContext({ baseURL: app.service.url, viewport: DESKTOP })
    if (options.noScript) await withoutScripts(context)
    const session =
      who === 'admin'
        ? cookies.admin
        : who === 'editor'
          ? made.editorCookie
          : who === 'viewer'
            ? cookies.viewer
            : ''
    const jar = [{ name: 'lang', value: options.lang ?? 'en', url: app.service.url }]
    if (session) {
      const [name, value] = session.split('=')
      jar.push({ name: name!, value: value!, url: app.service.url })
    }
    await context.addCookies(jar)
    contexts.set(key, context)
  }
  const [open] = context.pages()
  return open ?? context.newPage()
}
afterAll(async () => {
  for (const context of contexts.values()) await context.close()
})

interface AxeViolation {
  id: string
  impact: string | null
  help: string
  nodes: { target: string[] }[]
}

/** What is wrong with the page as it is now, at the current viewport: one line per problem. */
async function problemsOf(page: Page, where: string, options: { bare: boolean }): Promise<string[]> {
  const problems: string[] = []
  const size = page.viewportSize()!
  if (!options.bare) {
    const header = await page.evaluate(() =>
      Boolean(document.querySelector('header.site-header, [role="banner"]')),
    )
    if (!header) problems.push(`${where}: no site header`)
  }
  const { scrollWidth, innerWidth } = await page.evaluate(() => ({
    scrollWidth: document.documentElement.scrollWidth,
    innerWidth: window.innerWidth,
  }))
  if (scrollWidth > innerWidth) {
    const wide = await page.evaluate((limit) => {
      // The deepest elements that reach past the window's right edge: where the sideways scroll comes from.
      const out: string[] = []
      for (const el of Array.from(document.querySelectorAll('body *'))) {
        const box = el.getBoundingClientRect()
        if (box.right <= limit + 1 || box.width === 0) continue
        if (Array.from(el.children).some((c) => c.getBoundingClientRect().right > limit + 1)) continue
        const cls = typeof el.className === 'string' && el.className ? `.${el.className.split(' ')[0]}` : ''
        out.push(`${el.tagName.toLowerCase()}${cls} (right ${Math.round(box.right)})`)
        if (out.length >= 3) break
      }
      return out
    }, innerWidth)
    problems.push(`${where}: scrolls sideways (${scrollWidth} > ${innerWidth} px) at ${wide.join(', ')}`)
  }
  const duplicates = await page.evaluate(() => {
    const seen = new Map<string, number>()
    for (const el of Array.from(document.querySelectorAll('[id]')))
      seen.set(el.id, (seen.get(el.id) ?? 0) + 1)
    return [...seen].filter(([, n]) => n > 1).map(([id]) => id)
  })
  if (duplicates.length) problems.push(`${where}: duplicate ids ${duplicates.join(', ')}`)
  if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(AXE_SOURCE)
  const violations = await page.evaluate(
    (tags) =>
      (
        window as unknown as {
          axe: { run: (c: Document, o: unknown) => Promise<{ violations: AxeViolation[] }> }
        }
      ).axe
        .run(document, { runOnly: { type: 'tag', values: tags }, resultTypes: ['violations'] })
        .then((r) =>
          r.violations.map((v) => ({
            id: v.id,
            impact: v.impact,
            help: v.help,
            nodes: v.nodes.map((n) => ({ target: n.target.map(String) })),
          })),
        ),
    AXE_TAGS,
  )
  for (const v of violations) {
    if (v.impact !== 'serious' && v.impact !== 'critical') continue
    const targets = v.nodes.slice(0, 4).map((n) => n.target.join(' '))
    const more = v.nodes.length > 4 ? ` (+${v.nodes.length - 4} more)` : ''
    problems.push(
      `${where} ${size.width}px: axe ${v.id} (${v.impact}) ${v.help}: ${targets.join(' | ')}${more}`,
    )
  }
  return problems
}

/** Opens the page at desktop size, checks it, then at phone size, checks it again: the problems found. */
async function visit(page: Page, c: PageCase, where: string): Promise<string[]> {
  const path = typeof c.path === 'function' ? c.path() : c.path
  await page.setViewportSize(DESKTOP)
  const response = await page.goto(path, { waitUntil: 'networkidle' })
  const problems: string[] = []
  const expected = c.act ? 200 : (c.status ?? 200)
  if (response?.status() !== expected)
    problems.push(`${where}: status ${response?.status()}, not ${expected}`)
  if (c.act) {
    await c.act(page)
    // Without JavaScript the answer is a new document, which streams: measure it once it is whole.
    await page.waitForLoadState('networkidle')
  }
  if (c.landsOn && !c.landsOn.test(new URL(page.url()).pathname + new URL(page.url()).search)) {
    problems.push(`${where}: landed on ${page.url()}`)
  }
  problems.push(...(await problemsOf(page, where, { bare: Boolean(c.bare) })))
  await page.setViewportSize(PHONE)
  problems.push(...(await problemsOf(page, where, { bare: Boolean(c.bare) })))
  return problems
}

describe('every page at 1280×800 and 390×844: header, no sideways scroll, no serious axe violation', () => {
  for (const c of PAGES) {
    const name = `${c.who} ${c.label ?? c.path}`
    it(name, async () => {
      const page = await pageFor(c.who)
      expect(await visit(page, c, name)).toEqual([])
    })
  }
})

describe('in Korean', () => {
  for (const [who, path] of KOREAN) {
    const c = pageCase(who, path)
    const name = `ko ${who} ${path}`
    it(name, async () => {
      const page = await pageFor(who, { lang: 'ko' })
      expect(await visit(page, c, name)).toEqual([])
      expect(await page.locator('html').getAttribute('lang')).toBe('ko')
    })
  }
})

describe('with JavaScript off', () => {
  for (const [who, path] of NO_SCRIPT) {
    const c = pageCase(who, path)
    const name = `no-js ${who} ${path}`
    it(name, async () => {
      const page = await pageFor(who, { noScript: true })
      expect(await visit(page, c, name)).toEqual([])
      expect(await page.locator('script').count(), 'no script in the page').toBe(0)
    })
  }
})

describe('keyboard focus', () => {
  it('shows a visible outline on a focused link, button and text field', async () => {
    const page = await pageFor('viewer')
    await page.setViewportSize(DESKTOP)
    await page.goto('/check', { waitUntil: 'networkidle' })
    const outlines: Record<string, string> = {}
    // Tab through the page until a link, a button and a text field have each had the keyboard focus.
    for (let i = 0; i < 60 && Object.keys(outlines).length < 3; i++) {
      await page.keyboard.press('Tab')
      const focused = await page.evaluate(() => {
        const el = document.activeElement as HTMLElement | null
        if (!el || el === document.body) return null
        const style = getComputedStyle(el)
        const kind =
          el.tagName === 'A'
            ? 'link'
            : el.tagName === 'BUTTON'
              ? 'button'
              : el.tagName === 'TEXTAREA' ||
                  (el.tagName === 'INPUT' && (el as HTMLInputElement).type === 'text')
                ? 'field'
                : null
        return kind ? { kind, outline: `${style.outlineStyle} ${style.outlineWidth}` } : null
      })
      if (focused && !(focused.kind in outlines)) outlines[focused.kind] = focused.outline
    }
    expect(Object.keys(outlines).sort()).toEqual(['button', 'field', 'link'])
    // The site's own ring (app.css :focus-visible), not the browser's thin default (`auto 1px`).
    for (const [kind, outline] of Object.entries(outlines))
      expect(outline, `${kind} focus outline`).toBe('solid 2px')
  })
})
