import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import zlib from 'node:zlib'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { CreateWikiPageSchema, UpdateWikiPageSchema } from '#app/schemas/wiki.ts'
import { storeAttachment } from '#app/services/attachments/attachments.server.ts'
import { getRelation } from '#app/services/relations/read.server.ts'
import { patchRelation, proposeRelation } from '#app/services/relations/write.server.ts'
import { exportBundle } from '#app/services/sync/export.server.ts'
import {
  bundleFiles,
  importBundles,
  type ImportReport,
  type PlanEntry,
} from '#app/services/sync/import.server.ts'
import {
  createClassification,
  deleteClassification,
  updateClassification,
} from '#app/services/terms/classification.server.ts'
import { findTermId, loadTermDtos } from '#app/services/terms/store.server.ts'
import { deleteTerm, updateTerm } from '#app/services/terms/write.server.ts'
import { createWikiPage, deleteWikiPageInTx, updateWikiPage } from '#app/services/wiki/write.server.ts'
import { em } from '#db/orm.ts'
import { createTerm, createUser, type TestUser } from '#tests/factories.ts'
import { BundleError } from '#sync/bundle-io.ts'
import { useInstallations } from '#tests/sync-installations.ts'

/**
 * The receiver's side of offline sync (issue 30, rules a–h; decision 031): bundles exported by a real sender
 * installation, carried as files, previewed and applied by a real receiver. The sender makes all its bundles
 * first, then the receivers apply them, so the test switches installations only a few times.
 */

const installations = useInstallations(['sender', 'receiver', 'lost'])
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'glossary-sync-import-'))
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }))

const png = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 7, 8, 9])

/** What the sender made, by name. */
const at = {} as {
  editor: TestUser
  terms: Record<'alpha' | 'beta' | 'gamma' | 'delta' | 'doomed' | 'clash' | 'fresh', string>
  image: string
  relations: Record<'kept' | 'rejected' | 'toFresh', string>
  wiki: Record<'kept' | 'doomed', string>
  files: Record<'full1' | 'inc2' | 'inc3' | 'full4', string>
}

const sql = <T>(text: string, params: unknown[] = []) => em().execute<T[]>(text, params)

async function approvedRelation(source: string, target: string): Promise<string> {
  const heads = await sql<{ id: string; revision: number }>(
    'select id, revision from terms where id = any(?::uuid[])',
    [`{${source},${target}}`],
  )
  const revision = (id: string) => heads.find((h) => h.id === id)!.revision
  const actor = { id: at.editor.user.id, role: 'editor' as const }
  const { id } = await proposeRelation({
    input: {
      sourceTermId: source,
      targetTermId: target,
      relationType: 'related_to',
      evidenceMd: 'They go together.',
      sourceRevision: revision(source),
      targetRevision: revision(target),
    },
    actor,
  })
  const { version } = await getRelation({ id })
  await patchRelation({ id, input: { action: 'approved', version }, actor })
  return id
}

async function edit(idOrSlug: string, input: Record<string, unknown>, actorId: string) {
  const [term] = await loadTermDtos(em(), [(await findTermId(em(), idOrSlug))!])
  return updateTerm({ idOrSlug, input: { baseRevision: term!.revision, note: '', ...input }, actorId })
}

async function exportTo(name: keyof typeof at.files, incremental: boolean) {
  const out = path.join(dir, name)
  fs.mkdirSync(out)
  at.files[name] = (await exportBundle({ incremental, outDir: out, actorId: at.editor.user.id })).file
}

const entry = (report: ImportReport, type: string, originId: string): PlanEntry | undefined =>
  report.bundles.flatMap((b) => b.entries).find((e) => e.type === type && e.originId === originId)

/** The sender's history: a full bundle, two incremental ones, a full one. */
beforeAll(async () => {
  at.editor = await createUser({ role: 'editor', name: 'Eve Editor' })
  const actorId = at.editor.user.id
  at.files = {} as typeof at.files
  await createClassification({
    kind: 'domain',
    input: { key: 'pay', nameKo: '결제', nameEn: 'Payments', sort: 1 },
  })
  await createClassification({ kind: 'domain', input: { key: 'old', nameKo: '옛', nameEn: 'Old', sort: 2 } })
  at.image = (await storeAttachment({ bytes: png, declaredType: 'image/png', actorId })).id
  const term = async (name: string, extra: Record<string, unknown> = {}) =>
    (await createTerm({ name, actorId, ...extra })).id
  at.terms = {
    alpha: await term('Alpha', {
      slug: 'alpha',
      domains: ['pay'],
      body: `![x](/api/v1/attachments/${at.image})`,
    }),
    beta: await term('Beta', { slug: 'beta' }),
    gamma: await term('Gamma', { slug: 'gamma' }),
    delta: await term('Delta', { slug: 'delta' }),
    doomed: await term('Doomed', { slug: 'doomed' }),
    clash: '',
    fresh: '',
  }
  at.relations = {
    kept: await approvedRelation(at.terms.alpha, at.terms.beta),
    rejected: await approvedRelation(at.terms.beta, at.terms.gamma),
    toFresh: '',
  }
  const page = async (title: string) =>
    (
      await createWikiPage({
        input: CreateWikiPageSchema.parse({
          title,
          content: `About ${title}. ![i](/api/v1/attachments/${at.image})`,
          status: 'published',
          termSlugs: ['alpha'],
        }),
        actor: { id: actorId, name: 'Eve Editor' },
      })
    ).id
  at.wiki = { kept: await page('Alpha guide'), doomed: await page('Doomed guide') }
  await exportTo('full1', false)

  // Bundle 2: a rename, edits, a deletion of each kind, a new term whose slug the receiver uses.
  await edit('alpha', { slug: 'alpha-2', definition: 'Alpha, renamed.' }, actorId)
  await edit('beta', { definition: 'Beta, changed at the origin.' }, actorId)
  await deleteTerm({ idOrSlug: 'doomed', actorId })
  const { version } = await getRelation({ id: at.relations.rejected })
  await patchRelation({
    id: at.relations.rejected,
    input: { action: 'rejected', version },
    actor: { id: actorId, role: 'editor' },
  })
  await em().transactional(async (tx) => {
    const [row] = await tx.execute<{ status: 'published'; revision: number }[]>(
      'select status, revision from wiki_pages where id = ?',
      [at.wiki.doomed],
    )
    await deleteWikiPageInTx(tx, { id: at.wiki.doomed, ...row! })
  })
  await deleteClassification({ kind: 'domain', key: 'old', actorId })
  await updateClassification({ kind: 'domain', key: 'pay', input: { nameEn: 'Payments, renamed' } })
  await updateWikiPage({
    slug: 'alpha-guide',
    input: UpdateWikiPageSchema.parse({ content: 'About Alpha, again.' }),
    actor: { id: actorId, name: 'Eve' },
  })
  at.terms.clash = await term('Clash', { slug: 'clash' })
  at.terms.fresh = await term('Fresh', { slug: 'fresh' })
  at.relations.toFresh = await approvedRelation(at.terms.clash, at.terms.fresh)
  await exportTo('inc2', true)

  // Bundle 3: delta changes at the origin (the receiver edits it too and keeps its edit).
  await edit('delta', { definition: 'Delta, changed at the origin.' }, actorId)
  await exportTo('inc3', true)
  await edit('gamma', { definition: 'Gamma, changed for the full bundle.' }, actorId)
  await exportTo('full4', false)
})

describe('applying bundles at a receiver', () => {
  let admin: TestUser
  const actor = () => ({ id: admin.user.id, label: admin.user.email })

  it('refuses nothing it has not checked: a preview writes nothing, a failure mid-apply applies nothing (h)', async () => {
    await installations.use('receiver')
    admin = await createUser({ role: 'admin' })
    const files = await bundleFiles(at.files.full1)
    const count = async (table: string) =>
      Number((await sql<{ n: string }>(`select count(*) as n from ${table}`))[0]!.n)
    const before = {
      terms: await count('terms'),
      attachments: await count('attachments'),
      audit: await count('audit_log'),
    }

    const preview = await importBundles(files, { apply: false, keepLocalEdits: false, actor: actor() })
    expect(preview.applied).toBe(false)
    expect(preview.bundles[0]).toMatchObject({ outcome: 'previewed', kind: 'full', sequence: 1 })
    expect(preview.bundles[0]!.counts).toMatchObject({ create: 11, conflict: 0 })
    expect(entry(preview, 'term', at.terms.alpha)).toMatchObject({ action: 'create', title: 'Alpha' })
    expect(await count('terms')).toBe(before.terms)
    expect(await count('attachments')).toBe(before.attachments)
    expect(await count('sync_origins')).toBe(0)

    // A changed byte: refused by the listing and by the import itself, nothing written.
    const tampered = path.join(dir, 'tampered.glossary-sync.json.gz')
    const text = zlib.gunzipSync(fs.readFileSync(at.files.full1)).toString('utf8')
    fs.writeFileSync(tampered, zlib.gzipSync(text.replace('Definition of Beta.', 'Definition of Bet4.')))
    await expect(bundleFiles(tampered)).rejects.toMatchObject({ problem: 'tampered' })
    await expect(
      importBundles([tampered], { apply: true, keepLocalEdits: false, actor: actor() }),
    ).rejects.toBeInstanceOf(BundleError)
    expect(await count('terms')).toBe(before.terms)
    expect(await count('attachments')).toBe(before.attachments)

    // A trigger that fails on the second term the apply writes: nothing of the bundle may stay.
    await sql(`create function fail_on_beta() returns trigger language plpgsql as $$
                 begin if new.name = 'Beta' then raise exception 'injected failure'; end if; return new; end $$`)
    await sql(
      'create trigger fail_on_beta before insert on terms for each row execute function fail_on_beta()',
    )
    await expect(
      importBundles(files, { apply: true, keepLocalEdits: false, actor: actor() }),
    ).rejects.toThrow(/injected failure/)
    await sql('drop trigger fail_on_beta on terms')
    expect(await count('terms')).toBe(before.terms)
    expect(await count('attachments')).toBe(before.attachments)
    expect(await count('audit_log')).toBe(before.audit)
    expect(await count('sync_items')).toBe(0)
    expect(await count('sync_applied_bundles')).toBe(0)
  })

  it('creates the origin’s items under its ids, with images and index rows (a, images), and skips it again (g)', async () => {
    const local = await createTerm({ name: 'Local clash', slug: 'clash', actorId: admin.user.id })
    const report = await importBundles([at.files.full1], {
      apply: true,
      keepLocalEdits: false,
      actor: actor(),
    })
    expect(report).toMatchObject({ applied: true, missing: false })
    expect(report.bundles[0]!.outcome).toBe('applied')
    expect(report.bundles[0]!.counts).toMatchObject({ create: 11, conflict: 0, delete: 0 })

    const [alpha] = await loadTermDtos(em(), [at.terms.alpha])
    expect(alpha).toMatchObject({ id: at.terms.alpha, slug: 'alpha', domains: ['pay'] })
    const [image] = await sql<{ id: string; sha256: string }>('select id, sha256 from attachments')
    expect(alpha!.body).toBe(`![x](/api/v1/attachments/${image!.id})`)
    const [page] = await sql<{ content: string }>('select content from wiki_pages where id = ?', [
      at.wiki.kept,
    ])
    expect(page!.content).toBe(`About Alpha guide. ![i](/api/v1/attachments/${image!.id})`)
    expect(
      (await sql<{ id: string }>('select id from relations where status = ?', ['approved']))
        .map((r) => r.id)
        .sort(),
    ).toEqual([at.relations.kept, at.relations.rejected].sort())
    const queued = await sql<{ source_type: string; source_id: string }>(
      `select source_type, source_id from rag_index_queue where status = 'queued'`,
    )
    for (const id of Object.values(at.terms).slice(0, 5))
      expect(queued).toContainEqual({ source_type: 'term', source_id: id })
    expect(queued).toContainEqual({ source_type: 'wiki', source_id: at.wiki.kept })
    const [audit] = await sql<{ details: { sequence: number; counts: { create: number } } }>(
      `select details from audit_log where action = 'sync.applied'`,
    )
    expect(audit!.details).toMatchObject({ sequence: 1, counts: { create: 11 } })
    const [applied] = await sql<{ sequence: number; applied_by_id: string }>(
      'select sequence, applied_by_id from sync_applied_bundles',
    )
    expect(applied).toEqual({ sequence: 1, applied_by_id: admin.user.id })

    const again = await importBundles([at.files.full1], {
      apply: true,
      keepLocalEdits: false,
      actor: actor(),
    })
    expect(again.bundles[0]).toMatchObject({ outcome: 'skipped_older', entries: [] })
    expect((await loadTermDtos(em(), [local.id]))[0]).toMatchObject({ slug: 'clash', revision: 1 })
  })

  it('carries edits, renames and deletions; keeps local items; origin wins over a local edit (b–e)', async () => {
    const adminId = admin.user.id
    await edit('beta', { definition: 'Beta, edited here.' }, adminId)
    await edit('gamma', { definition: 'Gamma, edited here.' }, adminId)
    const localOnly = await createTerm({ name: 'Only here', actorId: adminId })

    const report = await importBundles([at.files.inc2], {
      apply: true,
      keepLocalEdits: false,
      actor: actor(),
    })
    expect(report.bundles[0]!.outcome).toBe('applied')
    // Renamed: the new address, the old one still leads to it, a revision noted as the sync.
    expect(entry(report, 'term', at.terms.alpha)).toMatchObject({ action: 'update' })
    expect(entry(report, 'term', at.terms.alpha)!.changes!.map((c) => c.field)).toEqual([
      'slug',
      'definition',
    ])
    expect(await findTermId(em(), 'alpha')).toBe(at.terms.alpha)
    const revisions = await sql<{ revision: number; note: string; author_id: string }>(
      'select revision, note, author_id from term_revisions where term_id = ? order by revision',
      [at.terms.alpha],
    )
    expect(revisions.at(-1)).toMatchObject({
      revision: 2,
      note: expect.stringMatching(/^sync: .+ r2$/),
      author_id: adminId,
    })
    // Both changed: the origin wins, the local revision stays in the history.
    expect(entry(report, 'term', at.terms.beta)).toMatchObject({
      action: 'update',
      reason: expect.stringContaining('changed here too'),
    })
    const [beta] = await loadTermDtos(em(), [at.terms.beta])
    expect(beta).toMatchObject({ definition: 'Beta, changed at the origin.', revision: 3 })
    // Changed here only: kept.
    expect(entry(report, 'term', at.terms.gamma)).toBeUndefined()
    expect((await loadTermDtos(em(), [at.terms.gamma]))[0]!.definition).toBe('Gamma, edited here.')
    // Deletions of each kind.
    expect(entry(report, 'term', at.terms.doomed)).toMatchObject({ action: 'delete' })
    expect(await findTermId(em(), 'doomed')).toBeUndefined()
    expect(entry(report, 'relation', at.relations.rejected)).toMatchObject({ action: 'delete' })
    expect(await sql('select id from relations where id = ?', [at.relations.rejected])).toEqual([])
    expect(entry(report, 'wiki', at.wiki.doomed)).toMatchObject({ action: 'delete' })
    expect(
      await sql('select id from wiki_pages where id = ? and deleted_at is null', [at.wiki.doomed]),
    ).toEqual([])
    expect(report.bundles[0]!.entries.filter((e) => e.type === 'domain' && e.title === 'old')).toMatchObject([
      { action: 'delete' },
    ])
    expect(await sql(`select id from domains where key = 'old'`)).toEqual([])
    expect(entry(report, 'wiki', at.wiki.kept)).toMatchObject({ action: 'update' })
    const [pageRevision] = await sql<{ revision: number; author_label: string }>(
      'select revision, author_label from wiki_page_revisions where page_id = ? order by revision desc limit 1',
      [at.wiki.kept],
    )
    expect(pageRevision).toEqual({ revision: 2, author_label: expect.stringMatching(/\(sync: .+ r2\)$/) })
    expect(report.bundles[0]!.entries.filter((e) => e.type === 'domain' && e.title === 'pay')).toMatchObject([
      { action: 'update' },
    ])
    expect(await sql(`select name_en from domains where key = 'pay'`)).toEqual([
      { name_en: 'Payments, renamed' },
    ])
    // A slug used by a local term: only that term is skipped, and the relation that needs it.
    expect(entry(report, 'term', at.terms.clash)).toMatchObject({
      action: 'conflict',
      reason: expect.stringContaining('Local clash'),
    })
    expect(entry(report, 'relation', at.relations.toFresh)).toMatchObject({ action: 'conflict' })
    expect(entry(report, 'term', at.terms.fresh)).toMatchObject({ action: 'create' })
    expect((await loadTermDtos(em(), [localOnly.id]))[0]).toMatchObject({ revision: 1 })
    const queued = await sql<{ source_id: string; action: string }>(
      `select source_id, action from rag_index_queue where status = 'queued'`,
    )
    expect(queued).toContainEqual({ source_id: at.terms.doomed, action: 'remove' })
    expect(queued).toContainEqual({ source_id: at.terms.fresh, action: 'index' })
  })

  it('keeps a local edit when asked to, while the origin changed too (d, --keep-local-edits)', async () => {
    await edit('delta', { definition: 'Delta, edited here.' }, admin.user.id)
    const report = await importBundles([at.files.inc3], { apply: true, keepLocalEdits: true, actor: actor() })
    expect(entry(report, 'term', at.terms.delta)).toMatchObject({ action: 'kept_local_edit' })
    expect((await loadTermDtos(em(), [at.terms.delta]))[0]!.definition).toBe('Delta, edited here.')
  })
})

describe('a chain with a lost bundle (f)', () => {
  it('reports the missing bundle, applies nothing of it, and recovers with a full bundle', async () => {
    await installations.use('lost')
    const admin = await createUser({ role: 'admin' })
    const actor = { id: admin.user.id, label: admin.user.email }
    const report = await importBundles([at.files.full1, at.files.inc3], {
      apply: true,
      keepLocalEdits: false,
      actor,
    })
    expect(report.missing).toBe(true)
    expect(report.bundles.map((b) => b.outcome)).toEqual(['applied', 'missing'])
    expect(report.bundles[1]!.message).toMatch(/follows #2/)
    expect((await loadTermDtos(em(), [at.terms.delta]))[0]!.definition).toBe('Definition of Delta.')

    const folder = path.join(dir, 'chain')
    fs.mkdirSync(folder)
    for (const file of [at.files.inc3, at.files.full4])
      fs.copyFileSync(file, path.join(folder, path.basename(file)))
    const recovered = await importBundles(await bundleFiles(folder), {
      apply: true,
      keepLocalEdits: false,
      actor,
    })
    expect(recovered.bundles.map((b) => b.outcome)).toEqual(['missing', 'applied'])
    expect((await loadTermDtos(em(), [at.terms.delta]))[0]!.definition).toBe('Delta, changed at the origin.')
    // The full bundle deletes what the origin no longer carries.
    expect(await findTermId(em(), 'doomed')).toBeUndefined()
    expect(await findTermId(em(), 'alpha')).toBe(at.terms.alpha)
    expect(entry(recovered, 'term', at.terms.doomed)).toMatchObject({ action: 'delete' })
  })
})
