import crypto from 'node:crypto'
import { TextlintKernelDescriptor } from '@textlint/kernel'
import textPlugin from '@textlint/textlint-plugin-text'
import jsonld from 'jsonld'
import { Parser, type Quad } from 'n3'
import { createLinter } from 'textlint'
import prhRule from 'textlint-rule-prh'
import { parse as parseYaml } from 'yaml'
import { beforeAll, describe, expect, it } from 'vitest'
import { em } from '#db/orm.ts'
import { createApiKey, createTerm, createUser } from '#tests/factories.ts'
import { apiCall, useApiServer } from '#tests/http.ts'
import { useTestDb } from '#tests/setup/db.ts'
import { kids, parseXml, unzip } from '#tests/export-files.ts'
import type { TermDto } from '#app/services/terms/read.server.ts'

// Response bodies are inspected loosely, as JSON.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any
useTestDb()
const server = useApiServer()

const SKOS = 'http://www.w3.org/2004/02/skos/core#'
const DCT = 'http://purl.org/dc/terms/'
const TBX_NS = 'urn:iso:std:iso:30042:ed-2'

let readKey: Record<string, string>
let editorKey: Record<string, string>
let session: Record<string, string>
const t: Record<string, TermDto> = {}

async function download(
  path: string,
  headers = readKey,
): Promise<{ status: number; res: Response; bytes: Buffer }> {
  const res = await fetch(`${server.url()}/api/v1${path}`, { headers })
  const bytes = Buffer.from(await res.arrayBuffer())
  return { status: res.status, res, bytes }
}

async function relate(source: TermDto, target: TermDto, type: string, status = 'approved'): Promise<void> {
  await em().execute(
    `insert into relations (id, source_term_id, target_term_id, relation_type, evidence_md, source_revision,
                            target_revision, status, version)
     values (?, ?, ?, ?, 'test', 1, 1, ?, ?)`,
    [crypto.randomUUID(), source.id, target.id, type, status, crypto.randomUUID()],
  )
}

beforeAll(async () => {
  const admin = await createUser({ role: 'admin' })
  const editor = await createUser({ role: 'editor' })
  session = admin.sessionHeaders
  readKey = await createApiKey(editor.user.id, ['read'])
  editorKey = await createApiKey(editor.user.id, ['read', 'write', 'validate'])
  await apiCall(server.url(), 'POST', '/domains', admin.sessionHeaders, {
    key: 'platform',
    nameKo: '플랫폼',
    nameEn: 'Platform',
  })
  t.mq = await createTerm({
    name: 'Message Queue',
    slug: 'message-queue',
    nameKo: '메시지 큐',
    notations: [
      { text: 'MQ', kind: 'admitted', lang: null },
      { text: 'Msg Queue', kind: 'deprecated', lang: null },
      { text: '메세지 큐', kind: 'deprecated', lang: null },
    ],
    domains: ['platform'],
    tags: ['infra', 'async'],
    definition: 'A buffer that passes messages between services, "quoted", with a comma.',
    body: 'Line one\nLine two with **Markdown**.',
  })
  t.middleware = await createTerm({ name: 'Middleware', slug: 'middleware', definition: '' })
  t.bus = await createTerm({
    name: 'Event Bus',
    slug: 'event-bus',
    notations: [{ text: 'Change Feed', kind: 'deprecated', lang: null }],
  })
  t.legacy = await createTerm({
    name: 'Legacy Bus',
    slug: 'legacy-bus',
    status: 'deprecated',
    notations: [
      { text: 'Old Bus', kind: 'admitted', lang: null },
      { text: 'Ancient Bus', kind: 'deprecated', lang: null },
    ],
  })
  t.ledger = await createTerm({
    name: '원장',
    slug: 'ledger',
    nameEn: 'Ledger',
    nameKo: '원장',
    notations: [{ text: '장부', kind: 'deprecated', lang: null }],
    definition: '거래를 기록하는 장부.',
  })
  await relate(t.mq, t.middleware, 'is_a')
  await relate(t.bus, t.mq, 'related_to')
  await relate(t.mq, t.legacy, 'replaces')
  await relate(t.ledger, t.mq, 'part_of', 'proposed')
})

describe('access to the exports', () => {
  const paths = [
    '/export/terms.csv',
    '/export/terms.tbx',
    '/export/terms.skos.ttl',
    '/export/terms.skos.jsonld',
    '/export/vale.zip',
    '/export/prh.yml',
  ]
  it('need a session or a key with the read scope', async () => {
    const validateOnly = await createApiKey((await createUser()).user.id, ['validate'])
    for (const path of paths) {
      expect((await download(path, {})).status, path).toBe(401)
      expect((await download(path, validateOnly)).status, path).toBe(403)
      const byKey = await download(path, readKey)
      expect(byKey.status, path).toBe(200)
      expect(byKey.res.headers.get('content-disposition'), path).toMatch(/^attachment; filename="glossary-/)
      expect((await download(path, session)).status, path).toBe(200)
    }
  })

  it('are listed in the OpenAPI document with their media types', async () => {
    const doc = (await apiCall(server.url(), 'GET', '/openapi', {})).json
    expect(Object.keys(doc.paths['/export/terms.csv'].get.responses['200'].content)).toEqual(['text/csv'])
    expect(doc.paths['/export/vale.zip'].get.responses['200'].content).toEqual({ 'application/zip': {} })
    expect(doc.paths['/export/terms.tbx'].get['x-required-scopes']).toEqual(['read'])
  })
})

describe('GET /export/terms.csv', () => {
  it('re-imports unchanged', async () => {
    const { res, bytes } = await download('/export/terms.csv')
    expect(res.headers.get('content-type')).toMatch(/^text\/csv/)
    expect([...bytes.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf])
    const csv = bytes.toString('utf8')
    expect(csv.split('\r\n')[0]).toBe(
      '\uFEFF"slug","name","fullName","nameEn","nameKo","preferred","preferredLang","admitted","admittedLang","deprecated","deprecatedLang","domains","categories","tags","status","definition","body","note"',
    )
    const dry = await apiCall(server.url(), 'POST', '/import', editorKey, {
      format: 'csv',
      csv,
      dryRun: true,
    })
    expect(dry.status).toBe(200)
    expect(dry.json.total).toBe(5)
    expect(dry.json.rows.map((r: Json) => r.action)).toEqual(Array(5).fill('unchanged'))
  })
})

describe('GET /export/terms.tbx', () => {
  it('is well-formed TBX-Basic with a concept per term and its language sections', async () => {
    const { res, bytes } = await download('/export/terms.tbx')
    expect(res.headers.get('content-type')).toMatch(/^application\/x-tbx\+xml/)
    const xml = bytes.toString('utf8')
    expect(xml.startsWith('<?xml version="1.0" encoding="UTF-8"?>')).toBe(true)
    const tbx = parseXml(xml)
    expect(tbx).toMatchObject({ name: 'tbx', ns: TBX_NS })
    expect(tbx.attrs).toMatchObject({ type: 'TBX-Basic', style: 'dca', 'xml:lang': 'en' })
    expect(tbx.children.map((c) => c.name)).toEqual(['tbxHeader', 'text'])
    expect(kids(kids(kids(tbx, 'tbxHeader')[0]!, 'fileDesc')[0]!, 'sourceDesc')).toHaveLength(1)
    const entries = kids(kids(kids(tbx, 'text')[0]!, 'body')[0]!, 'conceptEntry')
    expect(entries).toHaveLength(5)
    const ALLOWED = new Set(['preferredTerm-admn-sts', 'admittedTerm-admn-sts', 'deprecatedTerm-admn-sts'])
    for (const entry of entries) {
      expect(entry.ns).toBe(TBX_NS)
      expect(entry.attrs.id).toMatch(/^t-[0-9a-f-]{36}$/)
      // TBX-Basic order: concept-level descrip/xref, then langSecs; each langSec holds at least one termSec.
      const langSecs = kids(entry, 'langSec')
      expect(langSecs.length).toBeGreaterThan(0)
      for (const langSec of langSecs) {
        expect(langSec.attrs['xml:lang']).toMatch(/^(en|ko)$/)
        expect(kids(langSec, 'termSec').length).toBeGreaterThan(0)
        for (const termSec of kids(langSec, 'termSec')) {
          expect(termSec.children.map((c) => c.name)).toEqual(['term', 'termNote'])
          expect(termSec.children[1]!.attrs.type).toBe('administrativeStatus')
          expect(ALLOWED.has(termSec.children[1]!.text)).toBe(true)
        }
      }
    }
    const mq = entries.find((e) => e.attrs.id === `t-${t.mq!.id}`)!
    expect(kids(mq, 'descrip').map((d) => [d.attrs.type, d.text])).toEqual([
      ['subjectField', 'Platform (platform)'],
    ])
    expect(kids(mq, 'xref')[0]!.attrs.target).toMatch(new RegExp(`/terms/${t.mq!.id}$`))
    const sec = (lang: string) => kids(mq, 'langSec').find((l) => l.attrs['xml:lang'] === lang)!
    const terms = (lang: string) =>
      kids(sec(lang), 'termSec').map((s) => [s.children[0]!.text, s.children[1]!.text])
    expect(terms('en')).toEqual([
      ['Message Queue', 'preferredTerm-admn-sts'],
      ['MQ', 'admittedTerm-admn-sts'],
      ['Msg Queue', 'deprecatedTerm-admn-sts'],
    ])
    expect(terms('ko')).toEqual([
      ['메시지 큐', 'preferredTerm-admn-sts'],
      ['메세지 큐', 'deprecatedTerm-admn-sts'],
    ])
    expect(kids(sec('en'), 'descrip')[0]!.text).toBe(t.mq!.definition)
    const ledger = entries.find((e) => e.attrs.id === `t-${t.ledger!.id}`)!
    const koLedger = kids(ledger, 'langSec').find((l) => l.attrs['xml:lang'] === 'ko')!
    expect(kids(koLedger, 'descrip')[0]!.text).toBe('거래를 기록하는 장부.')
  })
})

const quadKey = (q: Quad) =>
  `${q.subject.value} ${q.predicate.value} ${q.object.termType === 'Literal' ? JSON.stringify(q.object.value) + '@' + (q.object as { language: string }).language + '^' + (q.object as { datatype: { value: string } }).datatype.value : q.object.value}`

describe('GET /export/terms.skos.ttl and .jsonld', () => {
  it('hold the same SKOS graph, parsed back by n3 and jsonld', async () => {
    const ttl = (await download('/export/terms.skos.ttl')).bytes.toString('utf8')
    const turtle = new Parser({ format: 'text/turtle' }).parse(ttl)
    const doc = JSON.parse((await download('/export/terms.skos.jsonld')).bytes.toString('utf8'))
    expect(Object.keys(doc)).toEqual(['@context', '@graph'])
    const nquads = (await jsonld.toRDF(doc, { format: 'application/n-quads' })) as unknown as string
    const fromJsonLd = new Parser({ format: 'application/n-quads' }).parse(nquads)
    expect(new Set(fromJsonLd.map(quadKey))).toEqual(new Set(turtle.map(quadKey)))
    expect(turtle.length).toBeGreaterThan(30)

    const has = (s: string, p: string, o: string) =>
      turtle.some(
        (q) =>
          q.subject.value === s &&
          q.predicate.value === p &&
          (q.object.termType === 'Literal'
            ? `${q.object.value}@${(q.object as { language: string }).language}`
            : q.object.value) === o,
      )
    const base = turtle.find((q) => q.object.value === `${SKOS}ConceptScheme`)!.subject.value
    const iri = (term: TermDto) => `${base}/${term.id}`
    expect(has(base, `${SKOS}prefLabel`, 'Glossary@en')).toBe(true)
    const domain = base.replace(/\/terms$/, '/domains/platform')
    expect(has(domain, `${SKOS}prefLabel`, '플랫폼@ko')).toBe(true)
    expect(has(iri(t.mq!), `${SKOS}inScheme`, domain)).toBe(true)
    expect(has(iri(t.mq!), `${SKOS}prefLabel`, 'Message Queue@en')).toBe(true)
    expect(has(iri(t.mq!), `${SKOS}prefLabel`, '메시지 큐@ko')).toBe(true)
    expect(has(iri(t.mq!), `${SKOS}altLabel`, 'MQ@en')).toBe(true)
    expect(has(iri(t.mq!), `${SKOS}hiddenLabel`, 'Msg Queue@en')).toBe(true)
    expect(has(iri(t.mq!), `${SKOS}hiddenLabel`, '메세지 큐@ko')).toBe(true)
    expect(has(iri(t.mq!), `${SKOS}broader`, iri(t.middleware!))).toBe(true)
    expect(has(iri(t.middleware!), `${SKOS}narrower`, iri(t.mq!))).toBe(true)
    expect(has(iri(t.bus!), `${SKOS}related`, iri(t.mq!))).toBe(true)
    expect(has(iri(t.mq!), `${SKOS}related`, iri(t.bus!))).toBe(true)
    expect(has(iri(t.mq!), `${DCT}replaces`, iri(t.legacy!))).toBe(true)
    expect(has(iri(t.legacy!), `${DCT}isReplacedBy`, iri(t.mq!))).toBe(true)
    expect(
      turtle.some((q) => q.subject.value === iri(t.legacy!) && q.predicate.value.endsWith('owl#deprecated')),
    ).toBe(true)
    // A proposed relation is not exported; one prefLabel per language.
    expect(
      turtle.some((q) => q.subject.value === iri(t.ledger!) && q.predicate.value === `${SKOS}broader`),
    ).toBe(false)
    const prefLangs = turtle
      .filter((q) => q.subject.value === iri(t.ledger!) && q.predicate.value === `${SKOS}prefLabel`)
      .map((q) => (q.object as { language: string }).language)
    expect(prefLangs.sort()).toEqual(['en', 'ko'])
  })
})

describe('GET /export/vale.zip', () => {
  it('is a Vale style whose files follow Vale’s documented rule format', async () => {
    const { res, bytes } = await download('/export/vale.zip')
    expect(res.headers.get('content-type')).toBe('application/zip')
    const files = await unzip(bytes)
    expect([...files.keys()]).toEqual([
      'README.txt',
      'Glossary/DeprecatedNotation.yml',
      'Glossary/AdmittedNotation.yml',
      'Glossary/DeprecatedTerm.yml',
      'Glossary/Avoid.yml',
      'config/vocabularies/Glossary/accept.txt',
    ])
    const rule = (name: string) => parseYaml(files.get(`Glossary/${name}.yml`)!) as Json
    // Vale's rule header: extends (the extension point), message (with %s), level.
    for (const name of ['DeprecatedNotation', 'AdmittedNotation', 'DeprecatedTerm', 'Avoid']) {
      const r = rule(name)
      expect(['substitution', 'existence']).toContain(r.extends)
      expect(r.message).toMatch(/%s/)
      expect(['suggestion', 'warning', 'error']).toContain(r.level)
      expect(typeof r.ignorecase).toBe('boolean')
    }
    const deprecated = rule('DeprecatedNotation')
    expect(deprecated).toMatchObject({ extends: 'substitution', level: 'error', action: { name: 'replace' } })
    expect(deprecated.swap).toEqual({
      'Change Feed': 'Event Bus',
      'Msg Queue': 'Message Queue',
      '메세지 큐': '메시지 큐',
      장부: '원장',
    })
    expect(rule('AdmittedNotation')).toMatchObject({ level: 'suggestion', swap: { MQ: 'Message Queue' } })
    expect(rule('DeprecatedTerm')).toMatchObject({ extends: 'existence', level: 'warning' })
    expect(rule('DeprecatedTerm').tokens.sort()).toEqual(['Legacy Bus', 'Old Bus'])
    expect(rule('Avoid')).toMatchObject({ extends: 'existence', level: 'error', tokens: ['Ancient Bus'] })
    // Swap keys, tokens and vocabulary lines are regular expressions: each must compile.
    for (const pattern of [...Object.keys(deprecated.swap), ...rule('DeprecatedTerm').tokens]) {
      expect(() => new RegExp(pattern)).not.toThrow()
    }
    const accept = files.get('config/vocabularies/Glossary/accept.txt')!.trimEnd().split('\n')
    expect(accept).toEqual(
      expect.arrayContaining([
        'Message Queue',
        'MQ',
        '메시지 큐',
        'Middleware',
        'Event Bus',
        '원장',
        'Ledger',
      ]),
    )
    expect(accept).not.toContain('Msg Queue')
    expect(accept).not.toContain('Legacy Bus')
  })
})

/** textlint's messages for `text` with textlint-rule-prh configured by `yml`. */
async function lintWithPrh(yml: string, text: string) {
  const descriptor = new TextlintKernelDescriptor({
    rules: [{ ruleId: 'prh', rule: prhRule, options: { ruleContents: [yml] } }],
    plugins: [{ pluginId: 'text', plugin: textPlugin }],
    filterRules: [],
  })
  return createLinter({ descriptor }).lintText(text, 'sample.txt')
}

describe('GET /export/prh.yml with textlint', () => {
  it('finds with textlint-rule-prh what POST /validate finds, apart from the documented limits', async () => {
    const { res, bytes } = await download('/export/prh.yml')
    expect(res.headers.get('content-type')).toMatch(/^application\/yaml/)
    const yml = bytes.toString('utf8')
    const sample = [
      'Our Msg Queue sends events to the Middleware.',
      'An MQ is fine, and the Change Feed is now the Event Bus.',
      'We no longer run the Legacy Bus (also called the Old Bus).',
      'Write Message Queue, and never msg queue nor MQs.',
    ].join('\n')
    const result = await lintWithPrh(yml, sample)
    const byTextlint = result.messages.map((m) => m.range[0]).sort((a, b) => a - b)

    const validation = await apiCall(server.url(), 'POST', '/validate', editorKey, {
      text: sample,
      includePreferred: false,
    })
    expect(validation.status).toBe(200)
    const found = validation.json.occurrences as Json[]
    // Known limit (docs/decisions/019-sharing.md): forms of a deprecated term name no replacement, so prh
    // has no rule for them; everything else must agree.
    const limits = found.filter((o) => o.finding === 'deprecated-term')
    expect(limits.map((o) => o.text).sort()).toEqual(['Legacy Bus', 'Old Bus'])
    const rest = found.filter((o) => o.finding !== 'deprecated-term')
    expect(rest.map((o) => o.text).sort()).toEqual(['Change Feed', 'MQ', 'Msg Queue', 'msg queue'])
    // The same places (textlint's range starts where the use starts), and the same replacement.
    expect(byTextlint).toEqual(rest.map((o) => o.start).sort((a, b) => a - b))
    for (const o of rest) {
      const message = result.messages.find((m) => m.range[0] === o.start)!.message
      expect(message).toContain(`=> ${o.preferred}`)
    }
  })

  it('tells notations that differ only by case apart, as validation does (decision 013)', async () => {
    await createTerm({
      name: 'GitHub',
      slug: 'github',
      notations: [
        { text: 'Github', kind: 'deprecated', lang: null },
        { text: 'github', kind: 'deprecated', lang: null },
      ],
    })
    await createTerm({
      name: 'voratixel',
      slug: 'voratixel',
      notations: [{ text: 'VoraTixel', kind: 'deprecated', lang: null }],
    })
    await createTerm({
      name: 'iOS',
      slug: 'ios',
      notations: [{ text: 'ios', kind: 'deprecated', lang: null }],
    })
    const sample = [
      'Github hosts it. We use GitHub, not Github.',
      'github works too. Voratixel opens this sentence; voratixel is right, VoraTixel is not.',
      'Ios starts this one, and only GITHUB is the wrong case.',
    ].join('\n')
    const yml = (await download('/export/prh.yml')).bytes.toString('utf8')
    // A folded key whose forms differ only by case: each form as written (`ios` also with a sentence's capital);
    // a key written one way matches any case, as before.
    const rules = parseYaml(yml).rules as { expected: string; patterns: string[] }[]
    const pattern = (expected: string, form: string) =>
      rules.find((r) => r.expected === expected && r.patterns[0]!.includes(form))!.patterns[0]!
    expect(pattern('GitHub', 'Github')).toMatch(/[^\]]Github[^/]*\/$/)
    expect(pattern('iOS', 'os')).toContain('[iI]os')
    expect(pattern('iOS', 'os')).toMatch(/\/$/)
    expect(pattern('Event Bus', 'Change')).toMatch(/\/i$/)

    const result = await lintWithPrh(yml, sample)
    // textlint's own range of a prh message is one character; its fix covers the use.
    const byTextlint = result.messages.map((m) => [m.fix!.range[0], m.fix!.range[1]])
    const validation = await apiCall(server.url(), 'POST', '/validate', editorKey, {
      text: sample,
      includePreferred: false,
    })
    const found = validation.json.occurrences as Json[]
    // The wrong case is validation's own finding (a documented limit of prh.yml); every other agrees.
    expect(found.filter((o) => o.finding === 'wrong-case').map((o) => o.text)).toEqual(['GITHUB'])
    const rest = found.filter((o) => o.finding !== 'wrong-case')
    expect(rest.map((o) => o.text)).toEqual(['Github', 'Github', 'github', 'VoraTixel', 'Ios'])
    expect(byTextlint.sort((a, b) => a[0]! - b[0]!)).toEqual(rest.map((o) => [o.start, o.end]))
  })
})
