import { beforeAll, describe, expect, it } from 'vitest'
import { createApiKey, createTerm, createUser } from '#tests/factories.ts'
import { useApiServer, type Json } from '#tests/http.ts'
import { useTestDb } from '#tests/setup/db.ts'

/**
 * Issue 27, item 1: an import never erases data without being asked. Empty cells keep the stored value
 * (`emptyCells: "clear"` clears), the CSV carries notation languages, the dry run names each changed field
 * with before and after, and a revision diff shows a changed language.
 */

useTestDb()
const server = useApiServer()
const api = server.api

let key: Record<string, string>

beforeAll(async () => {
  const editor = await createUser({ role: 'editor' })
  key = await createApiKey(editor.user.id, ['write', 'read'])
})

const BODY = 'Body with an image.\n\n![diagram](/attachments/00000000-0000-4000-8000-000000000000)\n'

/** A term with a body and notations in two languages (and one without). */
async function richTerm(slug: string) {
  return createTerm({
    name: `Rich ${slug}`,
    slug,
    definition: 'Kept definition.',
    body: BODY,
    notations: [
      { text: `${slug} GW`, kind: 'admitted', lang: 'en' },
      { text: `${slug} 관문`, kind: 'deprecated', lang: 'ko' },
      { text: `${slug}-plain`, kind: 'admitted', lang: null },
    ],
  })
}

const importCsv = (csv: string, extra: Record<string, unknown> = {}) =>
  api('POST', '/import', key, { format: 'csv', csv, wait: true, ...extra })

async function term(slug: string): Promise<Json> {
  const res = await api('GET', `/terms/${slug}`, key)
  expect(res.status).toBe(200)
  return res.json
}

const notationsOf = (t: Json) =>
  (t.notations as Json[]).map((n) => ({ text: n.text, kind: n.kind, lang: n.lang }))

describe('empty cells of an update', () => {
  it('keep the body, the definition and the notation languages (old CSV without language columns)', async () => {
    await richTerm('keep-a')
    const before = await term('keep-a')
    // The file of the bug report: no language columns, the body and definition cells empty.
    const csv = [
      'slug,name,admitted,deprecated,definition,body',
      'keep-a,Rich keep-a renamed,keep-a GW;keep-a-plain,keep-a 관문,,',
    ].join('\n')
    const dry = await importCsv(csv, { dryRun: true, wait: false })
    expect(dry.status).toBe(200)
    expect(dry.json.rows[0]).toMatchObject({
      action: 'updated',
      changes: [{ field: 'name', before: 'Rich keep-a', after: 'Rich keep-a renamed' }],
    })
    const res = await importCsv(csv)
    expect(res.status).toBe(200)
    expect(res.json).toMatchObject({ status: 'succeeded', updated: 1, errors: 0 })
    const after = await term('keep-a')
    expect(after.body).toBe(BODY)
    expect(after.definition).toBe('Kept definition.')
    expect(notationsOf(after)).toEqual(notationsOf(before))
  })

  it('keep the stored value in JSON too: an empty text, null or empty list changes nothing', async () => {
    await richTerm('keep-json')
    const before = await term('keep-json')
    const res = await api('POST', '/import', key, {
      format: 'json',
      dryRun: true,
      rows: [{ slug: 'keep-json', body: '', definition: null, notations: [], tags: [] }],
    })
    expect(res.status).toBe(200)
    expect(res.json.rows[0]).toMatchObject({ action: 'unchanged' })
    expect((await term('keep-json')).body).toBe(before.body)
  })

  it('clear the fields with emptyCells "clear", languages included', async () => {
    await richTerm('clear-a')
    const csv = [
      'slug,admitted,admittedLang,deprecated,deprecatedLang,body',
      'clear-a,clear-a GW;clear-a-plain,,clear-a 관문,,',
    ].join('\n')
    const res = await importCsv(csv, { emptyCells: 'clear' })
    expect(res.status).toBe(200)
    expect(res.json).toMatchObject({ status: 'succeeded', updated: 1 })
    const after = await term('clear-a')
    expect(after.body).toBe('')
    expect(notationsOf(after)).toEqual([
      { text: 'clear-a GW', kind: 'admitted', lang: null },
      { text: 'clear-a-plain', kind: 'admitted', lang: null },
      { text: 'clear-a 관문', kind: 'deprecated', lang: null },
    ])
  })

  it('refuses an unknown emptyCells value naming the field', async () => {
    const res = await api('POST', '/import', key, {
      format: 'csv',
      csv: 'slug\nx\n',
      dryRun: true,
      emptyCells: 'erase',
    })
    expect(res.status).toBe(400)
    expect(res.json.error.code).toBe('validation_failed')
    expect(res.json.error.details.problems.map((p: Json) => p.path)).toContain('emptyCells')
  })
})

describe('notation languages in CSV', () => {
  it('export → import of a term with languages and a body changes nothing', async () => {
    await richTerm('round-a')
    const exported = await api('GET', '/export/terms.csv', key)
    expect(exported.status).toBe(200)
    const header = exported.text.replace(/^\uFEFF/, '').split('\r\n')[0]!
    expect(header).toContain('"admittedLang"')
    const dry = await importCsv(exported.text, { dryRun: true, wait: false })
    expect(dry.status).toBe(200)
    expect(dry.json.errors).toBe(0)
    expect(dry.json.rows.every((r: Json) => r.action === 'unchanged')).toBe(true)
    // Even when empty cells clear, the round trip loses nothing: the file says everything.
    const clearing = await importCsv(exported.text, { dryRun: true, wait: false, emptyCells: 'clear' })
    expect(clearing.json.rows.every((r: Json) => r.action === 'unchanged')).toBe(true)
  })

  it('sets a language from the CSV, and the template shows the language columns', async () => {
    await richTerm('lang-a')
    const csv = ['slug,admitted,admittedLang', 'lang-a,lang-a GW;lang-a-plain,en-GB;en'].join('\n')
    const res = await importCsv(csv)
    expect(res.json).toMatchObject({ status: 'succeeded', updated: 1 })
    expect(notationsOf(await term('lang-a')).filter((n) => n.kind === 'admitted')).toEqual([
      { text: 'lang-a GW', kind: 'admitted', lang: 'en-GB' },
      { text: 'lang-a-plain', kind: 'admitted', lang: 'en' },
    ])
    const template = await api('GET', '/import/template.csv', key)
    expect(template.text.split(/\r\n/)[0]).toContain('preferred,preferredLang,admitted,admittedLang')
  })

  it('refuses more languages than notations, naming the row and column', async () => {
    const res = await importCsv(['slug,admitted,admittedLang', 'x,one,en;ko'].join('\n'), { dryRun: true })
    expect(res.status).toBe(400)
    expect(res.json.error.details.problems[0].path).toBe('csv.1.admittedLang')
  })
})

describe('the dry run names what changes', () => {
  it('lists each changed field with before and after, long texts cut', async () => {
    await richTerm('dry-a')
    const long = `${'x'.repeat(500)}\n`
    const res = await api('POST', '/import', key, {
      format: 'json',
      dryRun: true,
      rows: [
        {
          slug: 'dry-a',
          definition: 'New definition.',
          body: long,
          notations: [
            { text: 'dry-a GW', kind: 'admitted', lang: 'de' },
            { text: 'dry-a 관문', kind: 'deprecated' },
            { text: 'dry-a-plain', kind: 'admitted' },
          ],
        },
      ],
    })
    expect(res.status).toBe(200)
    const changes = res.json.rows[0].changes as Json[]
    expect(changes.map((c) => c.field)).toEqual(['notations', 'definition', 'body'])
    expect(changes[0]).toEqual({
      field: 'notations',
      before: 'dry-a GW (admitted, en); dry-a 관문 (deprecated, ko); dry-a-plain (admitted)',
      after: 'dry-a GW (admitted, de); dry-a 관문 (deprecated, ko); dry-a-plain (admitted)',
    })
    expect(changes[1]).toEqual({ field: 'definition', before: 'Kept definition.', after: 'New definition.' })
    expect(changes[2]!.before).toBe(BODY)
    expect(changes[2]!.after).toHaveLength(200)
    expect(changes[2]!.after.endsWith('…')).toBe(true)
  })
})

describe('the revision diff', () => {
  it('shows a notation whose language changed', async () => {
    await richTerm('diff-a')
    const csv = ['slug,admitted,admittedLang', 'diff-a,diff-a GW;diff-a-plain,fr;'].join('\n')
    const res = await importCsv(csv)
    expect(res.json).toMatchObject({ status: 'succeeded', updated: 1 })
    const diff = await api('GET', '/terms/diff-a/revisions/1/diff/2', key)
    expect(diff.status).toBe(200)
    const notations = (diff.json.fields as Json[]).find((f) => f.field === 'notations')!
    expect(notations.changed).toBe(true)
    expect(notations.changes).toEqual(
      expect.arrayContaining([
        { value: 'diff-a GW (admitted, en)', added: false, removed: true },
        { value: 'diff-a GW (admitted, fr)', added: true, removed: false },
      ]),
    )
  })
})
