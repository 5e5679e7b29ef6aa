import crypto from 'node:crypto'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import zlib from 'node:zlib'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { syncEn, syncKo } from '#app/lib/messages/sync.ts'
import type { ApplyLine } from '#app/pages/sync-page.server.ts'
import * as syncPage from '#app/routes/admin.sync.tsx'
import * as syncApply from '#app/routes/admin.sync.apply.tsx'
import * as syncExport from '#app/routes/admin.sync.export.tsx'
import { updateTerm } from '#app/services/terms/write.server.ts'
import { em } from '#db/orm.ts'
import { createTerm, createUser, TEST_ORIGIN, type TestUser } from '#tests/factories.ts'
import { elementsWith, elementWith, pageText, usePageServer, type PageAnswer } from '#tests/page-server.ts'
import { useInstallations } from '#tests/sync-installations.ts'
import { createBundleWriter } from '#sync/bundle-io.ts'
import {
  BUNDLE_FORMAT,
  BUNDLE_FORMAT_VERSION,
  bundleFileName,
  type BundleHeader,
} from '#sync/bundle-schema.ts'

/**
 * The admin sync page (issue 30, "Admin screen") over real HTTP, as a browser without JavaScript uses it, on
 * two installations: the sender's administrator exports a full bundle and two incremental ones through the
 * page's export button (downloads named like the bundle, the temporary files gone); the receiver's uploads
 * them: a damaged file is one clear message and nothing else, a chain with a hole says a bundle is missing,
 * a preview groups entries by action with the conflict highlighted and an updated term's field changes, and
 * applying leads to the result with a flash, the terms written and the history naming who applied. The page
 * is for administrators only, in English and Korean.
 */

const installations = useInstallations(['sender', 'receiver'])

const pages = usePageServer({
  'routes/admin.sync': { path: 'admin/sync', module: syncPage },
  'routes/admin.sync.export': { path: 'admin/sync/export', module: syncExport },
  'routes/admin.sync.apply': { path: 'admin/sync/apply', module: syncApply },
})

interface Bundle {
  name: string
  bytes: Buffer
}

/** The bundles the sender's page exported: full, then two incremental ones. */
const bundles: Bundle[] = []
let receiverAdmin: TestUser

/** A multipart post of the upload form, as a browser sends it. */
async function upload(files: Bundle[], session: TestUser, fields: Record<string, string> = {}) {
  const form = new FormData()
  for (const file of files) form.append('bundles', new Blob([new Uint8Array(file.bytes)]), file.name)
  for (const [name, value] of Object.entries(fields)) form.append(name, value)
  const res = await fetch(`${pages.url()}/admin/sync`, {
    method: 'POST',
    redirect: 'manual',
    headers: { cookie: session.sessionHeaders.cookie!, origin: TEST_ORIGIN, 'accept-language': 'en' },
    body: form,
  })
  return { status: res.status, location: res.headers.get('location'), html: await res.text() }
}

/** The uploads this file made (removed after it, as the page itself removes them after a day). */
const uploadIds: string[] = []
afterAll(() => {
  for (const id of uploadIds) {
    fs.rmSync(path.join(os.tmpdir(), 'glossary-sync-uploads', id), { recursive: true, force: true })
  }
})

/** Uploads and follows the redirect to the preview. */
async function previewOf(files: Bundle[], fields: Record<string, string> = {}) {
  const res = await upload(files, receiverAdmin, fields)
  expect(res.status, res.html.slice(0, 400)).toBe(302)
  const match = /^\/admin\/sync\?upload=([0-9a-f-]{36})/.exec(res.location ?? '')
  expect(match, res.location ?? '').not.toBeNull()
  uploadIds.push(match![1]!)
  const page = await pages.get(res.location!, receiverAdmin.sessionHeaders)
  expect(page.status, pageText(page.html).slice(0, 400)).toBe(200)
  return { uploadId: match![1]!, page }
}

/**
 * Follows an apply started without JavaScript: its page shows the progress and refreshes itself every second
 * (checked on the first answer while it runs) until the apply has ended, then leads to the result.
 */
async function appliedAt(address: string): Promise<PageAnswer> {
  for (let asked = 0; asked < 600; asked++) {
    const page = await pages.get(address, receiverAdmin.sessionHeaders)
    if (page.status === 302) return page
    expect(page.status, pageText(page.html).slice(0, 400)).toBe(200)
    const applying = partOf(page.html, 'data-testid="sync-applying"')
    expect(applying).toContain('data-state="running"')
    expect(page.html).toMatch(/<meta http-equiv="refresh" content="1"\/?>/)
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  throw new Error(`the apply at ${address} did not end`)
}

const partOf = elementWith
const partsOf = elementsWith

const bundlesOf = (page: PageAnswer) => partsOf(page.html, 'data-testid="sync-bundle"')
const outcomeOf = (bundle: string) => /data-outcome="([a-z_]+)"/.exec(bundle)![1]
const termCount = async () =>
  Number(
    (await em().execute<{ n: string }[]>('select count(*) as n from terms where deleted_at is null'))[0]!.n,
  )

/** The export temp folders of this process's page (each removed once its download is sent). */
const exportDirs = () =>
  fs.readdirSync(os.tmpdir()).filter((name) => name.startsWith('glossary-sync-export-'))

beforeAll(async () => {
  // At the sender: three terms, a full export, then one change per incremental export, all through the page.
  const admin = await createUser({ role: 'admin', name: 'Sam Sender' })
  const ledger = await createTerm({ name: 'Settlement Ledger', definition: 'The book accounts settle into.' })
  await createTerm({ name: 'Clearing House', definition: 'Where payments are cleared.' })
  await createTerm({ name: 'Shared Name', definition: 'The sender’s meaning.' })
  const before = new Set(exportDirs())
  const exportOnce = async (kind: 'full' | 'incremental', label = '') => {
    const res = await fetch(`${pages.url()}/admin/sync/export`, {
      method: 'POST',
      redirect: 'manual',
      headers: {
        cookie: admin.sessionHeaders.cookie!,
        origin: TEST_ORIGIN,
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: new URLSearchParams({ kind, label }).toString(),
    })
    expect(res.status, res.status === 200 ? '' : await res.text()).toBe(200)
    const disposition = res.headers.get('content-disposition') ?? ''
    const name = /filename\*=UTF-8''([^;]+)/.exec(disposition)?.[1]
    expect(name, disposition).toBeDefined()
    const bytes = Buffer.from(await res.arrayBuffer())
    expect(Number(res.headers.get('content-length'))).toBe(bytes.length)
    bundles.push({ name: decodeURIComponent(name!), bytes })
  }
  await exportOnce('full', '동기화 Test')
  await updateTerm({
    idOrSlug: ledger.id,
    input: { baseRevision: 1, definition: 'The book every account settles into at night.', note: '' },
    actorId: admin.user.id,
  })
  await exportOnce('incremental')
  await createTerm({ name: 'Netting', definition: 'Offsetting what two parties owe each other.' })
  await exportOnce('incremental')
  // Each folder is removed once its file is sent, just after the answer ends.
  await vi.waitFor(() => expect(exportDirs().filter((name) => !before.has(name))).toEqual([]))

  await installations.use('receiver')
  receiverAdmin = await createUser({ role: 'admin', name: 'Rita Receiver' })
  // A local term whose address the sender's "Shared Name" wants: that item is a conflict (rule e).
  await createTerm({
    name: 'Shared Name',
    definition: 'The receiver’s own meaning.',
    actorId: receiverAdmin.user.id,
  })
})

describe('the export button (at the sender)', () => {
  it('downloads bundles named like the bundle, label first, one gzip JSON-lines file each', () => {
    expect(bundles).toHaveLength(3)
    expect(bundles[0]!.name).toMatch(/^동기화-test-\d{8}T\d{6}Z-000001\.glossary-sync\.json\.gz$/)
    expect(bundles[1]!.name).toMatch(/-000002\.glossary-sync\.json\.gz$/)
    const lines = zlib.gunzipSync(bundles[0]!.bytes).toString('utf8').trim().split('\n')
    const header = JSON.parse(lines[0]!) as { record: string; kind: string; sequence: number }
    expect(header).toMatchObject({ record: 'header', kind: 'full', sequence: 1 })
    expect(JSON.parse(lines.at(-1)!)).toMatchObject({ record: 'end' })
    expect(
      (JSON.parse(zlib.gunzipSync(bundles[1]!.bytes).toString('utf8').split('\n')[0]!) as { kind: string })
        .kind,
    ).toBe('incremental')
  })
})

describe('the sync page (at the receiver)', () => {
  it('is for administrators: a visitor is sent to sign in, an editor refused', async () => {
    const visitor = await pages.get('/admin/sync')
    expect(visitor.status).toBe(302)
    expect(visitor.location).toBe('/login?redirectTo=%2Fadmin%2Fsync')
    const editor = await createUser({ role: 'editor' })
    expect((await pages.get('/admin/sync', editor.sessionHeaders)).status).toBe(403)
    expect((await upload(bundles.slice(0, 1), editor)).status).toBe(403)
    const exported = await pages.post('/admin/sync/export', { kind: 'full' }, editor.sessionHeaders)
    expect(exported.status).toBe(403)
  })

  it('shows the upload and export forms, this installation’s origin and an empty history', async () => {
    const page = await pages.get('/admin/sync', receiverAdmin.sessionHeaders)
    expect(page.status).toBe(200)
    const text = pageText(page.html)
    expect(text).toContain(syncEn['sync.title'])
    expect(text).toContain(syncEn['sync.noExport'])
    expect(text).toContain(syncEn['sync.history.empty'])
    expect(page.html).toMatch(/enctype="multipart\/form-data"/i)
    expect(page.html).toMatch(/<input[^>]*type="file"[^>]*name="bundles"[^>]*multiple/)
    expect(page.html).toContain('action="/admin/sync/export"')
  })

  it('refuses an upload without a file, at the file field', async () => {
    // no part at all, and the part a browser sends for a file input left empty
    for (const files of [[], [{ name: '', bytes: Buffer.alloc(0) }]]) {
      const res = await upload(files, receiverAdmin)
      expect(res.status).toBe(400)
      expect(pageText(res.html)).toContain(syncEn['sync.upload.none'])
      expect(res.html).toContain('id="sync-bundles-error"')
    }
  })

  it('says what is wrong with a damaged bundle, and nothing else', async () => {
    const bytes = Buffer.from(bundles[0]!.bytes)
    bytes[Math.floor(bytes.length / 2)]! ^= 0xff
    const { page } = await previewOf([{ name: bundles[0]!.name, bytes }])
    const invalid = partOf(page.html, 'data-testid="sync-invalid"')
    expect(invalid).toMatch(/data-problem="(corrupt|tampered|truncated|invalid)"/)
    expect(pageText(invalid)).toContain(syncEn['sync.invalid.nothingWritten'])
    expect(page.html).not.toContain('data-testid="sync-bundle"')
    expect(page.html).not.toContain('data-testid="sync-apply"')
    expect(await termCount()).toBe(1)
  })

  it('says a bundle is missing when an incremental does not follow what was applied', async () => {
    const { page } = await previewOf([bundles[0]!, bundles[2]!])
    expect(pageText(partOf(page.html, 'data-testid="sync-missing"'))).toContain('full bundle')
    const shown = bundlesOf(page)
    expect(shown.map(outcomeOf)).toEqual(['previewed', 'missing'])
  })

  it('previews a full bundle grouped by action, the conflict first and highlighted', async () => {
    const { page } = await previewOf([bundles[0]!])
    const [bundle] = bundlesOf(page)
    expect(outcomeOf(bundle!)).toBe('previewed')
    expect(pageText(bundle!)).toContain('#1')
    const groups = partsOf(bundle!, 'data-testid="sync-group"')
    const actions = groups.map((g) => /data-action="([a-z_]+)"/.exec(g)![1])
    expect(actions[0]).toBe('conflict')
    expect(actions).toContain('create')
    expect(groups[0]).toMatch(/class="sync-group sync-group-conflict"[^>]*open=""/)
    expect(pageText(groups[0]!)).toContain('Shared Name')
    expect(pageText(groups[actions.indexOf('create')]!)).toContain('Settlement Ledger')
    expect(await termCount()).toBe(1)
  })

  it('applies a preview: the result with a flash, the terms written, the history naming who applied', async () => {
    const { uploadId } = await previewOf([bundles[0]!])
    const started = await pages.post('/admin/sync', { upload: uploadId }, receiverAdmin.sessionHeaders)
    expect(started.status, pageText(started.html).slice(0, 400)).toBe(302)
    expect(started.location).toBe(`/admin/sync?applying=${uploadId}`)
    const res = await appliedAt(started.location!)
    expect(res.location).toBe(`/admin/sync?result=${uploadId}&announce=1`)
    // The result announces itself once: a flash saying what was applied, then the result's own address.
    const announced = await pages.get(res.location!, receiverAdmin.sessionHeaders)
    expect(announced.status).toBe(302)
    expect(announced.location).toBe(`/admin/sync?result=${uploadId}`)
    const flash = announced.headers.getSetCookie().find((line) => line.startsWith('glossary_flash='))
    expect(decodeURIComponent(flash ?? '')).toContain('"message":"flash.syncApplied"')
    const result = await pages.get(announced.location!, receiverAdmin.sessionHeaders)
    expect(result.status).toBe(200)
    const section = partOf(result.html, 'data-testid="sync-result"')
    expect(pageText(section)).toContain(syncEn['sync.result.applied'])
    expect(bundlesOf(result).map(outcomeOf)).toEqual(['applied'])
    const names = await em().execute<{ name: string }[]>(
      'select name from terms where deleted_at is null order by name',
    )
    expect(names.map((row) => row.name)).toEqual(['Clearing House', 'Settlement Ledger', 'Shared Name'])
    const history = partOf(result.html, 'data-testid="sync-history"')
    expect(pageText(history)).toContain('Rita Receiver')
    expect(pageText(history)).toContain('#1')

    // Applied once: the upload's bundles are gone, so the same id cannot apply again.
    const again = await pages.post('/admin/sync', { upload: uploadId }, receiverAdmin.sessionHeaders)
    expect(again.status).toBe(404)
  })

  it('previews an incremental bundle with an updated term’s changes, then skips it once applied', async () => {
    const { uploadId, page } = await previewOf([bundles[1]!])
    const [bundle] = bundlesOf(page)
    expect(outcomeOf(bundle!)).toBe('previewed')
    const update = partsOf(bundle!, 'data-testid="sync-group"').find((g) =>
      g.includes('data-action="update"'),
    )
    expect(update, 'an update group').toBeDefined()
    const changes = pageText(partOf(update!, 'data-testid="sync-changes"'))
    expect(changes).toContain('The book accounts settle into.')
    expect(changes).toContain('The book every account settles into at night.')
    expect(update).toMatch(/<del>The book accounts settle into\.<\/del>/)

    const applied = await pages.post(
      '/admin/sync',
      { upload: uploadId, keepLocalEdits: 'on' },
      receiverAdmin.sessionHeaders,
    )
    expect(applied.status).toBe(302)
    await appliedAt(applied.location!)
    const older = await previewOf([bundles[0]!])
    expect(bundlesOf(older.page).map(outcomeOf)).toEqual(['skipped_older'])
    expect(older.page.html).not.toContain('data-testid="sync-apply"')
    expect(pageText(older.page.html)).toContain(syncEn['sync.apply.nothing'])
  })

  it('keeps "keep local edits" from the upload to the apply form, and applies with streamed progress', async () => {
    const { uploadId, page } = await previewOf([bundles[2]!], { keepLocalEdits: 'on' })
    const apply = partOf(page.html, 'data-testid="sync-apply"')
    expect(apply).toMatch(/name="keepLocalEdits" value="on"/)

    // What the page's script does on "apply": the streamed route, progress lines, then how it ended.
    const streamed = async () => {
      const res = await fetch(`${pages.url()}/admin/sync/apply`, {
        method: 'POST',
        headers: {
          cookie: receiverAdmin.sessionHeaders.cookie!,
          origin: TEST_ORIGIN,
          accept: 'application/x-ndjson',
          'content-type': 'application/x-www-form-urlencoded',
        },
        body: new URLSearchParams({ upload: uploadId, keepLocalEdits: 'on' }).toString(),
      })
      expect(res.status).toBe(200)
      expect(res.headers.get('content-type')).toMatch(/application\/x-ndjson/)
      return (await res.text())
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as ApplyLine)
    }
    const lines = await streamed()
    expect(lines.at(-1)).toEqual({ state: 'done', uploadId })
    const progress = lines.filter((line) => line.state === 'progress')
    expect(progress.length).toBeGreaterThan(0)
    for (const line of progress) expect(line.done).toBeLessThanOrEqual(line.total)
    expect(await termCount()).toBe(4)
    const history = await pages.get('/admin/sync', receiverAdmin.sessionHeaders)
    const applied = partOf(partOf(history.html, 'data-testid="sync-history"'), '<tbody')
    expect(partsOf(applied, '<tr role="row"')).toHaveLength(3)

    // Applied: the same upload cannot be applied again, and the stream says why.
    const again = await streamed()
    expect(again).toEqual([{ state: 'failed', message: syncEn['sync.upload.gone'] }])
  })

  it('takes a bundle larger than an ordinary page body (12 MB): streamed to disk, then previewed', async () => {
    // A full bundle of another origin with three 5 MB images (random bytes behind a PNG signature): 15 MB that
    // gzip cannot shrink.
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'glossary-sync-large-'))
    const header: BundleHeader = {
      record: 'header',
      format: BUNDLE_FORMAT,
      formatVersion: BUNDLE_FORMAT_VERSION,
      release: '0.0.0',
      origin: { id: crypto.randomUUID(), name: 'Large origin' },
      label: null,
      exportedAt: new Date().toISOString(),
      sequence: 1,
      kind: 'full',
      previous: null,
      counts: {
        items: { domain: 0, category: 0, term: 0, relation: 0, wiki: 0 },
        attachments: 3,
        tombstones: 0,
      },
      manifest: [],
    }
    const file = path.join(dir, bundleFileName(header))
    const writer = await createBundleWriter(file, header)
    for (let i = 0; i < 3; i++) {
      const bytes = Buffer.concat([
        Buffer.from('89504e470d0a1a0a', 'hex'),
        crypto.randomBytes(5 * 1024 * 1024 - 8),
      ])
      await writer.attachment({
        record: 'attachment',
        id: crypto.randomUUID(),
        sha256: crypto.createHash('sha256').update(bytes).digest('hex'),
        contentType: 'image/png',
        size: bytes.length,
        data: bytes.toString('base64'),
      })
    }
    await writer.finish()
    const bytes = fs.readFileSync(file)
    fs.rmSync(dir, { recursive: true, force: true })
    expect(bytes.length).toBeGreaterThan(12 * 1024 * 1024)
    const { page } = await previewOf([{ name: path.basename(file), bytes }])
    expect(outcomeOf(bundlesOf(page)[0]!)).toBe('previewed')
  })

  it('shows an apply running in the background with its progress, refreshing itself, and says why one failed', async () => {
    const at = (state: object) => {
      const id = crypto.randomUUID()
      const dir = path.join(os.tmpdir(), 'glossary-sync-uploads', id)
      fs.mkdirSync(dir, { recursive: true })
      fs.writeFileSync(path.join(dir, 'apply-state.json'), JSON.stringify(state))
      uploadIds.push(id)
      return pages.get(`/admin/sync?applying=${id}`, receiverAdmin.sessionHeaders)
    }
    const running = await at({ state: 'running', done: 3, total: 10 })
    expect(running.status).toBe(200)
    expect(running.html).toMatch(/<meta http-equiv="refresh" content="1"\/?>/)
    const applying = partOf(running.html, 'data-testid="sync-applying"')
    expect(applying).toMatch(/<progress[^>]*max="10"[^>]*value="3"/)
    expect(pageText(applying)).toContain('3 of 10 done')
    const failed = await at({ state: 'failed', message: 'The bundles could not be applied.' })
    expect(failed.status).toBe(200)
    expect(failed.html).not.toContain('http-equiv="refresh"')
    expect(pageText(partOf(failed.html, 'data-testid="sync-applying"'))).toContain(
      'The bundles could not be applied.',
    )
    const unknown = await pages.get(
      `/admin/sync?applying=${crypto.randomUUID()}`,
      receiverAdmin.sessionHeaders,
    )
    expect(unknown.status).toBe(404)
  })

  it('reads in Korean', async () => {
    const page = await pages.get('/admin/sync', {
      cookie: `${receiverAdmin.sessionHeaders.cookie}; lang=ko`,
    })
    expect(page.status).toBe(200)
    const text = pageText(page.html)
    expect(text).toContain(syncKo['sync.title'])
    expect(text).toContain(syncKo['sync.upload.submit'])
    expect(text).toContain(syncKo['sync.history.title'])
  })
})
