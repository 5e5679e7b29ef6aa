import crypto from 'node:crypto'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { CreateWikiPageSchema, UpdateWikiPageSchema } from '#app/schemas/wiki.ts'
import { exportBundle, type ExportResult } from '#app/services/sync/export.server.ts'
import { bundleFiles, importBundles, type ImportReport } from '#app/services/sync/import.server.ts'
import { localItems } from '#app/services/sync/items.server.ts'
import { createClassification } from '#app/services/terms/classification.server.ts'
import { contentHash, type TermContent } from '#app/services/terms/content.server.ts'
import {
  bumpGlossaryVersion,
  findTermId,
  loadClassificationIds,
  loadHeads,
  loadTermDtos,
  writeTerms,
  type TermWrite,
} from '#app/services/terms/store.server.ts'
import { deleteTerm, mergeTerm, updateTerm } from '#app/services/terms/write.server.ts'
import { createWikiPage, updateWikiPage } from '#app/services/wiki/write.server.ts'
import { em } from '#db/orm.ts'
import { createUser, type TestUser } from '#tests/factories.ts'
import { prng } from '#tests/prng.ts'
import { useInstallations } from '#tests/sync-installations.ts'
import { readBundleHeader, readBundleRecords } from '#sync/bundle-io.ts'
import { SYNC_ITEM_TYPES, type ItemContent, type ManifestEntry } from '#sync/bundle-schema.ts'

/**
 * The size (issue 30, "Tests"): a sender with 10,000 terms of every kind of content, a few hundred
 * approved relations and wiki pages exports a full bundle, then changes 50 terms, deletes 10 and adds 20 and
 * exports an incremental one; a fresh receiver applies both, and after each its carried view of every item is
 * exactly the sender's manifest (same ids, same content hashes) and every term it may search is queued
 * for indexing. The sender does all its work first, so the test switches installations once. Times are
 * printed for information only.
 */

const TERMS = 10_000
const LONG = 600_000

const installations = useInstallations(['sender', 'receiver'])
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'glossary-sync-round-trip-'))
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }))

const sql = <T>(text: string, params: unknown[] = []) => em().execute<T[]>(text, params)
const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`

async function timed<T>(label: string, run: () => Promise<T>): Promise<T> {
  const started = performance.now()
  const result = await run()
  console.log(`round trip: ${label} took ${seconds(performance.now() - started)}`)
  return result
}

const at = {} as {
  editor: TestUser
  /** The sender's term ids by index (index i has the slug `term-<i>` unless renamed). */
  ids: string[]
  full: ExportResult
  incremental: ExportResult
}

// ── The sender's content ───────────────────────────────────────────────────────────────────────────────────

const random = prng(30)
const pick = <T>(values: readonly T[]): T => values[Math.floor(random() * values.length)]!
const SYLLABLES = [...'결제원장정산거래계좌한도위험승인']
const WORDS = ['ledger', 'batch', 'settlement', 'clearing', 'limit', 'account', 'fee', 'token', 'retry']
const koWord = (n: number) => Array.from({ length: n }, () => pick(SYLLABLES)).join('')
const enWords = (n: number) => Array.from({ length: n }, () => pick(WORDS)).join(' ')

/** Term i: names (some Korean), notations of every kind and language, classifications, tags, a body. */
function termContent(i: number): TermContent {
  const korean = i % 7 === 0
  const name = korean ? `${koWord(3)}${i}` : `Term ${i} ${enWords(1)}`
  const notations: TermContent['notations'] = []
  if (i % 2 === 0) notations.push({ text: `ALT-${i}`, kind: 'admitted', lang: 'en' })
  if (i % 3 === 0) notations.push({ text: `${koWord(2)}${i} 별칭`, kind: 'admitted', lang: 'ko' })
  if (i % 5 === 0) notations.push({ text: `old-${i}`, kind: 'deprecated', lang: null })
  if (i % 7 === 3) notations.push({ text: `PREF ${i}`, kind: 'preferred', lang: 'en' })
  if (i % 11 === 0) notations.push({ text: `旧称${i}`, kind: 'deprecated', lang: 'zh-Hant' })
  if (i % 13 === 0) notations.push({ text: `Alias ${i}`, kind: 'admitted', lang: null })
  const body =
    i % 3 === 0
      ? ''
      : [
          `## ${name}`,
          `${enWords(12)}. ${koWord(4)} ${koWord(3)}은 ${koWord(2)}에서 쓴다.`,
          '',
          `- ${enWords(3)}\n- ${koWord(3)}\n- \`code_${i}\``,
          '',
          i % 100 === 1 ? 'Quotes "x", a backslash \\, <b>tags</b>, emoji 🚀 and a tab\there.' : '',
          '```sql',
          `select * from ledger where id = ${i};`,
          '```',
        ].join('\n')
  return {
    slug: `term-${i}`,
    name,
    fullName: i % 4 === 0 ? `Full name of term ${i}` : null,
    nameEn: i % 3 === 1 ? `English ${i}` : null,
    nameKo: korean ? null : i % 2 === 1 ? `${koWord(3)}${i}` : null,
    notations,
    domains: [[], ['pay'], ['ledger', 'pay'], ['risk']][i % 4]!,
    categories: [[], ['core'], [], ['ops', 'retail']][(i >> 2) % 4]!,
    tags: [[], ['core'], ['결제', 'api'], [`group-${i % 10}`]][i % 4]!,
    status: i % 53 === 0 ? 'needs_completion' : i % 89 === 0 ? 'deprecated' : 'active',
    definition: i % 53 === 0 ? '' : `Definition ${i}: ${enWords(8)}. ${koWord(3)} ${koWord(2)}.`,
    body,
  }
}

/** Terms as one set-based save per call (the term store's bulk writer, as an import writes them). */
async function writeContents(
  writes: readonly { id: string; isNew: boolean; revision: number; content: TermContent }[],
  note: string,
): Promise<void> {
  await em().transactional(async (tx) => {
    const version = await bumpGlossaryVersion(tx)
    const rows: TermWrite[] = writes.map((w) => ({
      ...w,
      hash: contentHash(w.content),
      note,
      authorId: at.editor.user.id,
    }))
    await writeTerms(tx, rows, await loadClassificationIds(tx), version)
  })
}

async function edit(idOrSlug: string, input: Record<string, unknown>) {
  const [term] = await loadTermDtos(em(), [(await findTermId(em(), idOrSlug))!])
  return updateTerm({
    idOrSlug,
    input: { baseRevision: term!.revision, note: '', ...input },
    actorId: at.editor.user.id,
  })
}

const RELATION_TYPES = ['related_to', 'is_a', 'part_of', 'used_in', 'prerequisite_of', 'replaces'] as const

/** Relations between terms (by id) in one statement; approved and rejected ones as reviewed by the editor. */
async function insertRelations(
  pairs: readonly { source: string; target: string; status: 'approved' | 'proposed' | 'rejected' }[],
): Promise<void> {
  const reviewer = at.editor.user.id
  await sql(
    `insert into relations (id, source_term_id, target_term_id, relation_type, evidence_md, source_revision,
                            target_revision, status, version, proposed_by_id, reviewed_by_id, reviewed_at)
     select gen_random_uuid(), x.source, x.target, x.type, x.evidence, 1, 1, x.status, gen_random_uuid(), ?,
            case when x.status = 'proposed' then null else ?::uuid end,
            case when x.status = 'proposed' then null else now() end
       from jsonb_to_recordset(?::jsonb)
            as x(source uuid, target uuid, type text, evidence text, status text)`,
    [
      reviewer,
      reviewer,
      JSON.stringify(
        pairs.map((p, k) => ({
          ...p,
          type: RELATION_TYPES[k % RELATION_TYPES.length],
          evidence: `Both appear in the settlement runbook, section ${k} (${koWord(2)}).`,
        })),
      ),
    ],
  )
}

async function wikiPage(n: number, termSlugs: string[]): Promise<void> {
  await createWikiPage({
    input: CreateWikiPageSchema.parse({
      slug: `guide-${n}`,
      title: `Guide ${n} ${koWord(2)}`,
      content: `# Guide ${n}\n\n${enWords(20)}.\n\n${koWord(5)} ${koWord(3)}.`,
      summary: n % 2 ? `How guide ${n} works.` : undefined,
      sourceUrl: n % 3 === 0 ? `https://example.test/guide/${n}` : undefined,
      domain: n % 2 ? ['pay'] : [],
      status: (['published', 'draft', 'archived'] as const)[n % 3],
      termSlugs,
    }),
    actor: { id: at.editor.user.id, name: 'Eve Editor' },
  })
}

async function exportTo(name: string, incremental: boolean): Promise<ExportResult> {
  const out = path.join(dir, name)
  fs.mkdirSync(out)
  const result = await timed(`${name} export`, () =>
    exportBundle({ incremental, outDir: out, actorId: at.editor.user.id }),
  )
  const size = `${(result.bytes / 1024 / 1024).toFixed(1)} MB`
  console.log(`round trip: ${name} bundle ${size}, ${JSON.stringify(result.counts)}`)
  return result
}

/**
 * The sender: 10,000 terms, renames, merges, a deletion, relations and wiki pages, then a full bundle; one
 * round of changes, then an incremental bundle.
 */
beforeAll(async () => {
  at.editor = await createUser({ role: 'editor', name: 'Eve Editor' })
  const domains = [
    ['pay', '결제', 'Payments'],
    ['ledger', '원장', 'Ledger'],
    ['risk', '위험', 'Risk'],
  ]
  for (const [i, [key, nameKo, nameEn]] of domains.entries())
    await createClassification({
      kind: 'domain',
      input: { key: key!, nameKo: nameKo!, nameEn: nameEn!, sort: i },
    })
  const categories = [
    ['core', '핵심', 'Core'],
    ['ops', '운영', 'Operations'],
    ['retail', '소매', 'Retail'],
  ]
  for (const [i, [key, nameKo, nameEn]] of categories.entries()) {
    await createClassification({
      kind: 'category',
      input: { key: key!, nameKo: nameKo!, nameEn: nameEn!, sort: 10 - i },
    })
  }

  at.ids = Array.from({ length: TERMS }, () => crypto.randomUUID())
  await timed(`seeding ${TERMS} terms`, () =>
    writeContents(
      at.ids.map((id, i) => ({ id, isNew: true, revision: 1, content: termContent(i) })),
      'seeded',
    ),
  )
  // Renames (one twice: two old addresses), merges (two into one survivor), a deletion before any export.
  for (const i of [1, 2, 3, 4, 5]) await edit(`term-${i}`, { slug: `term-${i}-renamed` })
  await edit('term-1-renamed', { slug: 'term-1-final', definition: 'Renamed twice.' })
  const actorId = at.editor.user.id
  await mergeTerm({ idOrSlug: 'term-12', input: { into: 'term-14', note: '' }, actorId })
  await mergeTerm({ idOrSlug: 'term-13', input: { into: 'term-14', note: '' }, actorId })
  await mergeTerm({ idOrSlug: 'term-22', input: { into: 'term-23', note: '' }, actorId })
  await deleteTerm({ idOrSlug: 'term-40', actorId })

  // 300 approved relations (term 30k to a neighbour), 3 more with merged terms and one with the deleted term
  // (not carried), 30 not approved (not carried).
  const approved = (source: number, target: number) => ({
    source: at.ids[source]!,
    target: at.ids[target]!,
    status: 'approved' as const,
  })
  await insertRelations([
    ...Array.from({ length: 300 }, (_, k) => approved(k * 30, k * 30 + 1 + (k % 7))),
    ...[approved(12, 100), approved(200, 22), approved(14, 13), approved(40, 41)],
  ])
  await insertRelations(
    Array.from({ length: 30 }, (_, k) => ({
      source: at.ids[k * 30 + 15]!,
      target: at.ids[k * 30 + 16]!,
      status: k % 3 ? ('proposed' as const) : ('rejected' as const),
    })),
  )
  for (let n = 0; n < 12; n++) {
    await wikiPage(n, [`term-${n * 100 + 7}`, `term-${3000 + n * 30}`, n === 0 ? 'term-2-renamed' : 'term-9'])
  }
  at.full = await exportTo('full', false)

  // One round: 50 terms changed (48 in one bulk save, 2 renamed), 10 deleted (with their relations and a wiki
  // link), 20 added with relations, 3 relations rejected, a wiki page changed and one added.
  const changed = Array.from({ length: 48 }, (_, k) => at.ids[5000 + k]!)
  const heads = await loadHeads(em(), changed)
  await writeContents(
    changed.map((id, k) => {
      const head = heads.get(id)!
      const content: TermContent = {
        ...head.content,
        definition: `${head.content.definition} Changed at the origin.`,
        tags: [...head.content.tags, 'changed'],
        notations: [...head.content.notations, { text: `変更${5000 + k}`, kind: 'admitted', lang: 'ja' }],
        domains: k % 2 ? ['risk'] : head.content.domains,
        status: k % 10 === 0 ? 'deprecated' : head.content.status,
      }
      return { id, isNew: false, revision: head.revision + 1, content }
    }),
    'changed',
  )
  await edit('term-5048', { slug: 'term-5048-renamed' })
  await edit('term-5049', { slug: 'term-5049-renamed', nameKo: '새이름' })
  for (let k = 100; k < 110; k++) await deleteTerm({ idOrSlug: `term-${k * 30}`, actorId })
  const added = Array.from({ length: 20 }, () => crypto.randomUUID())
  await writeContents(
    added.map((id, j) => ({
      id,
      isNew: true,
      revision: 1,
      content: { ...termContent(TERMS + j), slug: `new-${j}`, name: `New term ${j} ${koWord(2)}` },
    })),
    'added',
  )
  await insertRelations(
    added.slice(1).map((id, j) => ({ source: added[j]!, target: id, status: 'approved' as const })),
  )
  await sql(
    `update relations set status = 'rejected', version = gen_random_uuid()
      where source_term_id = any(?::uuid[]) and status = 'approved'`,
    [`{${[at.ids[600], at.ids[630], at.ids[660]].join(',')}}`],
  )
  await updateWikiPage({
    slug: 'guide-1',
    input: UpdateWikiPageSchema.parse({
      content: 'Guide 1, changed.',
      termSlugs: ['new-0', 'term-5048-renamed'],
    }),
    actor: { id: actorId, name: 'Eve Editor' },
  })
  await wikiPage(12, ['new-1', 'term-14'])
  at.incremental = await exportTo('incremental', true)
}, LONG)

// ── Comparing the two installations ────────────────────────────────────────────────────────────────────────

const key = (type: string, id: string) => `${type}:${id}`

/** The receiver's carried view of every item: type:id → hash. */
async function carriedHashes(): Promise<Map<string, string>> {
  const hashes = new Map<string, string>()
  for (const type of SYNC_ITEM_TYPES) {
    for await (const batch of localItems(em(), type)) {
      for (const item of batch) hashes.set(key(type, item.id), item.hash)
    }
  }
  return hashes
}

/**
 * What differs between the sender's manifest and the receiver's carried view, as counts by type and the first
 * few examples (with the content sent, where the bundle holds the item, and the receiver's), so a failure
 * says what went wrong without printing 10,000 entries.
 */
async function differences(file: string, manifest: readonly ManifestEntry[], local: Map<string, string>) {
  const sent = new Map(manifest.map((e) => [key(e.type, e.id), e.hash]))
  const problems: { key: string; problem: 'missing' | 'extra' | 'different' }[] = []
  for (const [k, hash] of sent) {
    if (!local.has(k)) problems.push({ key: k, problem: 'missing' })
    else if (local.get(k) !== hash) problems.push({ key: k, problem: 'different' })
  }
  for (const k of local.keys()) if (!sent.has(k)) problems.push({ key: k, problem: 'extra' })
  const byType: Record<string, number> = {}
  for (const p of problems) {
    const label = `${p.key.split(':')[0]} ${p.problem}`
    byType[label] = (byType[label] ?? 0) + 1
  }
  const examples = problems.slice(0, 3)
  const detail: Record<string, unknown> = {}
  if (examples.length === 0) return { byType, examples, detail }
  for await (const record of readBundleRecords(file)) {
    if (record.record === 'item' && examples.some((e) => e.key === key(record.type, record.id)))
      detail[`sent ${key(record.type, record.id)}`] = record.content
  }
  for (const example of examples.filter((e) => e.problem !== 'missing')) {
    const [type, id] = example.key.split(':') as [(typeof SYNC_ITEM_TYPES)[number], string]
    for await (const batch of localItems(em(), type, { ids: [id] }))
      detail[`local ${example.key}`] = batch[0]?.content
  }
  return { byType, examples, detail }
}

/** Per type, how many items the manifest lists. */
const manifestCounts = (manifest: readonly ManifestEntry[]) =>
  Object.fromEntries(SYNC_ITEM_TYPES.map((type) => [type, manifest.filter((e) => e.type === type).length]))

/** Live terms that are not merged and have no queued index row at (or after) their current revision. */
async function termsNotQueued(): Promise<{ searchable: number; notQueued: string[] }> {
  const [{ n }] = (await sql<{ n: string }>(
    `select count(*) as n from terms where deleted_at is null and status <> 'merged'`,
  )) as [{ n: string }]
  const rows = await sql<{ id: string }>(
    `select t.id from terms t
      where t.deleted_at is null and t.status <> 'merged'
        and not exists (select 1 from rag_index_queue q
                         where q.source_type = 'term' and q.source_id = t.id and q.status = 'queued'
                           and q.action = 'index' and q.revision >= t.revision)
      order by t.id`,
  )
  return { searchable: Number(n), notQueued: rows.map((r) => r.id) }
}

const termEntries = (report: ImportReport) => {
  const counts: Record<string, number> = {}
  for (const e of report.bundles.flatMap((b) => b.entries))
    if (e.type === 'term') counts[e.action] = (counts[e.action] ?? 0) + 1
  return counts
}

describe('a 10,000-term round trip', () => {
  let admin: TestUser
  const actor = () => ({ id: admin.user.id, label: admin.user.email })

  async function apply(label: string, file: string): Promise<ImportReport> {
    const files = await timed(`${label} verify`, () => bundleFiles(file))
    const report = await timed(`${label} apply`, () =>
      importBundles(files, { apply: true, keepLocalEdits: false, actor: actor() }),
    )
    expect(report).toMatchObject({ applied: true, missing: false })
    expect(report.bundles.map((b) => b.outcome)).toEqual(['applied'])
    console.log(`round trip: ${label} apply counts ${JSON.stringify(report.bundles[0]!.counts)}`)
    return report
  }

  it(
    'leaves the receiver with exactly the sender’s items after the full bundle',
    async () => {
      await installations.use('receiver')
      admin = await createUser({ role: 'admin' })
      const header = await readBundleHeader(at.full.file)
      expect(manifestCounts(header.manifest)).toEqual({
        domain: 3,
        category: 3,
        term: TERMS - 1,
        relation: 303,
        wiki: 12,
      })

      const report = await apply('full', at.full.file)
      expect(report.bundles[0]!.counts).toMatchObject({ create: header.manifest.length, conflict: 0 })
      const local = await carriedHashes()
      expect(await differences(at.full.file, header.manifest, local)).toEqual({
        byType: {},
        examples: [],
        detail: {},
      })
      // The varied content is there (equal hashes cover it; this says the seed made it).
      const terms = new Map<string, ItemContent<'term'>>()
      const spot = [1, 12, 14, 53, 89, 100].map((i) => at.ids[i]!)
      for await (const batch of localItems(em(), 'term', { ids: spot }))
        for (const item of batch) terms.set(item.id, item.content)
      const term = (i: number) => terms.get(at.ids[i]!)
      expect(term(1)).toMatchObject({ slug: 'term-1-final', oldSlugs: ['term-1', 'term-1-renamed'] })
      expect(term(12)).toMatchObject({ status: 'merged', mergedInto: at.ids[14] })
      expect(term(14)!.oldSlugs).toEqual(['term-12', 'term-13'])
      expect(term(53)!.status).toBe('needs_completion')
      expect(term(89)!.status).toBe('deprecated')
      expect(
        term(100)!
          .notations.map((n) => n.kind)
          .sort(),
      ).toEqual(['admitted', 'deprecated'])
      const queue = await termsNotQueued()
      expect(queue.searchable).toBe(TERMS - 1 - 3)
      expect(queue.notQueued).toEqual([])
    },
    LONG,
  )

  it(
    'and again after an incremental round: 50 changed, 10 deleted, 20 added',
    async () => {
      const header = await readBundleHeader(at.incremental.file)
      expect(header).toMatchObject({ kind: 'incremental', previous: { sequence: 1 } })
      expect(manifestCounts(header.manifest)).toEqual({
        domain: 3,
        category: 3,
        term: TERMS - 1 - 10 + 20,
        relation: 303 - 10 - 3 + 19,
        wiki: 13,
      })

      const report = await apply('incremental', at.incremental.file)
      expect(termEntries(report)).toEqual({ update: 50, delete: 10, create: 20 })
      expect(report.bundles[0]!.counts.conflict).toBe(0)
      const local = await carriedHashes()
      expect(await differences(at.incremental.file, header.manifest, local)).toEqual({
        byType: {},
        examples: [],
        detail: {},
      })
      // The comparison sees a difference where there is one: the full bundle's manifest is the state before.
      const before = await readBundleHeader(at.full.file)
      expect((await differences(at.full.file, before.manifest, local)).byType).toMatchObject({
        'term different': 50,
        'term missing': 10,
        'term extra': 20,
      })
      const queue = await termsNotQueued()
      expect(queue.searchable).toBe(TERMS - 1 - 3 - 10 + 20)
      expect(queue.notQueued).toEqual([])
    },
    LONG,
  )
})
