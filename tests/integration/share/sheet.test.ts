import { describe, expect, it } from 'vitest'
import { shareBuilderData } from '#app/pages/share.server.ts'
import { embedSnippet, sheetQueryString } from '#app/lib/share-links.ts'
import { SheetQuerySchema } from '#app/schemas/share.ts'
import { runImport } from '#app/services/import/import.server.ts'
import { loadSheet } from '#app/services/share/sheet.server.ts'
import { createTerm, createUser } from '#tests/factories.ts'
import { useTestDb } from '#tests/setup/db.ts'

useTestDb()

describe('the shared sheet’s parameters', () => {
  it('keeps known columns in the link’s order, ignores unknown ones and falls back to the defaults', () => {
    expect(SheetQuerySchema.parse({ columns: 'status,name,bogus,name' }).columns).toEqual(['status', 'name'])
    expect(SheetQuerySchema.parse({ columns: ['nameKo', 'definition'] }).columns).toEqual([
      'nameKo',
      'definition',
    ])
    expect(SheetQuerySchema.parse({ columns: 'bogus' }).columns).toEqual([
      'name',
      'notations',
      'status',
      'definition',
    ])
    expect(SheetQuerySchema.parse({}).columns).toEqual(['name', 'notations', 'status', 'definition'])
  })

  it('reads compact, links and border as 1 or 0; anything else is the default', () => {
    expect(SheetQuerySchema.parse({})).toMatchObject({ compact: false, links: true, border: true })
    expect(SheetQuerySchema.parse({ compact: '1', links: '0', border: '0' })).toMatchObject({
      compact: true,
      links: false,
      border: false,
    })
    expect(SheetQuerySchema.parse({ compact: 'yes', links: 'false', border: ['0', '1'] })).toMatchObject({
      compact: false,
      links: true,
      border: true,
    })
  })

  it('takes the term list’s filters and drops a bad one instead of failing the shared link', () => {
    const q = SheetQuerySchema.parse({ q: 'api', status: 'active', domain: 'platform', tag: ['a', 'b'] })
    expect(q).toMatchObject({ q: 'api', status: 'active', domain: ['platform'], tag: ['a', 'b'] })
    expect(SheetQuerySchema.parse({ status: 'nope' }).status).toBeUndefined()
  })

  it('builds the links the builder hands out, only with what differs from the defaults', () => {
    const options = {
      columns: ['name', 'status'] as const,
      compact: true,
      links: false,
      border: true,
      filters: { q: 'a&b', status: 'active', domain: ['platform'] },
    }
    const query = sheetQueryString({ ...options, columns: [...options.columns] })
    expect(query).toBe('?columns=name%2Cstatus&compact=1&links=0&q=a%26b&status=active&domain=platform')
    expect(SheetQuerySchema.parse(Object.fromEntries(new URLSearchParams(query)))).toMatchObject({
      columns: ['name', 'status'],
      compact: true,
      links: false,
      border: true,
      q: 'a&b',
    })
    expect(embedSnippet('https://g.example', { ...options, columns: [...options.columns] }, 'Say "hi"')).toBe(
      '<iframe src="https://g.example/embed?columns=name%2Cstatus&amp;compact=1&amp;links=0&amp;q=a%26b&amp;status=active&amp;domain=platform" title="Say &quot;hi&quot;" width="100%" height="480" style="border:0" loading="lazy"></iframe>',
    )
    expect(
      sheetQueryString({
        columns: ['name', 'notations', 'status', 'definition'],
        compact: false,
        links: true,
        border: true,
        filters: {},
      }),
    ).toBe('')
  })

  it('reads the builder’s form: an unchecked box is off once the form was sent', () => {
    const before = shareBuilderData(new URL('http://g.example/terms?q=x'))
    expect(before).toMatchObject({ built: false, origin: 'http://g.example' })
    expect(before.options).toMatchObject({ compact: false, links: true, border: true, filters: { q: 'x' } })
    const sent = shareBuilderData(
      new URL('http://g.example/terms?share=1&q=x&columns=name&columns=tags&compact=1&border=1'),
    )
    expect(sent).toMatchObject({ built: true })
    expect(sent.options).toMatchObject({
      columns: ['name', 'tags'],
      compact: true,
      links: false,
      border: true,
    })
  })
})

describe('loadSheet', () => {
  it('shows at most 200 rows and says how many matched', async () => {
    // One import run (one transaction) rather than 205 saves: the same terms, a quarter of the time.
    const { user } = await createUser({ role: 'editor' })
    const rows = Array.from({ length: 205 }, (_, i) => ({
      name: `Sheet Cap ${String(i).padStart(3, '0')}`,
      tags: ['sheet-cap'],
    }))
    const imported = await runImport({
      input: { format: 'json', rows, emptyCells: 'keep', dryRun: false, wait: true },
      actorId: user.id,
    })
    expect(imported).toMatchObject({ kind: 'job', job: { status: 'succeeded', created: 205 } })
    await createTerm({ name: 'Sheet Other', tags: ['other'] })
    const sheet = await loadSheet(SheetQuerySchema.parse({ tag: 'sheet-cap' }))
    expect(sheet.items).toHaveLength(200)
    expect(sheet.total).toBe(205)
    expect(sheet.items[0]!.name).toBe('Sheet Cap 000')
    const few = await loadSheet(SheetQuerySchema.parse({ q: 'Sheet Cap 20' }))
    expect(few.items.map((i) => i.name)).toEqual([200, 201, 202, 203, 204].map((n) => `Sheet Cap ${n}`))
    expect(few.total).toBe(5)
  })
})
