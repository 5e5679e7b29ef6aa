import { beforeAll, describe, expect, it } from 'vitest'
import * as ssoPage from '#app/routes/admin.sso.tsx'
import * as checkPage from '#app/routes/check.tsx'
import * as importPage from '#app/routes/import._index.tsx'
import * as settingsPage from '#app/routes/settings.tsx'
import * as sheetPage from '#app/routes/sheet.tsx'
import * as historyPage from '#app/routes/terms.$slug.history.tsx'
import * as termsPage from '#app/routes/terms._index.tsx'
import { UpdateTermSchema } from '#app/schemas/terms.ts'
import { updateTerm } from '#app/services/terms/write.server.ts'
import { matcherCache } from '#app/services/validation/matcher-cache.server.ts'
import { createTerm, createUser, type TestUser } from '#tests/factories.ts'
import { pageText, usePageServer } from '#tests/page-server.ts'
import { useTestDb } from '#tests/setup/db.ts'

useTestDb()

/**
 * Words and labels of pages as a reader meets them (issue 27, items 10 and 11), over real HTTP in English and
 * Korean: the check summary counts findings by what they are, counted nouns take the singular for one, the
 * revision diff names notation kinds in the page's language, /settings gives every input its own id and
 * label, the sheet has a title and a heading, and /admin/sso puts each checkbox beside its label.
 */

const pages = usePageServer({
  'routes/check': { path: 'check', module: checkPage },
  'routes/import._index': { path: 'import', module: importPage },
  'routes/terms._index': { path: 'terms', module: termsPage },
  'routes/terms.$slug.history': { path: 'terms/:slug/history', module: historyPage },
  'routes/settings': { path: 'settings', module: settingsPage },
  'routes/sheet': { path: 'sheet', module: sheetPage },
  'routes/admin.sso': { path: 'admin/sso', module: ssoPage },
})

let admin: TestUser
let en: Record<string, string>
let ko: Record<string, string>

const textOf = pageText

beforeAll(async () => {
  admin = await createUser({ role: 'admin' })
  en = admin.sessionHeaders
  ko = { ...admin.sessionHeaders, cookie: `${admin.sessionHeaders.cookie}; lang=ko` }
  await createTerm({
    name: 'GitHub',
    slug: 'github',
    notations: [{ text: 'Github', kind: 'deprecated', lang: null }],
  })
  await createTerm({ name: 'JavaScript', slug: 'javascript' })
  await matcherCache.whenIdle()
})

describe('/check summary', () => {
  it('counts a wrong-case finding as what it is, not as a deprecated term', async () => {
    const text = 'Github, Github and Github are hosted; Javascript runs.'
    const page = await pages.post('/check', { text }, en)
    expect(page.status).toBe(200)
    expect(textOf(page.html)).toContain(
      '4 findings: 3 deprecated notations, 1 in the wrong letter case (2 terms).',
    )
    expect(textOf(page.html)).not.toContain('deprecated terms')

    const korean = await pages.post('/check', { text }, ko)
    expect(textOf(korean.html)).toContain('4건: 비권장 표기 3, 대소문자 틀림 1 (용어 2개).')
  })

  it('says "1 term" and "1 finding" in the singular', async () => {
    const page = await pages.post('/check', { text: 'We moved to Github.' }, en)
    expect(textOf(page.html)).toContain('1 finding: 1 deprecated notation (1 term).')
  })
})

describe('counted nouns', () => {
  it('the term list says "1 term" for one match and "2 terms" for two', async () => {
    expect(textOf((await pages.get('/terms?q=GitHub', en)).html)).toContain(' 1 term ')
    expect(textOf((await pages.get('/terms?q=JavaScript', ko)).html)).toContain('용어 1개')
    const all = textOf((await pages.get('/terms', en)).html)
    expect(all).toMatch(/ \d+ terms /)
    expect(all).not.toMatch(/ 1 terms /)
  })
})

describe('revision diff', () => {
  it('names notation kinds in the page language', async () => {
    const term = await createTerm({
      name: 'Pipeline Kind',
      slug: 'pipeline-kind',
      notations: [{ text: 'PL', kind: 'deprecated', lang: null }],
    })
    await updateTerm({
      idOrSlug: term.id,
      actorId: admin.user.id,
      input: UpdateTermSchema.parse({
        baseRevision: term.revision,
        notations: [
          { text: 'PL', kind: 'admitted', lang: null },
          { text: 'PLN', kind: 'preferred', lang: 'en' },
        ],
      }),
    })
    const korean = textOf((await pages.get('/terms/pipeline-kind/history?from=1&to=2', ko)).html)
    expect(korean).toContain('- PL (비권장)')
    expect(korean).toContain('+ PL (허용)')
    expect(korean).toContain('+ PLN (권장, en)')
    expect(korean).not.toMatch(/\((deprecated|admitted|preferred)\)/)

    const english = textOf((await pages.get('/terms/pipeline-kind/history?from=1&to=2', en)).html)
    expect(english).toContain('- PL (deprecated)')
    expect(english).toContain('+ PL (admitted)')
  })
})

describe('/settings', () => {
  it('gives every input a unique id and a label, so "Key name" is labelled', async () => {
    const page = await pages.get('/settings', en)
    expect(page.status).toBe(200)
    const ids = [...page.html.matchAll(/\bid="([^"]+)"/g)].map((m) => m[1])
    expect(ids.length).toBeGreaterThan(0)
    expect(new Set(ids).size).toBe(ids.length)
    const inputs = [...page.html.matchAll(/<input\b[^>]*>/g)].map((m) => m[0])
    for (const input of inputs.filter((i) => !/type="(hidden|checkbox)"/.test(i))) {
      const id = /\bid="([^"]+)"/.exec(input)?.[1]
      expect(id, input).toBeDefined()
      expect(page.html).toContain(`for="${id}"`)
    }
    // Each checkbox sits inside its label (a label wraps it: no id needed).
    const checkboxes = page.html.match(/<label[^>]*><input type="checkbox"/g) ?? []
    expect(checkboxes.length).toBe(inputs.filter((i) => i.includes('type="checkbox"')).length)
    expect(page.html).toMatch(/<label for="field-key-name">Key name<input id="field-key-name" name="name"/)
  })
})

describe('/sheet', () => {
  it('has a title and a visible heading in both languages', async () => {
    const english = await pages.get('/sheet', en)
    expect(english.status).toBe(200)
    expect(english.html).toContain('<title>Glossary sheet · Glossary</title>')
    expect(english.html).toMatch(/<h1>Glossary sheet<\/h1>/)
    const korean = await pages.get('/sheet', ko)
    expect(korean.html).toContain('<title>용어집 표 · 용어 사전</title>')
    expect(korean.html).toMatch(/<h1>용어집 표<\/h1>/)
  })
})

describe('/admin/sso', () => {
  it('puts each checkbox beside its label', async () => {
    const page = await pages.get('/admin/sso', en)
    expect(page.status).toBe(200)
    const boxes = page.html.match(/<input type="checkbox"[^>]*>/g) ?? []
    expect(boxes.length).toBeGreaterThanOrEqual(2)
    const besideLabels = page.html.match(/<label class="inline-check"><input type="checkbox"/g) ?? []
    expect(besideLabels.length).toBe(boxes.length)
  })
})

describe('/import dry run', () => {
  it('counts one row as one row, in English and Korean', async () => {
    const content = 'slug,name\none-row,One row term'
    const english = textOf(
      (await pages.post('/import', { content, format: 'csv', intent: 'dry-run' }, en)).html,
    )
    expect(english).toContain('1 row: 1 new, 0 updated, 0 unchanged, 0 with errors.')
    expect(english).toContain('Import 1 row')
    expect(english).not.toContain('1 rows')
    const korean = textOf(
      (await pages.post('/import', { content, format: 'csv', intent: 'dry-run' }, ko)).html,
    )
    expect(korean).toContain('1행: 새 용어 1, 수정 0, 변경 없음 0, 오류 0.')
    expect(korean).toContain('1행 가져오기')
  })

  it('groups the digits of large numbers by thousands, in English and Korean', async () => {
    const rows = Array.from({ length: 1200 }, (_, i) => `grouped-${i},Grouped term ${i}`)
    const content = ['slug,name', ...rows].join('\n')
    const english = textOf(
      (await pages.post('/import', { content, format: 'csv', intent: 'dry-run' }, en)).html,
    )
    expect(english).toContain('1,200 rows: 1,200 new, 0 updated, 0 unchanged, 0 with errors.')
    expect(english).toContain('at most 10,000 rows')
    const korean = textOf(
      (await pages.post('/import', { content, format: 'csv', intent: 'dry-run' }, ko)).html,
    )
    expect(korean).toContain('1,200행: 새 용어 1,200, 수정 0, 변경 없음 0, 오류 0.')
  })
})
