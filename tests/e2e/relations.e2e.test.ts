import { beforeAll, describe, expect, it } from 'vitest'
import { watchConsole } from './harness.ts'
import { useAppAndBrowser } from './use-app.ts'

const app = useAppAndBrowser()
let cookie = ''

/** A JSON API call as the signed-in admin (cookie session, so the Origin header is required on writes). */
async function api(path: string, body?: unknown) {
  const res = await fetch(`${app.service.url}/api/v1${path}`, {
    method: body === undefined ? 'GET' : 'POST',
    headers: { 'content-type': 'application/json', cookie, origin: `http://localhost:${app.service.port}` },
    body: body === undefined ? undefined : JSON.stringify(body),
  })
  return { status: res.status, json: await res.json(), headers: res.headers }
}

beforeAll(async () => {
  const setup = await fetch(`${app.service.url}/api/v1/setup`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: 'admin@example.test', password: 'admin-password', name: 'Ada' }),
  })
  expect(setup.status).toBe(200)
  cookie = setup.headers.getSetCookie()[0]!.split(';')[0]!
  for (const term of [
    { name: 'API Gateway', slug: 'api-gateway', definition: 'The single entry point for API calls.' },
    { name: 'Rate Limiter', slug: 'rate-limiter', definition: 'Caps how many requests a client may send.' },
  ]) {
    expect((await api('/terms', term)).status).toBe(201)
  }
})

describe('relations in Chromium', () => {
  it('proposes a relation, approves it from the review queue and shows it on both term pages', async () => {
    const context = await app.browser.newContext({ baseURL: app.service.url })
    const [name, value] = cookie.split('=')
    await context.addCookies([{ name: name!, value: value!, url: app.service.url }])
    const page = await context.newPage()
    const errors = watchConsole(page)

    await page.goto('/relations/new')
    // The picker suggests terms as you type: a click chooses one, and so do the arrow keys and Enter.
    const source = page.getByRole('combobox', { name: 'Source term' })
    await source.pressSequentially('gatew')
    await page.getByRole('option', { name: /API Gateway/ }).click()
    expect(await source.inputValue()).toBe('API Gateway')
    expect(await page.getByTestId('picker-source-hint').innerText()).toMatch(/^Chosen: API Gateway/)
    const target = page.getByRole('combobox', { name: 'Target term' })
    await target.pressSequentially('limit')
    await page.getByRole('option', { name: /Rate Limiter/ }).waitFor()
    await page.getByRole('status').filter({ hasText: '1 term matches' }).waitFor()
    await target.press('ArrowDown')
    expect(await target.getAttribute('aria-activedescendant')).toBe('picker-target-list-0')
    await target.press('Enter')
    expect(await target.inputValue()).toBe('Rate Limiter')
    expect(await page.locator('#picker-target-list li').count()).toBe(0)
    await page.selectOption('select[name="relationType"]', 'part_of')
    await page.fill(
      'textarea[name="evidenceMd"]',
      'The gateway **embeds** a limiter. <script>alert(1)</script>',
    )
    await page.getByRole('button', { name: 'Propose' }).click()
    await page.waitForURL('**/relations?status=proposed')
    await page.getByText('Relation proposed: API Gateway → Rate Limiter. It waits for review.').waitFor()

    const item = page.locator('article.relation').first()
    expect(await item.getAttribute('data-status')).toBe('proposed')
    // Evidence is rendered Markdown; the script tag is shown as text, never run.
    expect(await item.locator('.evidence strong').innerText()).toBe('embeds')
    expect(await item.locator('.evidence script').count()).toBe(0)
    await item.getByRole('button', { name: 'Approve' }).click()
    await page.getByText('No relations here.').waitFor()
    // The card leaves the queue, and the flash says where it went.
    await page.getByText('Relation approved: API Gateway → Rate Limiter.').waitFor()

    await page.goto('/relations?status=approved')
    expect(await page.locator('article.relation[data-status="approved"]').count()).toBe(1)

    for (const [slug, other] of [
      ['api-gateway', 'Rate Limiter'],
      ['rate-limiter', 'API Gateway'],
    ] as const) {
      await page.goto(`/terms/${slug}`)
      await page.getByRole('link', { name: other }).first().waitFor()
      expect(await page.locator('[data-relation-type="part_of"]').count()).toBe(1)
    }
    expect(errors).toEqual([])
    await context.close()
  })

  it('without JavaScript, typed names are resolved on submit and a name of several terms offers a choice', async () => {
    expect(
      (await api('/terms', { name: 'Edge Cache', notations: [{ text: 'EW', kind: 'admitted' }] })).status,
    ).toBe(201)
    expect(
      (await api('/terms', { name: 'Edge Watch', notations: [{ text: 'ew', kind: 'admitted' }] })).status,
    ).toBe(201)
    const context = await app.browser.newContext({ baseURL: app.service.url, javaScriptEnabled: false })
    const [name, value] = cookie.split('=')
    await context.addCookies([{ name: name!, value: value!, url: app.service.url }])
    const page = await context.newPage()
    await page.goto('/relations/new')
    await page.getByLabel('Source term').fill('EW')
    await page.getByLabel('Target term').fill('rate limiter')
    await page.fill('textarea[name="evidenceMd"]', 'Both sit at the edge.')
    await page.getByRole('button', { name: 'Propose' }).click()
    const choice = page.getByRole('group', { name: 'Several terms are called “EW”. Choose one:' })
    await choice.waitFor()
    expect(await page.getByLabel('Target term').inputValue()).toBe('rate limiter')
    expect(await page.locator('textarea[name="evidenceMd"]').inputValue()).toBe('Both sit at the edge.')
    await choice.getByRole('radio', { name: /Edge Watch/ }).check()
    await page.getByRole('button', { name: 'Propose' }).click()
    await page.waitForURL('**/relations?status=proposed')
    await page.getByText('Relation proposed: Edge Watch → Rate Limiter. It waits for review.').waitFor()
    await context.close()
  })

  it('explains a revision conflict in the review queue', async () => {
    const relations = await api('/relations?status=approved')
    const [approved] = relations.json.items
    // A proposal recorded against revision 1, then the source term changes (revision 2).
    const terms = await api('/relations/terms?q=gateway')
    const gateway = terms.json.items[0]
    const limiter = (await api('/relations/terms?q=limiter')).json.items[0]
    const proposed = await api('/relations', {
      sourceTermId: gateway.id,
      targetTermId: limiter.id,
      relationType: 'related_to',
      evidenceMd: 'Often deployed together.',
      sourceRevision: gateway.revision,
      targetRevision: limiter.revision,
    })
    expect(proposed.status).toBe(201)
    const patch = await fetch(`${app.service.url}/api/v1/terms/api-gateway`, {
      method: 'PATCH',
      headers: { 'content-type': 'application/json', cookie, origin: `http://localhost:${app.service.port}` },
      body: JSON.stringify({
        baseRevision: gateway.revision,
        definition: 'The one entry point for all API calls.',
      }),
    })
    expect(patch.status).toBe(200)
    expect(approved).toBeDefined()

    const context = await app.browser.newContext({ baseURL: app.service.url, javaScriptEnabled: false })
    const [name, value] = cookie.split('=')
    await context.addCookies([{ name: name!, value: value!, url: app.service.url }])
    const page = await context.newPage()
    await page.goto('/relations?status=proposed')
    const item = page.locator(`article.relation[data-relation-id="${proposed.json.id}"]`)
    expect(await item.locator('.badge.stale').count()).toBe(1)
    await item.getByRole('button', { name: 'Approve' }).click()
    await page.getByRole('alert').waitFor()
    expect(await page.getByRole('alert').innerText()).toMatch(/changed since this relation was proposed/)
    await context.close()
  })
})

describe('wiki and meeting records in Chromium', () => {
  it('writes a wiki page with a preview, publishes it, and shows it on the linked term', async () => {
    const context = await app.browser.newContext({ baseURL: app.service.url })
    const [name, value] = cookie.split('=')
    await context.addCookies([{ name: name!, value: value!, url: app.service.url }])
    const page = await context.newPage()
    const errors = watchConsole(page)
    await page.goto('/wiki/new')
    await page.fill('input[name="title"]', '게이트웨이 운영 가이드')
    await page.fill(
      'textarea[name="content"]',
      '# Operating\n\nUse the **gateway**. <img src=x onerror=alert(1)> [x](javascript:alert(1))',
    )
    // Linked terms by name: typed, or added from the suggestions.
    await page.fill('textarea[name="termSlugs"]', 'Rate Limiter')
    await page.getByRole('combobox', { name: 'Add a linked term' }).pressSequentially('API Gate')
    await page.getByRole('option', { name: /API Gateway/ }).click()
    expect(await page.locator('textarea[name="termSlugs"]').inputValue()).toBe('Rate Limiter\napi-gateway')
    await page.getByRole('button', { name: 'Preview' }).click()
    const preview = page.getByTestId('wiki-preview')
    await preview.locator('strong').waitFor()
    // Raw HTML stays text and the javascript: link is not a link: no element can run anything.
    expect(await preview.locator('img, script, [onerror], a[href^="javascript"]').count()).toBe(0)
    expect(await preview.innerText()).toContain('<img src=x onerror=alert(1)>')
    await page.getByRole('button', { name: 'Save' }).click()
    await page.waitForURL(/\/wiki\/%EA%B2%8C|\/wiki\/게이트웨이/)
    await page.getByText('Wiki page “게이트웨이 운영 가이드” created.').waitFor()
    expect(await page.locator('.notice.warning').innerText()).toMatch(/not official evidence/)
    await page.getByRole('link', { name: 'Edit' }).click()
    await page.selectOption('select[name="status"]', 'published')
    await page.getByRole('button', { name: 'Save' }).click()
    await page.locator('.badge.status-published').waitFor()
    expect(await page.locator('.notice.warning').count()).toBe(0)
    await page.goto('/terms/api-gateway')
    await page.getByRole('link', { name: '게이트웨이 운영 가이드' }).waitFor()
    expect(errors).toEqual([])
    await context.close()
  })

  it('shows a meeting record as past discussion, and lets an admin archive it', async () => {
    const created = await api('/meetings', {
      title: 'Gateway review 2024-03',
      meetingDate: '2024-03-05T09:00:00Z',
      team: 'platform',
      content: 'We agreed to call it "API Gateway".\n<script>alert(1)</script>',
    })
    expect(created.status).toBe(201)
    const context = await app.browser.newContext({ baseURL: app.service.url, javaScriptEnabled: false })
    const [name, value] = cookie.split('=')
    await context.addCookies([{ name: name!, value: value!, url: app.service.url }])
    const page = await context.newPage()
    await page.goto('/meetings')
    await page.getByRole('link', { name: 'Gateway review 2024-03' }).click()
    // The page streams: wait for the whole document, or the record's text may be read half-parsed (it was, in CI).
    await page.waitForURL((url) => /^\/meetings\/[^/]+$/.test(url.pathname))
    expect(await page.getByRole('note').innerText()).toMatch(/not current policy/)
    expect(await page.locator('pre.original').innerText()).toContain('<script>alert(1)</script>')
    await page.getByRole('button', { name: 'Archive' }).click()
    await page.goto('/meetings')
    expect(await page.getByRole('link', { name: 'Gateway review 2024-03' }).count()).toBe(0)
    await page.goto('/meetings?status=archived')
    expect(await page.getByRole('link', { name: 'Gateway review 2024-03' }).count()).toBe(1)
    await context.close()
  })
})
