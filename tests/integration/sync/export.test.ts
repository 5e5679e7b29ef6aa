import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import zlib from 'node:zlib'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { CreateWikiPageSchema } from '#app/schemas/wiki.ts'
import { storeAttachment } from '#app/services/attachments/attachments.server.ts'
import { getRelation } from '#app/services/relations/read.server.ts'
import { patchRelation, proposeRelation } from '#app/services/relations/write.server.ts'
import { exportBundle, type ExportResult } from '#app/services/sync/export.server.ts'
import {
  attachmentRefs,
  localItems,
  rewriteAttachmentRefs,
  type LocalItem,
} from '#app/services/sync/items.server.ts'
import { syncOrigin } from '#app/services/sync/origin.server.ts'
import { createClassification } from '#app/services/terms/classification.server.ts'
import { deleteTerm, mergeTerm, updateTerm } from '#app/services/terms/write.server.ts'
import { createWikiPage } from '#app/services/wiki/write.server.ts'
import { SyncExport, SyncExportManifestEntry } from '#db/entities/sync.entity.ts'
import { em } from '#db/orm.ts'
import {
  BundleItemSchema,
  itemHash,
  SYNC_ITEM_TYPES,
  type BundleAttachment,
  type BundleHeader,
  type BundleItem,
  type BundleTombstone,
  type SyncItemType,
} from '#sync/bundle-schema.ts'
import { readBundleHeader, readBundleRecords, verifyBundle } from '#sync/bundle-io.ts'
import { createTerm, createUser, type TestUser } from '#tests/factories.ts'
import { useTestDb } from '#tests/setup/db.ts'

useTestDb()

/** The sender's side of offline sync (issue 30, decision 031): what a bundle carries, full and incremental. */

const outDir = fs.mkdtempSync(path.join(os.tmpdir(), 'glossary-sync-export-'))
afterAll(() => fs.rmSync(outDir, { recursive: true, force: true }))

/** A PNG as far as the upload's sniffing goes; `n` makes the bytes (and so the stored image) distinct. */
const png = (n: number) => new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, n, n + 1, n + 2])

interface Bundle {
  header: BundleHeader
  items: BundleItem[]
  attachments: BundleAttachment[]
  tombstones: BundleTombstone[]
  text: string
}

async function readBundle(file: string): Promise<Bundle> {
  const verified = await verifyBundle(file)
  const bundle: Bundle = {
    header: await readBundleHeader(file),
    items: [],
    attachments: [],
    tombstones: [],
    text: zlib.gunzipSync(fs.readFileSync(file)).toString('utf8'),
  }
  expect(verified.header).toEqual(bundle.header)
  for await (const record of readBundleRecords(file)) {
    if (record.record === 'item') bundle.items.push(BundleItemSchema.parse(record))
    if (record.record === 'attachment') bundle.attachments.push(record)
    if (record.record === 'tombstone') bundle.tombstones.push(record)
  }
  return bundle
}

const ids = (bundle: Bundle, type: SyncItemType) =>
  bundle.items.filter((i) => i.type === type).map((i) => i.id)
const item = <T extends SyncItemType>(bundle: Bundle, type: T, id: string) =>
  bundle.items.find((i) => i.type === type && i.id === id) as Extract<BundleItem, { type: T }> | undefined

async function allLocal(type: SyncItemType): Promise<LocalItem[]> {
  const out: LocalItem[] = []
  for await (const batch of localItems(em(), type, { batchSize: 2 })) out.push(...batch)
  return out
}

const exportNow = (incremental: boolean, actor: TestUser, label: string | null = null) =>
  exportBundle({ incremental, outDir, label, actorId: actor.user.id })

/** What the tests build at the sender. */
const at = {} as {
  editor: TestUser
  admin: TestUser
  image: string
  unreferenced: string
  dangling: string
  terms: Record<'withImage' | 'survivor' | 'merged' | 'doomed' | 'edited' | 'goneBefore', string>
  relations: Record<'kept' | 'toDoomed' | 'toReject' | 'proposed' | 'rejected', string>
  wiki: Record<'draft' | 'published' | 'archived', string>
}

async function relation(
  source: string,
  target: string,
  relationType: 'related_to' | 'is_a' | 'part_of',
  decision: 'approved' | 'rejected' | null,
): Promise<string> {
  const heads = await em().execute<{ id: string; revision: number }[]>(
    'select id, revision from terms where id = any(?::uuid[])',
    [`{${source},${target}}`],
  )
  const revision = (id: string) => heads.find((h) => h.id === id)!.revision
  const actor = { id: at.editor.user.id, role: 'editor' as const }
  const { id } = await proposeRelation({
    input: {
      sourceTermId: source,
      targetTermId: target,
      relationType,
      evidenceMd: 'Both name the same thing.',
      sourceRevision: revision(source),
      targetRevision: revision(target),
    },
    actor,
  })
  if (decision) {
    const { version } = await getRelation({ id })
    await patchRelation({ id, input: { action: decision, version }, actor })
  }
  return id
}

beforeAll(async () => {
  at.editor = await createUser({ role: 'editor', name: 'Eve Editor', email: 'eve@example.test' })
  at.admin = await createUser({ role: 'admin', name: 'Ada Admin', email: 'ada@example.test' })
  const actorId = at.editor.user.id
  await createClassification({
    kind: 'domain',
    input: { key: 'payments', nameKo: '결제', nameEn: 'Payments', sort: 2 },
  })
  await createClassification({
    kind: 'category',
    input: { key: 'ops', nameKo: '운영', nameEn: 'Operations', sort: 1 },
  })
  at.image = (await storeAttachment({ bytes: png(1), declaredType: 'image/png', actorId })).id
  at.unreferenced = (await storeAttachment({ bytes: png(2), declaredType: 'image/png', actorId })).id
  at.dangling = '00000000-0000-4000-8000-000000000001'
  const body = `![a](/api/v1/attachments/${at.image}) again ![b](/api/v1/attachments/${at.image.toUpperCase()}) and a lost one ![c](/api/v1/attachments/${at.dangling})`
  const term = async (name: string, extra: Record<string, unknown> = {}) =>
    (await createTerm({ name, actorId, ...extra })).id
  at.terms = {
    withImage: await term('Payment Gateway', {
      body,
      domains: ['payments'],
      categories: ['ops'],
      tags: ['b', 'a'],
    }),
    survivor: await term('Ledger'),
    merged: await term('Book of Accounts'),
    doomed: await term('Old Thing'),
    edited: await term('Settlement'),
    goneBefore: await term('Never Exported'),
  }
  await updateTerm({
    idOrSlug: at.terms.survivor,
    input: { baseRevision: 1, slug: 'general-ledger', note: '' },
    actorId,
  })
  await mergeTerm({ idOrSlug: at.terms.merged, input: { into: at.terms.survivor, note: '' }, actorId })
  await deleteTerm({ idOrSlug: at.terms.goneBefore, actorId: at.admin.user.id })
  at.relations = {
    kept: await relation(at.terms.withImage, at.terms.survivor, 'related_to', 'approved'),
    toDoomed: await relation(at.terms.withImage, at.terms.doomed, 'related_to', 'approved'),
    toReject: await relation(at.terms.edited, at.terms.survivor, 'part_of', 'approved'),
    proposed: await relation(at.terms.edited, at.terms.withImage, 'is_a', null),
    rejected: await relation(at.terms.survivor, at.terms.edited, 'is_a', 'rejected'),
  }
  const page = async (
    title: string,
    status: 'draft' | 'published' | 'archived',
    extra: Record<string, unknown> = {},
  ) =>
    (
      await createWikiPage({
        input: CreateWikiPageSchema.parse({ title, content: `About ${title}.`, status, ...extra }),
        actor: { id: actorId, name: 'Eve Editor' },
      })
    ).id
  at.wiki = {
    draft: await page('Draft page', 'draft'),
    published: await page('Published page', 'published', {
      content: `See ![x](/api/v1/attachments/${at.image}).`,
      termSlugs: ['settlement', 'payment-gateway', 'general-ledger'],
      domain: ['payments'],
    }),
    archived: await page('Archived page', 'archived'),
  }
})

describe('the carried items', () => {
  it('finds attachment references and rewrites only the mapped ones', () => {
    const a = '0a0b0c0d-0000-4000-8000-00000000000a'
    const b = '0a0b0c0d-0000-4000-8000-00000000000b'
    const text = `![](/api/v1/attachments/${a}) ![](http://host/api/v1/attachments/${b.toUpperCase()}) ![](/api/v1/attachments/${a}) /api/v1/attachments/not-an-id`
    expect(attachmentRefs(text)).toEqual([a, b])
    const local = '11111111-0000-4000-8000-000000000001'
    expect(rewriteAttachmentRefs(text, new Map([[a, local]]))).toBe(
      `![](/api/v1/attachments/${local}) ![](http://host/api/v1/attachments/${b.toUpperCase()}) ![](/api/v1/attachments/${local}) /api/v1/attachments/not-an-id`,
    )
  })

  it('builds each item with its hash, in batches by id, and by ids when asked', async () => {
    const terms = await allLocal('term')
    expect(terms.map((t) => t.id)).toEqual([...terms.map((t) => t.id)].sort())
    expect(terms.map((t) => t.id).sort()).toEqual(
      [at.terms.withImage, at.terms.survivor, at.terms.merged, at.terms.doomed, at.terms.edited].sort(),
    )
    for (const type of SYNC_ITEM_TYPES) {
      for (const local of await allLocal(type)) {
        expect(local.hash).toBe(itemHash(type, local.content))
        expect(BundleItemSchema.safeParse({ record: 'item', ...local }).success).toBe(true)
      }
    }
    const picked: LocalItem<'term'>[] = []
    for await (const batch of localItems(em(), 'term', { ids: [at.terms.edited, at.terms.goneBefore] })) {
      picked.push(...batch)
    }
    expect(picked.map((t) => t.id)).toEqual([at.terms.edited])
    expect(picked[0]!.author).toBe('Eve Editor')
  })

  it('builds the same term content when the stored revision lacks keys or orders them otherwise', async () => {
    const doomed = async () => (await allLocal('term')).find((t) => t.id === at.terms.doomed)
    const before = await doomed()
    await em().execute(
      `update term_revisions set content = jsonb_build_object('body', content->'body', 'slug', content->'slug',
              'name', content->'name', 'notations', content->'notations', 'domains', content->'domains',
              'categories', content->'categories', 'status', content->'status', 'definition', content->'definition')
        where term_id = ?`,
      [at.terms.doomed],
    )
    expect(await doomed()).toEqual(before)
  })

  it('makes the origin once and keeps it', async () => {
    const [a, b] = await Promise.all([syncOrigin(), syncOrigin()])
    expect(a).toEqual(b)
    expect(a.name).toBe(os.hostname())
    expect(await syncOrigin()).toEqual(a)
  })
})

describe('exporting bundles', () => {
  let first: ExportResult
  let full: Bundle

  it('makes the first export full even when an incremental one is asked for', async () => {
    first = await exportNow(true, at.editor)
    expect(first).toMatchObject({ sequence: 1, kind: 'full' })
    const origin = await syncOrigin()
    const base = origin.name
      .toLowerCase()
      .replace(/[^\p{L}\p{N}]+/gu, '-')
      .replace(/^-+|-+$/g, '')
    expect(path.basename(first.file)).toMatch(
      new RegExp(`^${base}-\\d{8}T\\d{6}Z-000001\\.glossary-sync\\.json\\.gz$`),
    )
    expect(path.dirname(first.file)).toBe(outDir)
    expect(first.bytes).toBe(fs.statSync(first.file).size)
    full = await readBundle(first.file)
    expect(full.header).toMatchObject({ origin, sequence: 1, kind: 'full', previous: null, label: null })
    expect(full.header.exportedAt).toBe(first.exportedAt)
    expect(full.header.counts).toEqual(first.counts)
  })

  it('carries every carried item, and the manifest names each with its hash', () => {
    expect(ids(full, 'term').sort()).toEqual(
      [at.terms.withImage, at.terms.survivor, at.terms.merged, at.terms.doomed, at.terms.edited].sort(),
    )
    expect(ids(full, 'relation').sort()).toEqual(
      [at.relations.kept, at.relations.toDoomed, at.relations.toReject].sort(),
    )
    expect(ids(full, 'wiki').sort()).toEqual(Object.values(at.wiki).sort())
    expect(full.items.filter((i) => i.type === 'domain').map((i) => i.content)).toEqual([
      { key: 'payments', nameKo: '결제', nameEn: 'Payments', sort: 2 },
    ])
    expect(full.items.filter((i) => i.type === 'category')).toHaveLength(1)
    // Items in the order a receiver applies them, and the manifest exactly what was carried.
    const order = full.items.map((i) => SYNC_ITEM_TYPES.indexOf(i.type))
    expect(order).toEqual([...order].sort((a, b) => a - b))
    expect(full.header.manifest.map((e) => `${e.type}:${e.id}:${e.hash}:${e.revision}`).sort()).toEqual(
      full.items.map((i) => `${i.type}:${i.id}:${i.hash}:${i.revision}`).sort(),
    )
    expect(full.header.counts).toEqual({
      items: { domain: 1, category: 1, term: 5, relation: 3, wiki: 3 },
      attachments: 1,
      tombstones: 0,
    })
    expect(full.tombstones).toEqual([])
  })

  it('carries merged terms, old addresses and every wiki status, with authors as names only', async () => {
    const merged = item(full, 'term', at.terms.merged)!
    expect(merged.content).toMatchObject({ status: 'merged', mergedInto: at.terms.survivor })
    const survivor = item(full, 'term', at.terms.survivor)!
    expect(survivor.content.oldSlugs).toEqual(['book-of-accounts', 'ledger'])
    expect(survivor.revision).toBe(3)
    const withImage = item(full, 'term', at.terms.withImage)!
    expect(withImage.content).toMatchObject({ domains: ['payments'], categories: ['ops'], tags: ['b', 'a'] })
    expect(withImage.author).toBe('Eve Editor')
    expect(item(full, 'relation', at.relations.kept)).toMatchObject({
      author: 'Eve Editor',
      revision: 1,
      content: {
        sourceTermId: at.terms.withImage,
        targetTermId: at.terms.survivor,
        relationType: 'related_to',
      },
    })
    expect(
      Object.fromEntries(
        Object.entries(at.wiki).map(([k, id]) => [k, item(full, 'wiki', id)!.content.status]),
      ),
    ).toEqual({
      draft: 'draft',
      published: 'published',
      archived: 'archived',
    })
    const published = item(full, 'wiki', at.wiki.published)!
    expect(published.author).toBe('Eve Editor')
    expect(published.content.termIds).toEqual([at.terms.withImage, at.terms.survivor, at.terms.edited].sort())
    const users = await em().execute<{ id: string; email: string }[]>('select id, email from users')
    for (const user of users) {
      expect(full.text).not.toContain(user.email)
      expect(full.text).not.toContain(user.id)
    }
  })

  it('carries a referenced image once, and no unreferenced or missing one', () => {
    expect(full.attachments.map((a) => a.id)).toEqual([at.image])
    const [image] = full.attachments
    expect(Buffer.from(image!.data, 'base64')).toEqual(Buffer.from(png(1)))
    expect(image).toMatchObject({ contentType: 'image/png', size: 11 })
  })

  let second: Bundle

  it('carries in an incremental export what changed since, tombstones for what left, and the full manifest', async () => {
    const actorId = at.editor.user.id
    await updateTerm({
      idOrSlug: at.terms.edited,
      input: { baseRevision: 1, definition: 'Paying out.', note: '' },
      actorId,
    })
    await deleteTerm({ idOrSlug: at.terms.doomed, actorId: at.admin.user.id })
    const { version } = await getRelation({ id: at.relations.toReject })
    await patchRelation({
      id: at.relations.toReject,
      input: { action: 'rejected', version },
      actor: { id: actorId, role: 'editor' },
    })
    const result = await exportNow(true, at.editor, 'Nightly to HQ')
    expect(result).toMatchObject({ sequence: 2, kind: 'incremental' })
    expect(path.basename(result.file)).toMatch(/^nightly-to-hq-\d{8}T\d{6}Z-000002\.glossary-sync\.json\.gz$/)
    second = await readBundle(result.file)
    expect(second.header.previous).toEqual({ sequence: 1, exportedAt: first.exportedAt })
    expect(second.header.label).toBe('Nightly to HQ')
    expect(second.items.map((i) => `${i.type}:${i.id}`)).toEqual([`term:${at.terms.edited}`])
    expect(item(second, 'term', at.terms.edited)!.content.definition).toBe('Paying out.')
    expect(second.attachments).toEqual([])
    const deletedAt = await em().execute<{ deleted_at: Date | string }[]>(
      `select deleted_at from deletions where entity_type = 'term' and entity_id = ?`,
      [at.terms.doomed],
    )
    expect(second.tombstones).toEqual([
      {
        record: 'tombstone',
        type: 'term',
        id: at.terms.doomed,
        deletedAt: new Date(deletedAt[0]!.deleted_at).toISOString(),
      },
      ...[at.relations.toDoomed, at.relations.toReject]
        .sort()
        .map((id) => ({ record: 'tombstone', type: 'relation', id, deletedAt: result.exportedAt })),
    ])
    expect(second.header.counts).toEqual({
      items: { domain: 0, category: 0, term: 1, relation: 0, wiki: 0 },
      attachments: 0,
      tombstones: 3,
    })
    const manifest = second.header.manifest.map((e) => `${e.type}:${e.id}`)
    expect(manifest).toHaveLength(full.header.manifest.length - 3)
    expect(manifest).not.toContain(`term:${at.terms.doomed}`)
    expect(manifest).toContain(`term:${at.terms.withImage}`)
  })

  it('numbers every export after the last, carries images with a changed body, and records each', async () => {
    const unchanged = await exportNow(true, at.editor)
    const third = await readBundle(unchanged.file)
    expect(third.header).toMatchObject({ sequence: 3, kind: 'incremental', previous: { sequence: 2 } })
    expect(third.items).toEqual([])
    expect(third.tombstones).toEqual([])
    expect(third.header.manifest).toEqual(second.header.manifest)

    await updateTerm({
      idOrSlug: at.terms.edited,
      input: { baseRevision: 2, body: `![](/api/v1/attachments/${at.image})`, note: '' },
      actorId: at.editor.user.id,
    })
    const fourth = await readBundle((await exportNow(true, at.editor)).file)
    expect(fourth.items.map((i) => i.id)).toEqual([at.terms.edited])
    expect(fourth.attachments.map((a) => a.id)).toEqual([at.image])

    const again = await exportNow(false, at.admin)
    const fifth = await readBundle(again.file)
    expect(fifth.header).toMatchObject({ sequence: 5, kind: 'full', previous: { sequence: 4 } })
    expect(fifth.items).toHaveLength(fifth.header.manifest.length)
    expect(fifth.tombstones).toEqual([])

    const rows = await em().execute<
      { sequence: number; kind: string; previous_sequence: number | null; label: string | null }[]
    >('select sequence, kind, previous_sequence, label from sync_exports order by sequence')
    expect(rows.map((r) => [r.sequence, r.kind, r.previous_sequence, r.label])).toEqual([
      [1, 'full', null, null],
      [2, 'incremental', 1, 'Nightly to HQ'],
      [3, 'incremental', 2, null],
      [4, 'incremental', 3, null],
      [5, 'full', 4, null],
    ])
    // The schema-only entities describe the same rows.
    const last = await em().findOneOrFail(SyncExport, { sequence: 5 })
    expect(last).toMatchObject({ fileName: path.basename(again.file), kind: 'full', previousSequence: 4 })
    expect(last.createdBy?.id).toBe(at.admin.user.id)
    expect(await em().count(SyncExportManifestEntry)).toBe(fifth.header.manifest.length)
    const stored = await em().execute<
      { item_type: string; item_id: string; hash: string; revision: number }[]
    >('select item_type, item_id, hash, revision from sync_export_manifest')
    expect(stored.map((e) => `${e.item_type}:${e.item_id}:${e.hash}:${e.revision}`).sort()).toEqual(
      fifth.header.manifest.map((e) => `${e.type}:${e.id}:${e.hash}:${e.revision}`).sort(),
    )
  })

  it('leaves no file and no record when the export cannot be recorded', async () => {
    const before = fs.readdirSync(outDir)
    // Another process took the next sequence between our read and our insert: the unique sequence refuses ours.
    await em().execute(
      `create function take_sequence() returns trigger language plpgsql as $$
       begin raise exception 'sequence taken'; end $$`,
    )
    await em().execute(
      'create trigger take_sequence before insert on sync_exports for each row execute function take_sequence()',
    )
    try {
      await expect(exportNow(true, at.editor)).rejects.toThrow(/sequence taken/)
    } finally {
      await em().execute('drop trigger take_sequence on sync_exports')
      await em().execute('drop function take_sequence()')
    }
    expect(fs.readdirSync(outDir)).toEqual(before)
    const [{ n }] = await em().execute<{ n: string }[]>('select max(sequence) as n from sync_exports')
    expect(Number(n)).toBe(5)
  })
})
