import { beforeAll, describe, expect, it } from 'vitest'
import type { BrowserContext, Page } from 'playwright-core'
import { watchConsole } from './harness.ts'
import { apiOf, SESSION_COOKIE, useAdminAndViewer, useAppAndBrowser } from './use-app.ts'

/**
 * Data tables on a phone (issue 27 item 5): at 390×844 the term list, the check results, the import report and
 * a term's history stack (each row a card, each cell with its column's label) and no page scrolls sideways; at
 * 1280×800 they are still tables.
 */

const app = useAppAndBrowser()
const accounts = useAdminAndViewer(app)
const api = apiOf(app)

const LONG_NAME = 'Distributed Transaction Coordination Service Endpoint Identifier Registry'
const LONG_NOTATION = 'DISTRIBUTEDTRANSACTIONCOORDINATIONSERVICEENDPOINTIDENTIFIER'

beforeAll(async () => {
  const terms = [
    {
      name: LONG_NAME,
      slug: 'dtcs-registry',
      fullName: `${LONG_NAME} (the one used by every payment team)`,
      notations: [
        { text: LONG_NOTATION, kind: 'deprecated', lang: 'en' },
        { text: 'DTCS 엔드포인트 식별자 레지스트리', kind: 'admitted', lang: 'ko' },
      ],
      definition: 'A registry that keeps every endpoint identifier of the coordination service. '.repeat(4),
    },
    {
      name: 'Message Queue',
      slug: 'message-queue',
      notations: [{ text: '메세지 큐', kind: 'deprecated', lang: 'ko' }],
      definition: 'A buffer between services.',
    },
  ]
  for (const body of terms) {
    const res = await api('/terms', { method: 'POST', cookie: accounts.admin, body })
    expect(res.status, await res.clone().text()).toBe(201)
  }
  const edit = await api('/terms/message-queue', {
    method: 'PATCH',
    cookie: accounts.admin,
    body: { baseRevision: 1, definition: 'A durable buffer between services.', note: 'clarify' },
  })
  expect(edit.status, await edit.clone().text()).toBe(200)
})

const PHONE = { width: 390, height: 844 }
const DESKTOP = { width: 1280, height: 800 }

async function contextAt(viewport: { width: number; height: number }, lang?: 'ko'): Promise<BrowserContext> {
  const context = await app.browser.newContext({ baseURL: app.service.url, viewport })
  const [name, value] = accounts.admin.split('=') as [string, string]
  expect(name).toBe(SESSION_COOKIE)
  await context.addCookies([
    { name, value, url: app.service.url },
    ...(lang ? [{ name: 'lang', value: lang, url: app.service.url }] : []),
  ])
  return context
}

/** How wide the page is (the phone's 390 px unless something pushes it sideways). */
const pageWidth = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth)

/** The first body row of a stacked table: its display, and each cell's label as drawn before the value. */
function firstRow(page: Page, table: string) {
  return page
    .locator(`${table} tbody tr`)
    .first()
    .evaluate((tr) => ({
      display: getComputedStyle(tr).display,
      cells: [...tr.querySelectorAll('td')].map((td) => ({
        label: td.dataset.label,
        before: getComputedStyle(td, '::before').content,
        shown: getComputedStyle(td).display !== 'none',
      })),
      /** The narrowest control of the row (a radio squeezed by its cell would be a few pixels wide). */
      narrowestControl: Math.min(
        ...[...tr.querySelectorAll('input, select, button')].map((c) => c.getBoundingClientRect().width),
      ),
      headerShown: (() => {
        const head = tr.closest('table')!.querySelector('thead')!.getBoundingClientRect()
        return head.width > 1 && head.height > 1
      })(),
    }))
}

/** The four pages with their stacked tables, opened the way a user gets to them. */
const VIEWS: { name: string; table: string; labels: string[]; open: (page: Page) => Promise<void> }[] = [
  {
    name: 'the term list',
    table: 'table.terms-table',
    labels: ['Primary name', 'Other names', 'Notations', 'Status', 'Domains', 'Last change'],
    open: async (page) => {
      await page.goto('/terms')
    },
  },
  {
    name: 'the check results',
    table: 'table.findings',
    labels: ['Line:column', 'Notation', 'Term', 'Kind of use', 'Finding', 'Preferred form', 'Severity'],
    open: async (page) => {
      await page.goto('/check')
      await page.fill('#check-text', `We call the ${LONG_NOTATION} and the 메세지 큐 every day.`)
      await page.getByRole('button', { name: 'Check', exact: true }).click()
      await page.locator('table.findings tbody tr').first().waitFor()
    },
  },
  {
    name: 'the import report',
    table: 'table.import-report',
    labels: ['Row', 'Result', 'Address (slug)', 'Primary name', 'Reason', 'Changes'],
    open: async (page) => {
      await page.goto('/import')
      await page.fill(
        'textarea[name="content"]',
        [
          'slug,name,definition',
          `dtcs-registry,${LONG_NAME},A much shorter definition of the registry that replaces the long one.`,
          `another-${LONG_NOTATION.toLowerCase()},Another ${LONG_NAME},New.`,
        ].join('\n'),
      )
      await page.getByRole('button', { name: 'Dry run' }).click()
      await page.getByTestId('import-report').waitFor()
    },
  },
  {
    name: 'a term history',
    table: 'table.revision-list',
    labels: ['From', 'To', 'Revision', 'When', 'By', 'Summary'],
    open: async (page) => {
      await page.goto('/terms/message-queue/history?from=1&to=2')
    },
  },
]

describe('data tables on a phone', () => {
  for (const view of VIEWS) {
    it(`${view.name} stacks at 390 px and stays a table at 1280 px`, async () => {
      const phone = await contextAt(PHONE)
      const page = await phone.newPage()
      const errors = watchConsole(page)
      await view.open(page)
      expect(await pageWidth(page), 'no sideways scroll at 390 px').toBeLessThanOrEqual(PHONE.width)
      const stacked = await firstRow(page, view.table)
      expect(stacked.display).toBe('block')
      expect(stacked.headerShown).toBe(false)
      expect(stacked.narrowestControl).toBeGreaterThanOrEqual(12)
      expect(stacked.cells.map((c) => c.label)).toEqual(view.labels)
      for (const cell of stacked.cells.filter((c) => c.shown)) {
        expect(cell.before, `${cell.label} is drawn before its value`).toContain(`${cell.label}: `)
      }
      expect(errors).toEqual([])
      await phone.close()

      const desktop = await contextAt(DESKTOP)
      const wide = await desktop.newPage()
      await view.open(wide)
      const row = await firstRow(wide, view.table)
      expect(row.display).toBe('table-row')
      expect(row.headerShown).toBe(true)
      expect(row.cells.every((c) => c.before === 'none' || c.before === 'normal')).toBe(true)
      expect(await pageWidth(wide)).toBeLessThanOrEqual(DESKTOP.width)
      await desktop.close()
    })
  }

  it('labels the cells in the reader’s language, and the term editor fits a phone', async () => {
    const phone = await contextAt(PHONE, 'ko')
    const page = await phone.newPage()
    const response = await page.goto('/terms')
    // The labels as the page's bytes carry them: React 18.3's Node renderer padded a chunk with NUL bytes where a
    // Korean character did not fit at its end ("대\0\0표 이름"), which Chromium shows as U+FFFD; the page is now
    // rendered by React's web-stream renderer (app/entry.server.tsx), and this fails if the padding comes back.
    const html = (await response!.body()).toString('utf8')
    expect(html.includes('\0'), 'a NUL byte in the page').toBe(false)
    const firstRowHtml = html.slice(html.indexOf('<tbody'), html.indexOf('</tr>', html.indexOf('<tbody')))
    const labels = [...firstRowHtml.matchAll(/data-label="([^"]*)"/g)].map((m) => m[1])
    expect(labels).toEqual(['대표 이름', '다른 이름', '표기', '상태', '도메인', '마지막 변경'])
    for (const address of ['/terms/new', '/terms/dtcs-registry/edit', '/terms/dtcs-registry']) {
      await page.goto(address)
      expect(await pageWidth(page), address).toBeLessThanOrEqual(PHONE.width)
    }
    await phone.close()
  })
})
