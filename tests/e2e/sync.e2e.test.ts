import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { syncEn } from '#app/lib/messages/sync.ts'
import { startService, watchConsole, type RunningService } from './harness.ts'
import { apiOf, SESSION_COOKIE, useAdminAndViewer, useAppAndBrowser } from './use-app.ts'

/**
 * The admin sync page in Chromium between two running installations of the built app (issue 30, "Admin
 * screen"): the sender's administrator downloads a full bundle with the page's export button, then an
 * incremental one after an edit; the receiver's administrator uploads the full one, previews it and applies it
 * with JavaScript (the streamed apply, then the result with its flash), and the incremental one without
 * JavaScript (the preview shows the edited definition before and after; the form posts and redirects).
 */

const receiver = useAppAndBrowser()
const receiverCookies = useAdminAndViewer(receiver)
const receiverApi = apiOf(receiver)
let sender: RunningService
let senderCookie = ''
const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'glossary-sync-e2e-'))
const files: string[] = []

beforeAll(async () => {
  sender = await startService('start')
  const senderApi = apiOf({ service: sender })
  const setup = await senderApi('/setup', {
    method: 'POST',
    body: { email: 'sender@example.test', password: 'sender password 1', name: 'Sam Sender' },
  })
  expect(setup.status).toBe(200)
  senderCookie = setup.headers
    .getSetCookie()
    .find((line) => line.startsWith(`${SESSION_COOKIE}=`))!
    .split(';')[0]!
  for (const term of [
    { name: 'Settlement Ledger', definition: 'The book accounts settle into.' },
    { name: 'Clearing House', definition: 'Where payments are cleared.' },
  ]) {
    const res = await senderApi('/terms', { method: 'POST', cookie: senderCookie, body: term })
    expect(res.status, await res.clone().text()).toBe(201)
  }
})

afterAll(async () => {
  await sender?.stop()
  fs.rmSync(folder, { recursive: true, force: true })
})

async function contextFor(service: RunningService, cookie: string, javaScriptEnabled: boolean) {
  const context = await receiver.browser.newContext({
    baseURL: service.url,
    javaScriptEnabled,
    acceptDownloads: true,
  })
  const [name, value] = cookie.split('=')
  await context.addCookies([{ name: name!, value: value!, url: service.url }])
  return context
}

/** Exports one bundle with the sender's page and keeps the downloaded file under its suggested name. */
async function exportWithPage(kind: 'full' | 'incremental') {
  const context = await contextFor(sender, senderCookie, true)
  const page = await context.newPage()
  const errors = watchConsole(page)
  await page.goto('/admin/sync', { waitUntil: 'networkidle' })
  await page.getByTestId('sync-export').locator(`input[name="kind"][value="${kind}"]`).check()
  const [download] = await Promise.all([
    page.waitForEvent('download'),
    page.getByRole('button', { name: syncEn['sync.export.submit'] }).click(),
  ])
  const file = path.join(folder, download.suggestedFilename())
  await download.saveAs(file)
  files.push(file)
  expect(errors).toEqual([])
  await context.close()
  return file
}

describe('offline sync in Chromium', () => {
  it('exports a full and an incremental bundle with the sender’s export button', async () => {
    const full = await exportWithPage('full')
    expect(path.basename(full)).toMatch(/-000001\.glossary-sync\.json\.gz$/)
    const senderApi = apiOf({ service: sender })
    const ledger = await senderApi('/terms/settlement-ledger', { cookie: senderCookie })
    const { revision } = (await ledger.json()) as { revision: number }
    const edit = await senderApi('/terms/settlement-ledger', {
      method: 'PATCH',
      cookie: senderCookie,
      body: { baseRevision: revision, definition: 'The book every account settles into at night.' },
    })
    expect(edit.status, await edit.clone().text()).toBe(200)
    const incremental = await exportWithPage('incremental')
    expect(path.basename(incremental)).toMatch(/-000002\.glossary-sync\.json\.gz$/)
  })

  it('with JavaScript: uploads, previews and applies the full bundle, then shows the result', async () => {
    const context = await contextFor(receiver.service, receiverCookies.admin, true)
    const page = await context.newPage()
    const errors = watchConsole(page)
    await page.goto('/admin/sync', { waitUntil: 'networkidle' })
    await page.locator('#sync-bundles').setInputFiles(files[0]!)
    await page.getByRole('button', { name: syncEn['sync.upload.submit'] }).click()
    await page.waitForURL(/\/admin\/sync\?upload=/)
    const preview = page.getByTestId('sync-preview')
    await preview.waitFor()
    const create = preview.locator('[data-testid="sync-group"][data-action="create"]')
    await create.locator('summary').click()
    expect(await create.innerText()).toContain('Settlement Ledger')

    // The script applies through the streamed route (progress), not the page's own form post.
    const streamed = page.waitForRequest((request) => request.url().endsWith('/admin/sync/apply'))
    await page.getByTestId('sync-apply').getByRole('button').click()
    expect((await streamed).method()).toBe('POST')
    await page.waitForURL(/\/admin\/sync\?result=[0-9a-f-]{36}$/)
    await page.getByTestId('sync-result').waitFor()
    expect(await page.locator('.flash').innerText()).toMatch(/Applied 1 bundle: 2 created/)
    expect(await page.getByTestId('sync-history').innerText()).toContain('Ada Admin')
    expect(errors).toEqual([])
    await context.close()

    const terms = await receiverApi('/terms/settlement-ledger', { cookie: receiverCookies.admin })
    expect(terms.status).toBe(200)
  })

  it('without JavaScript: previews the incremental bundle’s change and applies it', async () => {
    const context = await contextFor(receiver.service, receiverCookies.admin, false)
    const page = await context.newPage()
    await page.goto('/admin/sync')
    await page.locator('#sync-bundles').setInputFiles(files[1]!)
    await page.getByRole('button', { name: syncEn['sync.upload.submit'] }).click()
    await page.waitForURL(/\/admin\/sync\?upload=/)
    const update = page.locator('[data-testid="sync-group"][data-action="update"]')
    await update.locator('summary').click()
    const changes = await update.getByTestId('sync-changes').innerText()
    expect(changes).toContain('The book accounts settle into.')
    expect(changes).toContain('The book every account settles into at night.')
    // Readable on a phone: the preview, its diff open, never scrolls sideways at 390 px.
    await page.setViewportSize({ width: 390, height: 844 })
    const overflow = await page.evaluate(
      () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
    )
    expect(overflow).toBeLessThanOrEqual(0)

    await page.getByTestId('sync-apply').getByRole('button').click()
    await page.waitForURL(/\/admin\/sync\?result=[0-9a-f-]{36}$/)
    expect(await page.locator('.flash').innerText()).toMatch(/1 updated/)
    await context.close()

    const ledger = await receiverApi('/terms/settlement-ledger', { cookie: receiverCookies.admin })
    expect(((await ledger.json()) as { definition: string }).definition).toBe(
      'The book every account settles into at night.',
    )
  })
})
