import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { CreateWikiPageSchema } from '#app/schemas/wiki.ts'
import { exportBundle } from '#app/services/sync/export.server.ts'
import { importBundles, type ImportReport, type PlanEntry } from '#app/services/sync/import.server.ts'
import { createClassification, deleteClassification } from '#app/services/terms/classification.server.ts'
import { findTermId, loadTermDtos } from '#app/services/terms/store.server.ts'
import { deleteTerm, mergeTerm, updateTerm } from '#app/services/terms/write.server.ts'
import { createWikiPage } from '#app/services/wiki/write.server.ts'
import { em } from '#db/orm.ts'
import { createTerm, createUser, type TestUser } from '#tests/factories.ts'
import { useInstallations } from '#tests/sync-installations.ts'

/**
 * More of the receiver's rules (issue 30; decision 031): merges carried, a chain previewed exactly, conflicts of
 * keys, pages and unknown domains, a deletion of a locally edited item kept, a bundle sent back to its origin,
 * and the progress an apply reports.
 */

const installations = useInstallations(['sender', 'receiver'])
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'glossary-sync-cases-'))
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }))

const at = {} as {
  editor: TestUser
  terms: Record<'main' | 'mergedAway' | 'keepMe' | 'payTerm', string>
  wiki: string
  files: { first: string; second: string }
  own: ImportReport
}

async function edit(idOrSlug: string, input: Record<string, unknown>, actorId: string) {
  const [term] = await loadTermDtos(em(), [(await findTermId(em(), idOrSlug))!])
  return updateTerm({ idOrSlug, input: { baseRevision: term!.revision, note: '', ...input }, actorId })
}

async function exportInto(name: string, incremental: boolean): Promise<string> {
  const out = path.join(dir, name)
  fs.mkdirSync(out)
  return (await exportBundle({ incremental, outDir: out, actorId: at.editor.user.id })).file
}

const entry = (report: ImportReport, bundle: number, type: string, originId: string): PlanEntry | undefined =>
  report.bundles[bundle]!.entries.find((e) => e.type === type && e.originId === originId)

beforeAll(async () => {
  at.editor = await createUser({ role: 'editor', name: 'Eve Editor' })
  const actorId = at.editor.user.id
  await createClassification({
    kind: 'domain',
    input: { key: 'ops', nameKo: '운영', nameEn: 'Ops', sort: 1 },
  })
  await createClassification({
    kind: 'domain',
    input: { key: 'pay2', nameKo: '결제', nameEn: 'Pay', sort: 2 },
  })
  const term = async (name: string, slug: string, extra: Record<string, unknown> = {}) =>
    (await createTerm({ name, slug, actorId, ...extra })).id
  at.terms = {
    main: await term('Main', 'main', { domains: ['ops'] }),
    mergedAway: await term('Merged away', 'merged-away'),
    keepMe: await term('Keep me', 'keep-me'),
    payTerm: await term('Pay term', 'pay-term'),
  }
  at.wiki = (
    await createWikiPage({
      input: CreateWikiPageSchema.parse({
        title: 'Shared title',
        content: 'From the origin.',
        status: 'published',
      }),
      actor: { id: actorId, name: 'Eve Editor' },
    })
  ).id
  const first = await exportInto('first', false)
  await mergeTerm({ idOrSlug: 'merged-away', input: { into: 'main', note: '' }, actorId })
  await deleteTerm({ idOrSlug: 'keep-me', actorId })
  await edit('pay-term', { domains: ['pay2'] }, actorId)
  at.files = { first, second: await exportInto('second', true) }
  at.own = await importBundles([first], {
    apply: true,
    keepLocalEdits: false,
    actor: { id: actorId, label: 'cli' },
  })
})

describe('more rules at the receiver', () => {
  it('applies nothing of a bundle sent back to its own origin', () => {
    expect(at.own.bundles[0]).toMatchObject({ outcome: 'own_bundle', entries: [] })
  })

  it('previews a chain exactly and writes nothing', async () => {
    await installations.use('receiver')
    const admin = await createUser({ role: 'admin' })
    const preview = await importBundles([at.files.second, at.files.first], {
      apply: false,
      keepLocalEdits: false,
      actor: { id: admin.user.id, label: admin.user.email },
    })
    expect(preview.bundles.map((b) => [b.sequence, b.outcome])).toEqual([
      [1, 'previewed'],
      [2, 'previewed'],
    ])
    // The second bundle is previewed on top of the first: the merge is an update of a term the first created.
    expect(entry(preview, 1, 'term', at.terms.mergedAway)).toMatchObject({ action: 'update' })
    expect(entry(preview, 1, 'term', at.terms.keepMe)).toMatchObject({ action: 'delete' })
    expect(await em().execute('select id from terms')).toEqual([])
    expect(await em().execute('select id from sync_origins')).toEqual([])
  })

  it('reports key and page conflicts, carries a merge, keeps a locally edited item the origin deleted', async () => {
    const admin = await createUser({ role: 'admin' })
    const actor = { id: admin.user.id, label: admin.user.email }
    await createClassification({
      kind: 'domain',
      input: { key: 'ops', nameKo: '운영', nameEn: 'Ops here', sort: 9 },
    })
    await createWikiPage({
      input: CreateWikiPageSchema.parse({ title: 'Shared title', content: 'Written here.' }),
      actor: { id: admin.user.id, name: 'Admin' },
    })
    const progress: [number, number][] = []
    const first = await importBundles([at.files.first], {
      apply: true,
      keepLocalEdits: false,
      actor,
      onProgress: (done, total) => progress.push([done, total]),
    })
    const opsEntry = first.bundles[0]!.entries.find((e) => e.type === 'domain' && e.title === 'ops')
    expect(opsEntry).toMatchObject({ action: 'conflict', reason: expect.stringContaining('"ops"') })
    expect(entry(first, 0, 'wiki', at.wiki)).toMatchObject({ action: 'conflict' })
    // The term names the key, and the local entry of that key is there: it carries the local one.
    expect((await loadTermDtos(em(), [at.terms.main]))[0]).toMatchObject({ domains: ['ops'] })
    expect(progress.at(-1)![0]).toBe(progress.at(-1)![1])

    await edit('keep-me', { definition: 'Edited here.' }, admin.user.id)
    await deleteClassification({ kind: 'domain', key: 'pay2', actorId: admin.user.id })
    const second = await importBundles([at.files.second], { apply: true, keepLocalEdits: true, actor })
    expect(second.bundles[0]!.outcome).toBe('applied')
    // Merged at the origin: merged here into the same term, whose old addresses now include the merged one's.
    expect(entry(second, 0, 'term', at.terms.mergedAway)).toMatchObject({ action: 'update' })
    const [merged, main] = await loadTermDtos(em(), [at.terms.mergedAway, at.terms.main])
    expect(merged).toMatchObject({ status: 'merged', mergedInto: { id: at.terms.main } })
    expect(main!.oldSlugs).toContain('merged-away')
    expect(await findTermId(em(), 'merged-away')).toBe(at.terms.main)
    // Deleted at the origin, edited here, local edits kept: it stays.
    expect(entry(second, 0, 'term', at.terms.keepMe)).toMatchObject({ action: 'kept_local_edit' })
    expect(await findTermId(em(), 'keep-me')).toBe(at.terms.keepMe)
    // A domain the term names that is not here (deleted here): that term only is skipped.
    expect(entry(second, 0, 'term', at.terms.payTerm)).toMatchObject({
      action: 'conflict',
      reason: expect.stringContaining('pay2'),
    })
  })
})
