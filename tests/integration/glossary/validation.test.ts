import { beforeAll, describe, expect, it, vi } from 'vitest'
import { matcherCache } from '#app/services/validation/matcher-cache.server.ts'
import { lookupTerms } from '#app/services/validation/lookup.server.ts'
import { validateText } from '#app/services/validation/validate.server.ts'
import {
  createApiKey,
  createTerm,
  createUser,
  saveInAnotherProcess,
  type TestUser,
} from '#tests/factories.ts'
import { useApiServer, type Json } from '#tests/http.ts'
import { expectValidSarif } from '#tests/sarif.ts'
import { testEngine, useTestDb } from '#tests/setup/db.ts'

useTestDb()
const server = useApiServer()
const api = server.api

let editor: TestUser
let key: Record<string, string>
const ids: Record<string, string> = {}

beforeAll(async () => {
  editor = await createUser({ role: 'editor' })
  key = await createApiKey(editor.user.id, ['validate', 'read'])
  ids.api = (
    await createTerm({
      name: 'API',
      notations: [
        { text: 'Api', kind: 'preferred', lang: null },
        { text: 'A.P.I.', kind: 'deprecated', lang: null },
      ],
    })
  ).id
  ids.pipeline = (
    await createTerm({
      name: 'data pipeline',
      notations: [{ text: 'datapipe', kind: 'admitted', lang: null }],
    })
  ).id
  ids.term = (
    await createTerm({
      name: 'Term',
      nameKo: '용어',
      notations: [{ text: '술어', kind: 'deprecated', lang: 'ko' }],
    })
  ).id
  ids.info = (await createTerm({ name: 'Information', nameKo: '정보' })).id
  ids.legacy = (await createTerm({ name: 'Mainframe', status: 'deprecated' })).id
  ids.merged = (await createTerm({ name: 'Gone Term' })).id
  ids.survivor = (await createTerm({ name: 'Survivor' })).id
  await api('POST', `/terms/${ids.merged}/merge`, editor.sessionHeaders, { into: ids.survivor })
  await matcherCache.whenIdle()
})

const EMPTY_SUMMARY = { occurrences: 0, error: 0, warning: 0, info: 0, none: 0, terms: 0 }

const found = (json: Json) => json.occurrences.map((o: Json) => [o.text, o.term.id, o.kind, o.severity])

describe('POST /validate', () => {
  it('reports offsets (UTF-16), line/column, notation, term, kind, preferred form and severity', async () => {
    const text = '첫 줄 😀 API를\nA.P.I.는 술어가 아닌 용어를 쓴다'
    const res = await api('POST', '/validate', key, { text })
    expect(res.status).toBe(200)
    expect(found(res.json)).toEqual([
      ['API', ids.api, 'preferred', 'none'],
      ['A.P.I.', ids.api, 'deprecated', 'error'],
      ['술어', ids.term, 'deprecated', 'error'],
      ['용어', ids.term, 'preferred', 'none'],
    ])
    const [first, second, third] = res.json.occurrences
    // The emoji is two UTF-16 code units: offsets and columns count code units.
    expect(first).toMatchObject({ start: 7, end: 10, line: 1, column: 8, notation: 'API' })
    expect(text.slice(first.start, first.end)).toBe('API')
    expect(second).toMatchObject({
      start: 12,
      end: 18,
      line: 2,
      column: 1,
      notation: 'A.P.I.',
      preferred: 'API',
    })
    expect(third.preferred).toBe('용어')
    expect(res.json.summary).toEqual({ occurrences: 4, error: 2, warning: 0, info: 0, none: 2, terms: 2 })
  })

  it('English notations need word boundaries; Hangul next to them is a boundary', async () => {
    const res = await api('POST', '/validate', key, {
      text: 'APIs, rapid, API_KEY, API2 는 아니고 API는, (API), data pipeline에서, data\npipeline, datapipes',
    })
    expect(found(res.json).map((f: Json) => f[0])).toEqual(['API', 'API', 'data pipeline', 'data\npipeline'])
    // A multi-word notation matches across a single line break; line/column are those of its start.
    expect(res.json.occurrences[3]).toMatchObject({ line: 1, kind: 'preferred', text: 'data\npipeline' })
  })

  it('Korean notations take particles but do not match inside longer words', async () => {
    const text =
      '용어를 정의했다. 용어집과 전문용어는 다르다. 정보는 개인정보와 정보화가 아니다. 용어에서는 용어.'
    const res = await api('POST', '/validate', key, { text })
    // 용어를, 용어에서는 and 용어. match; 용어집 (a different word), 전문용어 (inside a compound) do not.
    // 정보는 matches; 개인정보 and 정보화 do not.
    expect(found(res.json).map((f: Json) => [f[0], f[1]])).toEqual([
      ['용어', ids.term],
      ['정보', ids.info],
      ['용어', ids.term],
      ['용어', ids.term],
    ])
    expect(res.json.occurrences.map((o: Json) => o.start)).toEqual([
      0,
      text.indexOf('정보는'),
      text.indexOf('용어에서는'),
      text.lastIndexOf('용어.'),
    ])
  })

  it('admitted → info, deprecated term → warning; merged terms are not matched', async () => {
    const res = await api('POST', '/validate', key, {
      text: 'The datapipe feeds the Mainframe. Gone Term here.',
    })
    expect(found(res.json)).toEqual([
      ['datapipe', ids.pipeline, 'admitted', 'info'],
      ['Mainframe', ids.legacy, 'preferred', 'warning'],
      ['Gone Term', ids.survivor, 'admitted', 'info'],
    ])
    expect(res.json.occurrences[0].preferred).toBe('data pipeline')
    expect(res.json.occurrences[1].preferred).toBeNull()
  })

  it('answers exactly the JSON of the occurrence objects (the serialization fast path)', async () => {
    // Names and notations that need escaping, a term without a preferred form, surrogate pairs.
    await createTerm({
      name: 'Quote "Q" \\ Back',
      nameKo: '따옴표',
      notations: [
        { text: 'q\\b', kind: 'deprecated', lang: null },
        { text: '인용부호', kind: 'admitted', lang: 'ko' },
      ],
    })
    await matcherCache.whenIdle()
    const text = 'A.P.I. and "q\\b" 😀 인용부호를\t술어 Mainframe API datapipe\n\u2028 따옴표는 Api'
    for (const includePreferred of [false, true]) {
      const res = await api('POST', '/validate', key, { text, includePreferred })
      const objects = await validateText({ text, includePreferred, markup: 'text' })
      expect(objects.occurrences.length).toBeGreaterThan(4)
      expect(res.text).toBe(JSON.stringify(objects))
      const batch = await api('POST', '/validate/batch', key, {
        texts: [{ id: 'x"y', text }, { text: '' }],
        includePreferred,
      })
      const { glossary, ...result } = objects
      expect(batch.text).toBe(
        JSON.stringify({
          results: [
            { id: 'x"y', ...result },
            { id: 'text-2', occurrences: [], summary: { ...objects.summary, ...EMPTY_SUMMARY } },
          ],
          summary: { ...objects.summary, texts: 2 },
          glossary,
        }),
      )
    }
  })

  it('needs the validate scope', async () => {
    const readOnly = await createApiKey(editor.user.id, ['read'])
    expect((await api('POST', '/validate', readOnly, { text: 'x' })).status).toBe(403)
    expect((await api('POST', '/validate', editor.sessionHeaders, { text: 'API' })).status).toBe(200)
  })
})

describe('POST /validate/batch', () => {
  it('answers JSON per text with a total summary', async () => {
    const res = await api('POST', '/validate/batch', key, {
      texts: [{ id: 'a.md', text: 'A.P.I. 술어' }, { text: 'nothing here' }],
    })
    expect(res.status).toBe(200)
    expect(res.json.results.map((r: Json) => [r.id, r.summary.occurrences])).toEqual([
      ['a.md', 2],
      ['text-2', 0],
    ])
    expect(res.json.summary).toMatchObject({ texts: 2, occurrences: 2, error: 2 })
  })

  it('answers SARIF 2.1.0 with rules, levels and UTF-16 regions', async () => {
    const res = await api('POST', '/validate/batch', key, {
      format: 'sarif',
      texts: [
        { id: 'docs/intro.md', text: 'ok line\n  A.P.I. and datapipe and API' },
        { id: 'docs/old.md', text: 'Mainframe' },
      ],
    })
    expect(res.status).toBe(200)
    expect(res.contentType).toMatch(/^application\/sarif\+json/)
    const log = res.json
    expectValidSarif(log)
    expect(log.version).toBe('2.1.0')
    expect(log.$schema).toMatch(/sarif-2\.1\.0/)
    const run = log.runs[0]
    expect(run.tool.driver.name).toBe('glossary-validate')
    expect(run.columnKind).toBe('utf16CodeUnits')
    const ruleIds = run.tool.driver.rules.map((r: Json) => r.id)
    expect(
      run.results.map((r: Json) => [r.ruleId, r.level, r.locations[0].physicalLocation.artifactLocation.uri]),
    ).toEqual([
      ['glossary/deprecated-notation', 'error', 'docs/intro.md'],
      ['glossary/admitted-notation', 'note', 'docs/intro.md'],
      ['glossary/deprecated-term', 'warning', 'docs/old.md'],
    ])
    for (const r of run.results) expect(ruleIds[r.ruleIndex]).toBe(r.ruleId)
    expect(run.results[0].locations[0].physicalLocation.region).toMatchObject({
      startLine: 2,
      startColumn: 3,
      endLine: 2,
      endColumn: 9,
      charOffset: 10,
      charLength: 6,
    })
    expect(run.results[0].message.text).toContain('API')
  })

  it('writes each text id as a schema-valid relative URI that decodes back to the id', async () => {
    const texts = [
      'docs/a b.md',
      'C:\\work\\notes.md',
      'a#b?c=1',
      '100%.md',
      '용어/사전.md',
      'e\u0301-😀.md',
      "it's (draft)*!",
      '//host/share.md',
      '/abs/path.md',
      '',
      ' ',
    ]
    const res = await api('POST', '/validate/batch', key, {
      format: 'sarif',
      texts: texts.map((id) => ({ id, text: 'A.P.I.' })),
    })
    expect(res.status).toBe(200)
    expectValidSarif(res.json)
    const run = res.json.runs[0]
    const artifactUris: string[] = run.artifacts.map((a: Json) => a.location.uri)
    const resultUris: string[] = run.results.map(
      (r: Json) => r.locations[0].physicalLocation.artifactLocation.uri,
    )
    expect(resultUris).toEqual(artifactUris)
    expect(artifactUris.map((uri) => decodeURIComponent(uri))).toEqual(texts)
    expect(artifactUris.slice(0, 4)).toEqual([
      'docs/a%20b.md',
      'C%3A%5Cwork%5Cnotes.md',
      'a%23b%3Fc%3D1',
      '100%25.md',
    ])
    expect(artifactUris[6]).toBe('it%27s%20%28draft%29%2A%21')
    // A leading `//` would name a host; a single leading slash is an absolute path and stays.
    expect(artifactUris.slice(7, 9)).toEqual(['/%2Fhost/share.md', '/abs/path.md'])
    // Nothing but unreserved characters, `/` and percent-escapes, whatever the id held.
    for (const uri of artifactUris) expect(uri).toMatch(/^(?:[A-Za-z0-9\-._~/]|%[0-9A-F]{2})*$/)
  })

  it('refuses more than 10 MB of text in total', async () => {
    const chunk = 'x'.repeat(5.3 * 1024 * 1024)
    const res = await api('POST', '/validate/batch', key, { texts: [{ text: chunk }, { text: chunk }] })
    expect(res.status).toBe(413)
    expect(res.json.error.code).toBe('payload_too_large')
  })

  it('refuses more than 1,000 texts', async () => {
    const texts = Array.from({ length: 1001 }, () => ({ text: 'x' }))
    const res = await api('POST', '/validate/batch', key, { texts })
    expect(res.status).toBe(400)
  })
})

describe('POST /terms/lookup', () => {
  it('answers every text in one call with term, kind and preferred form', async () => {
    const res = await api('POST', '/terms/lookup', key, {
      texts: ['a.p.i.', 'ＡＰＩ', '술어', 'unknown', 'Gone Term'],
    })
    expect(res.status).toBe(200)
    const byText = Object.fromEntries(res.json.results.map((r: Json) => [r.text, r]))
    expect(byText['a.p.i.'].matches).toEqual([
      {
        term: { id: ids.api, slug: 'api', name: 'API', status: 'active' },
        notation: 'A.P.I.',
        kind: 'deprecated',
        finding: 'deprecated-notation',
        preferred: 'API',
      },
    ])
    expect(byText['ＡＰＩ'].matches[0]).toMatchObject({ kind: 'preferred', notation: 'API' })
    expect(byText['술어'].matches[0]).toMatchObject({ kind: 'deprecated', preferred: '용어' })
    expect(byText['unknown']).toMatchObject({ found: false, matches: [] })
    expect(byText['Gone Term'].matches.map((m: Json) => m.term.id)).toEqual([ids.survivor])
    const tooMany = await api('POST', '/terms/lookup', key, { texts: Array.from({ length: 501 }, () => 'x') })
    expect(tooMany.status).toBe(400)
  })

  it("answers the JSON of the service's results, whether a text is new, asked again or remembered", async () => {
    // The API writes the lookup's answer with its own encoder (app/api/lookup-answer.server.ts), from shared
    // facts and remembered results; its bytes must be those of JSON.stringify of what the service returns.
    const texts = ['a.p.i.', 'unknown "quoted"\t', '술어', 'ＡＰＩ', 'Gone Term', 'a.p.i.']
    for (let round = 0; round < 4; round++) {
      const res = await api('POST', '/terms/lookup', key, { texts })
      expect(res.text).toBe(JSON.stringify(await lookupTerms({ texts })))
    }
  })
})

describe('the matcher cache', () => {
  it('keeps serving the old matcher until the background rebuild after a save is done', async () => {
    const before = await matcherCache.get()
    const created = await createTerm({ name: 'Fresh Notion' })
    // Right after the save, requests use the snapshot they have (no rebuild inside the request).
    expect(await matcherCache.get()).toBe(before)
    const after = await matcherCache.whenIdle()
    expect(after).not.toBe(before)
    expect(after!.version).toBeGreaterThan(before.version)
    const res = await api('POST', '/validate', key, { text: 'a fresh notion' })
    expect(found(res.json)).toEqual([['fresh notion', created.id, 'preferred', 'none']])

    // Incremental rebuilds also drop terms: renamed notations and deleted terms stop matching.
    await api('PATCH', `/terms/${created.id}`, editor.sessionHeaders, {
      baseRevision: 1,
      name: 'Newer Notion',
    })
    await matcherCache.whenIdle()
    const renamed = await api('POST', '/validate', key, { text: 'a fresh notion, a newer notion' })
    expect(found(renamed.json)).toEqual([['newer notion', created.id, 'preferred', 'none']])
    const admin = await createUser({ role: 'admin' })
    expect((await api('DELETE', `/terms/${created.id}`, admin.sessionHeaders)).status).toBe(204)
    await matcherCache.whenIdle()
    const gone = await api('POST', '/validate', key, { text: 'a newer notion' })
    expect(gone.json.occurrences).toEqual([])
  })

  it('notices saves made by another process through the glossary version', async () => {
    const before = await matcherCache.get()
    // Another process saved (no in-process event is raised): only the glossary version tells.
    await saveInAnotherProcess(ids.info, 'Infobit')
    const infobit = [['infobit', ids.info, 'admitted', 'info']]
    // On PostgreSQL a validation reads the committed version first (other processes write), so the save
    // counts at once; the embedded database's cache learns of it at its next version check.
    expect(found((await api('POST', '/validate', key, { text: 'an infobit' })).json)).toEqual(
      testEngine() === 'postgres' ? infobit : [],
    )
    // A second later (the clock the check reads is moved on, not waited for), the at-most-once-a-second
    // check starts in the background.
    const realNow = Date.now.bind(Date)
    const clock = vi.spyOn(Date, 'now').mockImplementation(() => realNow() + 1100)
    await matcherCache.get()
    const after = await matcherCache.whenIdle()
    clock.mockRestore()
    expect(after!.version).toBe(before.version + 1)
    const res = await api('POST', '/validate', key, { text: 'an infobit' })
    expect(found(res.json)).toEqual(infobit)
  })
})
