import { beforeAll, describe, expect, it } from 'vitest'
import { CSV_COLUMNS } from '#app/services/import/csv.server.ts'
import * as importPage from '#app/routes/import._index.tsx'
import { createApiKey, createUser, type TestUser } from '#tests/factories.ts'
import { useApiServer, type Json } from '#tests/http.ts'
import { pageText, usePageServer } from '#tests/page-server.ts'
import { useTestDb } from '#tests/setup/db.ts'

useTestDb()

/**
 * The CSV import template works where it is downloaded (issue 27, item 2): on a fresh install (no domains, no
 * business categories) its example rows dry-run without errors, and once the scheme has entries the examples
 * use them. The import page says that keys must exist first, and where they are managed.
 */

const server = useApiServer()
const api = server.api
const pages = usePageServer({ 'routes/import._index': { path: 'import', module: importPage } })

let admin: TestUser
let editor: TestUser
let key: Record<string, string>

beforeAll(async () => {
  admin = await createUser({ role: 'admin' })
  editor = await createUser({ role: 'editor' })
  key = await createApiKey(editor.user.id, ['read', 'write'])
})

/** The template's rows as objects by column. */
function rowsOf(csv: string): Record<string, string>[] {
  const [header, ...rows] = csv.split('\r\n').filter(Boolean)
  expect(header).toBe(CSV_COLUMNS.join(','))
  // the example rows quote only cells without commas inside the classification columns
  return rows.map((line) => {
    const cells = [...line.matchAll(/("(?:[^"]|"")*"|[^,]*)(,|$)/g)].map((m) => m[1]!)
    return Object.fromEntries(CSV_COLUMNS.map((column, i) => [column, cells[i] ?? '']))
  })
}

describe('GET /import/template.csv', () => {
  it('on a fresh install: the examples name no domain or category, and dry-run without errors', async () => {
    const template = await api('GET', '/import/template.csv', key)
    expect(template.status).toBe(200)
    const rows = rowsOf(template.text)
    expect(rows).toHaveLength(2)
    expect(rows.map((r) => [r.domains, r.categories])).toEqual([
      ['', ''],
      ['', ''],
    ])
    const dry = await api('POST', '/import', key, { format: 'csv', csv: template.text, dryRun: true })
    expect(dry.status).toBe(200)
    expect(dry.json.errors).toBe(0)
    expect(dry.json.rows.map((r: Json) => [r.action, r.errors ?? []])).toEqual([
      ['created', []],
      ['created', []],
    ])
  })

  it('once the scheme has entries, the examples use them and still dry-run without errors', async () => {
    for (const [path, body] of [
      ['/domains', { key: 'platform', nameKo: '플랫폼', nameEn: 'Platform', sort: 1 }],
      ['/domains', { key: 'payments', nameKo: '결제', nameEn: 'Payments', sort: 2 }],
      ['/categories', { key: 'back-office', nameKo: '백오피스', nameEn: 'Back office' }],
    ] as const) {
      expect((await api('POST', path, admin.sessionHeaders, body)).status).toBe(201)
    }
    const template = await api('GET', '/import/template.csv', key)
    expect(rowsOf(template.text).map((r) => [r.domains, r.categories])).toEqual([
      ['platform', 'back-office'],
      ['payments', ''],
    ])
    const dry = await api('POST', '/import', key, { format: 'csv', csv: template.text, dryRun: true })
    expect(dry.json.errors).toBe(0)
    expect(dry.json.rows.map((r: Json) => r.action)).toEqual(['created', 'created'])
  })
})

describe('the import page', () => {
  it('says classification keys must exist first: an admin gets the link, an editor is told who adds them', async () => {
    const forAdmin = await pages.get('/import', admin.sessionHeaders)
    expect(forAdmin.status).toBe(200)
    expect(forAdmin.html).toMatch(
      /data-testid="classification-import-hint">[^<]*<!-- --> <a [^>]*href="\/admin\/classification">/,
    )
    const forEditor = await pages.get('/import', editor.sessionHeaders)
    expect(forEditor.html).toContain('data-testid="classification-import-hint"')
    expect(forEditor.html).not.toContain('href="/admin/classification"')
    expect(pageText(forEditor.html)).toContain('An administrator adds them.')
  })
})
