import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { CreateWikiPageSchema, UpdateWikiPageSchema } from '#app/schemas/wiki.ts'
import { exportBundle } from '#app/services/sync/export.server.ts'
import { importBundles, type ImportReport } from '#app/services/sync/import.server.ts'
import { localItems } from '#app/services/sync/items.server.ts'
import { createWikiPage, updateWikiPage } from '#app/services/wiki/write.server.ts'
import { em } from '#db/orm.ts'
import { createUser, type TestUser } from '#tests/factories.ts'
import { useInstallations } from '#tests/sync-installations.ts'
import { readBundleHeader, readBundleRecords } from '#sync/bundle-io.ts'
import { itemHash } from '#sync/bundle-schema.ts'

/**
 * A wiki page's term links switch (issue 32) travels with offline sync: a display setting without a revision,
 * carried in the page's content only when switched off, so a page with the default keeps the hash it had
 * before the setting existed; switching it at the origin is an update at the receiver that writes no revision.
 */

const installations = useInstallations(['sender', 'receiver'])
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'glossary-sync-term-links-'))
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }))

const at = {} as {
  editor: TestUser
  pages: { off: string; on: string }
  files: { full: string; switched: string; allOn: string }
}

async function exportInto(name: string, incremental: boolean): Promise<string> {
  const out = path.join(dir, name)
  fs.mkdirSync(out)
  return (await exportBundle({ incremental, outDir: out, actorId: at.editor.user.id })).file
}

const pageRows = () =>
  em().execute<{ id: string; term_links: boolean; revision: number }[]>(
    'select id, term_links, revision from wiki_pages order by slug',
  )

async function bundleRecords(file: string) {
  const records = []
  for await (const record of readBundleRecords(file)) records.push(record)
  return records
}

async function wikiContents(): Promise<Map<string, Record<string, unknown>>> {
  const contents = new Map<string, Record<string, unknown>>()
  for await (const batch of localItems(em(), 'wiki')) {
    for (const item of batch) contents.set(item.id, item.content as Record<string, unknown>)
  }
  return contents
}

beforeAll(async () => {
  at.editor = await createUser({ role: 'editor', name: 'Eve Editor' })
  const actor = { id: at.editor.user.id, name: 'Eve Editor' }
  const page = async (title: string, termLinks: boolean) =>
    (
      await createWikiPage({
        input: CreateWikiPageSchema.parse({ title, content: `${title}.`, status: 'published', termLinks }),
        actor,
      })
    ).id
  at.pages = { off: await page('A links off', false), on: await page('B links on', true) }
  const full = await exportInto('full', false)
  for (const [slug, termLinks] of [
    ['a-links-off', true],
    ['b-links-on', false],
  ] as const) {
    await updateWikiPage({ slug, input: UpdateWikiPageSchema.parse({ termLinks }), actor })
  }
  const switched = await exportInto('switched', true)
  await updateWikiPage({ slug: 'b-links-on', input: UpdateWikiPageSchema.parse({ termLinks: true }), actor })
  at.files = { full, switched, allOn: await exportInto('all-on', true) }
})

describe('term links in offline sync', () => {
  it('carries the switch only when off, so a page with the default hashes as before', async () => {
    await installations.use('sender')
    const contents = await wikiContents()
    // Both pages are back to the default now: neither carries the switch.
    for (const content of contents.values()) expect(content).not.toHaveProperty('termLinks')
    const records = await bundleRecords(at.files.switched)
    const carried = records.filter((r) => r.record === 'item' && r.type === 'wiki')
    // A was switched back on (carried without the switch), B off (carried with it).
    const switchOf = new Map(carried.map((r) => [r.id, (r.content as { termLinks?: boolean }).termLinks]))
    expect([...switchOf].sort()).toEqual(
      [
        [at.pages.off, undefined],
        [at.pages.on, false],
      ].sort(),
    )
    const hashOf = (content: Record<string, unknown>) => itemHash('wiki', content)
    const b = carried.find((r) => r.id === at.pages.on)!
    const { termLinks: _, ...withoutSwitch } = b.content as Record<string, unknown>
    expect(hashOf(withoutSwitch)).toBe(hashOf(contents.get(at.pages.on)!))
  })

  it('writes format 2 only when a carried page has its term links off', async () => {
    expect((await readBundleHeader(at.files.full)).formatVersion).toBe(2)
    expect((await readBundleHeader(at.files.switched)).formatVersion).toBe(2)
    expect((await readBundleHeader(at.files.allOn)).formatVersion).toBe(1)
  })

  it('applies the switch of a new page, then a switch alone as an update without a revision', async () => {
    await installations.use('receiver')
    const admin = await createUser({ role: 'admin' })
    const actor = { id: admin.user.id, label: admin.user.email }
    const first: ImportReport = await importBundles([at.files.full], {
      apply: true,
      keepLocalEdits: false,
      actor,
    })
    expect(first.bundles[0]!.outcome).toBe('applied')
    expect(await pageRows()).toEqual([
      { id: at.pages.off, term_links: false, revision: 1 },
      { id: at.pages.on, term_links: true, revision: 1 },
    ])
    const second = await importBundles([at.files.switched], { apply: true, keepLocalEdits: false, actor })
    expect(second.bundles[0]!.outcome).toBe('applied')
    const actions = second.bundles[0]!.entries.filter((e) => e.type === 'wiki').map((e) => [
      e.originId,
      e.action,
    ])
    expect(actions.sort()).toEqual(
      [
        [at.pages.off, 'update'],
        [at.pages.on, 'update'],
      ].sort(),
    )
    expect(await pageRows()).toEqual([
      { id: at.pages.off, term_links: true, revision: 1 },
      { id: at.pages.on, term_links: false, revision: 1 },
    ])
    // The receiver's own view now hashes as the bundle's manifest: nothing looks edited here.
    const { manifest: entries } = await readBundleHeader(at.files.switched)
    const manifest = new Map(entries.filter((e) => e.type === 'wiki').map((e) => [e.id, e.hash]))
    const here = await wikiContents()
    for (const id of [at.pages.off, at.pages.on]) {
      expect(itemHash('wiki', here.get(id))).toBe(manifest.get(id))
    }
  })
})
