import { beforeAll, describe, expect, it } from 'vitest'
import { matcherCache } from '#app/services/validation/matcher-cache.server.ts'
import { generateCaseGlossary } from '#tests/case-glossary.ts'
import { createApiKey, createUser, type TestUser } from '#tests/factories.ts'
import { useApiServer, type Json } from '#tests/http.ts'
import { useTestDb } from '#tests/setup/db.ts'

// Letter case in matching (docs/decisions/013-letter-case.md), through the HTTP API: import, validate,
// batch/SARIF, lookup, suggest, search and the administrator's severity of wrong-case findings.

useTestDb()
const server = useApiServer()
const api = server.api

let admin: TestUser
let key: Record<string, string>

const STYLE_GUIDE = [
  {
    name: 'GitHub',
    definition: 'A code host.',
    notations: [
      { text: 'Github', kind: 'deprecated' },
      { text: 'GITHUB', kind: 'deprecated' },
    ],
  },
  { name: 'JavaScript', definition: 'A language.' },
  { name: 'iOS', definition: 'An operating system.' },
  { name: 'API Gateway', definition: 'The entry point.', notations: [{ text: 'API GW', kind: 'admitted' }] },
  { name: 'US', definition: 'The United States.' },
  { name: 'us', slug: 'us-pronoun', definition: 'The pronoun.' },
]

beforeAll(async () => {
  admin = await createUser({ role: 'admin' })
  key = await createApiKey(admin.user.id, ['read', 'write', 'validate'])
  const res = await api('POST', '/import', key, { format: 'json', rows: STYLE_GUIDE, wait: true })
  expect(res.json).toMatchObject({ status: 'succeeded', created: STYLE_GUIDE.length, errors: 0 })
  await matcherCache.whenIdle()
})

const findings = (json: Json) =>
  json.occurrences.map((o: Json) => [o.text, o.notation, o.finding, o.severity, o.preferred])

describe('POST /validate', () => {
  it('tells notations that differ only by case apart and reports the wrong case with the preferred form', async () => {
    const text =
      'Github hosts it. We use GitHub, not GITHUB or github. Javascript and JavaScript run on IOS and iOS. ' +
      'IOS is fine here. Calls pass the api gateway, the API gateway and the api gw. US law binds us.'
    const res = await api('POST', '/validate', key, { text })
    expect(res.status).toBe(200)
    expect(findings(res.json)).toEqual([
      ['Github', 'Github', 'deprecated-notation', 'error', 'GitHub'],
      ['GitHub', 'GitHub', 'correct', 'none', 'GitHub'],
      ['GITHUB', 'GITHUB', 'deprecated-notation', 'error', 'GitHub'],
      ['github', 'GitHub', 'wrong-case', 'warning', 'GitHub'],
      ['Javascript', 'JavaScript', 'wrong-case', 'warning', 'JavaScript'],
      ['JavaScript', 'JavaScript', 'correct', 'none', 'JavaScript'],
      ['IOS', 'iOS', 'wrong-case', 'warning', 'iOS'],
      ['iOS', 'iOS', 'correct', 'none', 'iOS'],
      ['IOS', 'iOS', 'correct', 'none', 'iOS'],
      ['api gateway', 'API Gateway', 'wrong-case', 'warning', 'API Gateway'],
      ['API gateway', 'API Gateway', 'correct', 'none', 'API Gateway'],
      ['api gw', 'API GW', 'wrong-case', 'warning', 'API Gateway'],
      ['US', 'US', 'correct', 'none', 'US'],
      ['us', 'us', 'correct', 'none', 'us'],
    ])
    expect(res.json.summary).toMatchObject({ error: 2, warning: 5, none: 7 })
  })

  it('uses the severity the administrator sets, and only an admin session may set it', async () => {
    expect((await api('GET', '/admin/validation-config', admin.sessionHeaders)).json).toEqual({
      wrongCaseSeverity: 'warning',
    })
    const byKey = await api('PATCH', '/admin/validation-config', key, { wrongCaseSeverity: 'error' })
    expect([401, 403]).toContain(byKey.status)
    const editor = await createUser({ role: 'editor' })
    const byEditor = await api('PATCH', '/admin/validation-config', editor.sessionHeaders, {
      wrongCaseSeverity: 'error',
    })
    expect(byEditor.status).toBe(403)
    const bad = await api('PATCH', '/admin/validation-config', admin.sessionHeaders, {
      wrongCaseSeverity: 'loud',
    })
    expect(bad.status).toBe(400)
    expect(bad.json.error.code).toBe('validation_failed')
    try {
      const set = await api('PATCH', '/admin/validation-config', admin.sessionHeaders, {
        wrongCaseSeverity: 'error',
      })
      expect(set.json).toEqual({ wrongCaseSeverity: 'error' })
      const res = await api('POST', '/validate', key, {
        text: 'on Github and github',
        includePreferred: false,
      })
      expect(findings(res.json)).toEqual([
        ['Github', 'Github', 'deprecated-notation', 'error', 'GitHub'],
        ['github', 'GitHub', 'wrong-case', 'error', 'GitHub'],
      ])
      await api('PATCH', '/admin/validation-config', admin.sessionHeaders, { wrongCaseSeverity: 'none' })
      const off = await api('POST', '/validate', key, { text: 'on github', includePreferred: false })
      expect(off.json.occurrences).toEqual([])
    } finally {
      await api('PATCH', '/admin/validation-config', admin.sessionHeaders, { wrongCaseSeverity: 'warning' })
    }
  })
})

describe('Markdown (markup: markdown)', () => {
  const doc = [
    '---',
    'repo: Github',
    '---',
    '# Javascript on GitHub',
    '',
    'Clone it from https://github.com/acme/app or [GitHub](https://github.com/acme "Github page").',
    'Run `javascript --version` and <kbd>Github</kbd> in <span class="github">the Github app</span>.',
    '',
    '```javascript',
    'const github = require("github")',
    '```',
    '',
    '[gh]: https://github.com/acme',
  ].join('\n')

  it('checks the prose only, with the offsets, lines and columns of the text as sent', async () => {
    const res = await api('POST', '/validate', key, {
      text: doc,
      markup: 'markdown',
      includePreferred: false,
    })
    expect(res.status).toBe(200)
    const found = res.json.occurrences.map((o: Json) => [o.text, o.finding, o.line, o.column])
    const line7 = doc.split('\n')[6]!
    expect(found).toEqual([
      ['Javascript', 'wrong-case', 4, 3],
      // the kbd's and the span's text are prose; their tags are not
      ['Github', 'deprecated-notation', 7, line7.indexOf('>Github<') + 2],
      ['Github', 'deprecated-notation', 7, line7.indexOf('the Github') + 5],
    ])
    for (const o of res.json.occurrences) expect(doc.slice(o.start, o.end)).toBe(o.text)
    // as plain text, the same document also reports its front matter, URLs, code and link titles
    const plain = await api('POST', '/validate', key, { text: doc, includePreferred: false })
    expect(plain.json.occurrences.length).toBeGreaterThan(found.length + 4)
  })

  it('batch: the batch’s markup, or a text’s own, and SARIF regions of the text as sent', async () => {
    const res = await api('POST', '/validate/batch', key, {
      markup: 'markdown',
      format: 'sarif',
      texts: [
        { id: 'docs/a.md', text: 'Use `github` or Github.' },
        { id: 'notes.txt', text: 'Use `github` or Github.', markup: 'text' },
      ],
    })
    expect(res.status).toBe(200)
    const regions = res.json.runs[0].results.map((r: Json) => [
      r.locations[0].physicalLocation.artifactLocation.uri,
      r.locations[0].physicalLocation.region.startColumn,
    ])
    expect(regions).toEqual([
      ['docs/a.md', 17],
      ['notes.txt', 6],
      ['notes.txt', 17],
    ])
    const bad = await api('POST', '/validate', key, { text: 'x', markup: 'html' })
    expect(bad.status).toBe(400)
  })
})

describe('POST /validate/batch', () => {
  it('reports wrong case as its own SARIF rule', async () => {
    const res = await api('POST', '/validate/batch', key, {
      format: 'sarif',
      texts: [{ id: 'docs/a.md', text: 'Use Javascript, not Github.' }],
    })
    expect(res.status).toBe(200)
    expect(res.contentType).toMatch(/application\/sarif\+json/)
    const run = res.json.runs[0]
    expect(run.tool.driver.rules.map((r: Json) => r.id)).toEqual([
      'glossary/deprecated-notation',
      'glossary/deprecated-term',
      'glossary/wrong-case',
      'glossary/admitted-notation',
    ])
    expect(
      run.results.map((r: Json) => [
        r.ruleId,
        r.level,
        run.tool.driver.rules[r.ruleIndex].id,
        r.message.text,
      ]),
    ).toEqual([
      [
        'glossary/wrong-case',
        'warning',
        'glossary/wrong-case',
        '"Javascript" is written in the wrong letter case; the glossary writes "JavaScript".',
      ],
      [
        'glossary/deprecated-notation',
        'error',
        'glossary/deprecated-notation',
        '"Github" is deprecated; write "GitHub".',
      ],
    ])
  })
})

describe('POST /terms/lookup, suggest and search', () => {
  it('look up by the same rule', async () => {
    const res = await api('POST', '/terms/lookup', key, {
      texts: ['Github', 'GitHub', 'github', 'us', 'US', 'Us'],
    })
    const byText = Object.fromEntries(res.json.results.map((r: Json) => [r.text, r.matches]))
    const brief = (matches: Json[]) =>
      matches.map((m) => [m.term.name, m.notation, m.kind, m.finding, m.preferred])
    expect(brief(byText.Github)).toEqual([
      ['GitHub', 'Github', 'deprecated', 'deprecated-notation', 'GitHub'],
    ])
    expect(brief(byText.GitHub)).toEqual([['GitHub', 'GitHub', 'preferred', 'correct', 'GitHub']])
    expect(brief(byText.github)).toEqual([['GitHub', 'GitHub', 'preferred', 'wrong-case', 'GitHub']])
    expect(brief(byText.us)).toEqual([['us', 'us', 'preferred', 'correct', 'us']])
    expect(brief(byText.US)).toEqual([['US', 'US', 'preferred', 'correct', 'US']])
    expect(brief(byText.Us)).toEqual([['us', 'us', 'preferred', 'correct', 'us']])
  })

  it('suggest shows the form written as typed and search ranks it first', async () => {
    const github = await api('GET', '/terms/suggest?q=Github', key)
    expect(github.json.items.map((i: Json) => [i.matched, i.kind])).toEqual([['Github', 'deprecated']])
    const GitHub = await api('GET', '/terms/suggest?q=GitH', key)
    expect(GitHub.json.items.map((i: Json) => [i.matched, i.kind])).toEqual([['GitHub', 'preferred']])
    const us = await api('GET', '/terms?q=us', key)
    const US = await api('GET', '/terms?q=US', key)
    expect(us.json.items.map((i: Json) => i.name).slice(0, 2)).toEqual(['us', 'US'])
    expect(US.json.items.map((i: Json) => i.name).slice(0, 2)).toEqual(['US', 'us'])
  })
})

describe('POST /import', () => {
  it('accepts notations that differ only by case and names, per row, each collision and why', async () => {
    const rows = [
      {
        name: 'voratixel',
        definition: 'An invented word.',
        notations: [{ text: 'VoraTixel', kind: 'deprecated' }],
      },
      {
        name: 'LFD',
        definition: 'An acronym.',
        notations: [
          { text: 'lfd', kind: 'deprecated' },
          { text: 'Lfd', kind: 'deprecated' },
          { text: 'L.F.D', kind: 'deprecated' },
          { text: 'ＬＦＤ', kind: 'admitted' },
          { text: 'L.F.D', kind: 'admitted' },
        ],
      },
      { name: 'Us Group', definition: 'A team.', notations: [{ text: 'US', kind: 'admitted' }] },
      {
        name: 'Github Pages',
        slug: 'gh-pages',
        definition: 'Pages.',
        notations: [{ text: 'github', kind: 'admitted' }],
      },
    ]
    const dry = await api('POST', '/import', key, { format: 'json', rows, dryRun: true })
    expect(dry.status).toBe(200)
    expect(dry.json).toMatchObject({ created: 3, errors: 1 })
    expect(dry.json.rows[0]).toMatchObject({ action: 'created' })
    expect(dry.json.rows[0].errors).toBeUndefined()
    expect(dry.json.rows[1]).toMatchObject({ action: 'error' })
    expect(dry.json.rows[1].errors).toEqual([
      {
        path: 'notations.3.kind',
        message: '"ＬＦＤ" is the term\'s name "LFD", so it cannot be admitted.',
      },
      { path: 'notations.4.text', message: '"L.F.D" is listed twice (notations 3 and 5).' },
    ])
    expect(dry.json.rows[2].warnings).toEqual([
      {
        path: 'notations.0.text',
        message: '"US" is also a notation of term "us" ("US"); a use of it is reported for both terms.',
      },
      {
        path: 'notations.0.text',
        message:
          '"US" differs only by letter case from "us" of term "us-pronoun" ("us"); the letter case of a use decides which term it is.',
      },
    ])
    expect(dry.json.rows[3].warnings).toEqual([
      {
        path: 'notations.0.text',
        message:
          '"github" differs only by letter case from "GitHub" of term "github" ("GitHub"); the letter case of a use decides which term it is.',
      },
      {
        path: 'notations.0.text',
        message:
          '"github" differs only by letter case from "Github" of term "github" ("GitHub"); the letter case of a use decides which term it is.',
      },
      {
        path: 'notations.0.text',
        message:
          '"github" differs only by letter case from "GITHUB" of term "github" ("GitHub"); the letter case of a use decides which term it is.',
      },
    ])
    // The real run reports the same and, as one transaction, applies nothing while a row has an error.
    const real = await api('POST', '/import', key, { format: 'json', rows, wait: true })
    expect(real.json).toMatchObject({ status: 'failed', errors: 1 })
    expect(real.json.rows[1].errors).toEqual(dry.json.rows[1].errors)
    expect(real.json.rows[2].warnings).toEqual(dry.json.rows[2].warnings)
    const fixed = rows.map((r) => (r.name === 'LFD' ? { ...r, notations: r.notations.slice(0, 3) } : r))
    const ok = await api('POST', '/import', key, { format: 'json', rows: fixed, wait: true })
    expect(ok.json).toMatchObject({ status: 'succeeded', created: 4, errors: 0 })
    await matcherCache.whenIdle()
    const res = await api('POST', '/validate', key, {
      text: 'Voratixel works. VoraTixel, Voratixel and voratixel; LFD, lfd, Lfd, L.F.D를 쓴다.',
      includePreferred: true,
    })
    expect(res.json.occurrences.map((o: Json) => [o.text, o.notation, o.finding])).toEqual([
      ['Voratixel', 'voratixel', 'correct'],
      ['VoraTixel', 'VoraTixel', 'deprecated-notation'],
      ['Voratixel', 'voratixel', 'wrong-case'],
      ['voratixel', 'voratixel', 'correct'],
      ['LFD', 'LFD', 'correct'],
      ['lfd', 'lfd', 'deprecated-notation'],
      ['Lfd', 'Lfd', 'deprecated-notation'],
      ['L.F.D', 'L.F.D', 'deprecated-notation'],
    ])
  })
})

describe('a generated style guide', () => {
  it('imports completely; every planted deprecated use is found and no preferred use is a finding', async () => {
    const generated = generateCaseGlossary({
      count: 240,
      bytes: 40_000,
      deprecatedUses: 150,
      preferredUses: 150,
    })
    const rows = generated.terms.map((t, i) => ({
      slug: `gen-${i}`,
      name: t.name,
      definition: 'Generated.',
      notations: t.notations.slice(1),
    }))
    const imported = await api('POST', '/import', key, { format: 'json', rows, wait: true })
    expect(imported.json).toMatchObject({ status: 'succeeded', created: rows.length, errors: 0 })
    await matcherCache.whenIdle()
    const res = await api('POST', '/validate', key, { text: generated.text, includePreferred: true })
    expect(res.status).toBe(200)
    const termOf = new Map(rows.map((r, i) => [r.slug, i]))
    const got = res.json.occurrences.map((o: Json) => [o.start, o.end, termOf.get(o.term.slug), o.finding])
    const want = generated.planted.map((p) => [
      p.start,
      p.end,
      p.term,
      p.kind === 'deprecated' ? 'deprecated-notation' : 'correct',
    ])
    expect(got).toEqual(want)
    // Every kind of term and variant is among the planted uses (the test covers what it claims).
    expect(new Set(generated.planted.filter((p) => p.kind === 'deprecated').map((p) => p.term % 4))).toEqual(
      new Set([0, 1, 2, 3]),
    )
  })
})
