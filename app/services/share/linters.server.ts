import { Readable } from 'node:stream'
import { stringify } from 'yaml'
import { ZipFile } from 'yazl'
import { casedKey } from '#app/services/matching/letter-case.ts'
import { severityOf } from '#app/services/validation/findings.server.ts'
import { preferredFormFor } from '#app/services/terms/content.server.ts'
import { selectLintForms, type LintForm } from '#app/services/terms/store.server.ts'
import type { Finding, Severity } from '#app/schemas/validation.ts'
import { em } from '#db/orm.ts'
import type { NotationKind } from '#domain/terms.ts'
import { exportBase, freshExportStatistics, nextTurn } from './terms-source.server.ts'

/**
 * Linter configurations generated from the glossary (docs/decisions/019-sharing.md): a Vale style
 * (`vale.zip`) and prh rules for textlint-rule-prh (`prh.yml`), so writers get the glossary's findings in
 * their editor and CI without a network call. Each finding of POST /validate becomes one rule file, at the
 * severity validation gives it:
 *
 * | finding (validation)                      | Vale (`Glossary/…`)                   | prh.yml                   |
 * | ----------------------------------------- | ------------------------------------- | ------------------------- |
 * | deprecated notation → preferred (`error`) | `DeprecatedNotation.yml` substitution | rule, `expected` = form   |
 * | admitted notation → preferred (`info`)    | `AdmittedNotation.yml` substitution   | rule, `expected` = form   |
 * | any form of a deprecated term (`warning`) | `DeprecatedTerm.yml` existence        | — (no replacement to name) |
 * | deprecated notation of a deprecated term  | `Avoid.yml` existence (`error`)       | —                          |
 * | preferred/admitted forms                  | vocabulary `Glossary/accept.txt`      | —                          |
 *
 * Every file is read from the database in keyset batches ordered by the form's text, so forms several terms
 * share arrive together (one swap key, suggestions joined by `|`) and memory stays flat.
 */

/**
 * Forms read per statement, and form groups handed to a writer between two turns of the event loop: an export
 * takes the one connection and the event loop in short turns (terms-source.server.ts, decision 019). 2,000 forms
 * a statement took ~60 ms of the connection at 2,000 terms, 200 ~9 ms; a group costs the prh writer ~0.1 ms.
 */
const LINT_BATCH = 200
const LINT_SLICE = 20
const SEVERITY_CONFIG = { wrongCaseSeverity: 'warning' } as const

/** Vale's three levels for validation's severities. */
const VALE_LEVEL: Record<Exclude<Severity, 'none'>, string> = {
  error: 'error',
  warning: 'warning',
  info: 'suggestion',
}
const valeLevel = (finding: Finding) =>
  VALE_LEVEL[severityOf(finding, SEVERITY_CONFIG) as Exclude<Severity, 'none'>]

/** The forms that share one text (one per term). */
interface FormGroup {
  text: string
  forms: LintForm[]
}

/** The preferred forms to suggest for `text` by the terms of `forms` that have one (first seen first). */
function preferredForms(forms: readonly LintForm[], text: string): string[] {
  const preferred: string[] = []
  for (const form of forms) {
    const p = preferredFormFor(form, text)
    if (p && p !== text && !preferred.includes(p)) preferred.push(p)
  }
  return preferred
}

/**
 * Forms of the given kinds, grouped by their exact text: groups come in the byte order of the folded key, and
 * within a key by text (a batch always holds whole keys, so the groups of one text are never split).
 */
async function* formGroups(
  kinds: readonly NotationKind[],
  deprecatedTerms: boolean,
): AsyncGenerator<FormGroup> {
  let after: string | null = null
  let handed = 0
  await freshExportStatistics()
  do {
    await nextTurn()
    const batch = await selectLintForms(em(), { kinds, deprecatedTerms, after, limit: LINT_BATCH })
    await nextTurn()
    const rows = batch.rows.sort(
      (a, b) =>
        byteOrder(a.normalized, b.normalized) || byteOrder(a.text, b.text) || byteOrder(a.slug, b.slug),
    )
    let group: FormGroup | undefined
    for (const row of rows) {
      if (group && group.text !== row.text) {
        if (++handed % LINT_SLICE === 0) await nextTurn()
        yield group
        group = undefined
      }
      group ??= { text: row.text, forms: [] }
      if (!group.forms.some((f) => f.termId === row.termId)) group.forms.push(row)
    }
    if (group) yield group
    after = batch.next
  } while (after !== null)
}

const byteOrder = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0)

/**
 * A regular expression matching `text` literally (Vale reads swap keys, tokens and vocabulary lines as regexes).
 * Control characters are written as `\xHH` (read alike by Go's RE2 and JavaScript), so a form holding a line
 * break stays one vocabulary line.
 */
export function literalPattern(text: string): string {
  return text
    .replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
    .replace(/\p{Cc}/gu, (ch) => `\\x${ch.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`)
}

/** One YAML mapping entry (`key: value`) indented under a parent, escaped by the YAML library. */
const yamlEntry = (key: string, value: string, indent = '  ') =>
  indent +
  stringify({ [key]: value }, { lineWidth: 0 })
    .trimEnd()
    .replace(/\n/g, `\n${indent}`) +
  '\n'
const yamlItem = (value: string, indent = '  ') =>
  indent + stringify([value], { lineWidth: 0 }).trimEnd().replace(/\n/g, `\n${indent}`) + '\n'

function ruleHeader(fields: Record<string, unknown>): string {
  return `# Generated by the glossary at ${exportBase()}; regenerate rather than edit.\n${stringify(fields, { lineWidth: 0 })}`
}

/** `Glossary/DeprecatedNotation.yml` or `AdmittedNotation.yml`: a substitution from the form to the preferred. */
async function* substitutionRule(kind: 'deprecated' | 'admitted'): AsyncGenerator<string> {
  const finding: Finding = kind === 'deprecated' ? 'deprecated-notation' : 'admitted-notation'
  yield ruleHeader({
    extends: 'substitution',
    message:
      kind === 'deprecated'
        ? "Use '%s' instead of '%s' (deprecated in the glossary)."
        : "Prefer '%s' to '%s' (admitted in the glossary).",
    level: valeLevel(finding),
    ignorecase: false,
    action: { name: 'replace' },
  })
  yield 'swap:\n'
  let any = false
  for await (const group of formGroups([kind], false)) {
    const preferred = preferredForms(group.forms, group.text)
    if (preferred.length === 0) continue
    any = true
    yield yamlEntry(literalPattern(group.text), preferred.join('|'))
  }
  // An empty map keeps the rule valid YAML for Vale (a rule with nothing to swap finds nothing).
  if (!any) yield '  {}\n'
}

/** `Glossary/DeprecatedTerm.yml` (`warning`) or `Avoid.yml` (`error`): an existence rule listing forms. */
async function* existenceRule(which: 'deprecated-term' | 'avoid'): AsyncGenerator<string> {
  const finding: Finding = which === 'avoid' ? 'deprecated-notation' : 'deprecated-term'
  yield ruleHeader({
    extends: 'existence',
    message:
      which === 'avoid'
        ? "'%s' is deprecated in the glossary."
        : "'%s' names a concept the glossary marks as deprecated.",
    level: valeLevel(finding),
    ignorecase: false,
  })
  yield 'tokens:\n'
  let any = false
  const kinds: NotationKind[] = which === 'avoid' ? ['deprecated'] : ['preferred', 'admitted']
  for await (const group of formGroups(kinds, true)) {
    any = true
    yield yamlItem(literalPattern(group.text))
  }
  if (!any) yield '  []\n'
}

/** `config/vocabularies/Glossary/accept.txt`: every preferred and admitted form, one regex per line. */
async function* acceptVocabulary(): AsyncGenerator<string> {
  for await (const group of formGroups(['preferred', 'admitted'], false)) {
    // A vocabulary line is one entry: literalPattern writes a line break inside a form as `\x0A`.
    yield `${literalPattern(group.text)}\n`
  }
}

const VALE_README = `Glossary style for Vale (https://vale.sh), generated by the glossary service.

Unzip into your StylesPath, then in .vale.ini:

  StylesPath = styles
  Vocab = Glossary

  [*.md]
  BasedOnStyles = Vale, Glossary

Glossary/DeprecatedNotation.yml  deprecated notations -> the preferred form (error)
Glossary/AdmittedNotation.yml    admitted notations -> the preferred form (suggestion)
Glossary/DeprecatedTerm.yml      forms of deprecated terms (warning)
Glossary/Avoid.yml               deprecated notations of deprecated terms (error)
config/vocabularies/Glossary/accept.txt  preferred and admitted forms (Vale.Terms flags other letter cases)
`

/** The entries of `vale.zip`, in order; each is generated when the zip writer reaches it. */
export const VALE_ENTRIES: [string, () => AsyncGenerator<string>][] = [
  [
    'README.txt',
    async function* () {
      yield VALE_README
    },
  ],
  ['Glossary/DeprecatedNotation.yml', () => substitutionRule('deprecated')],
  ['Glossary/AdmittedNotation.yml', () => substitutionRule('admitted')],
  ['Glossary/DeprecatedTerm.yml', () => existenceRule('deprecated-term')],
  ['Glossary/Avoid.yml', () => existenceRule('avoid')],
  ['config/vocabularies/Glossary/accept.txt', acceptVocabulary],
]

/**
 * `vale.zip`, streamed by yazl: each entry's generator runs only when the zip writer reads that entry, so at
 * most one batch of forms is in memory.
 */
export function valeZip(): AsyncIterable<Uint8Array> {
  const zip = new ZipFile()
  const mtime = new Date()
  for (const [name, generate] of VALE_ENTRIES) {
    zip.addReadStream(Readable.from(generate()), name, { mtime, compress: true })
  }
  zip.end()
  return zip.outputStream as AsyncIterable<Uint8Array>
}

/**
 * Which letter cases a prh pattern matches: `any` (the `i` flag), `exact` (as written), or `exact-or-capital` (as
 * written, or with a capital first letter where the form has a small one: the sentence-initial capital of
 * decision 013, which prh cannot tell from a capital inside a sentence).
 */
export type PatternCase = 'any' | 'exact' | 'exact-or-capital'

/**
 * A letter, digit or mark of Latin, Greek or Cyrillic, or `_`: the matcher's WORD class (app/services/matching/
 * boundary.ts: any letter, digit or mark but of Hangul, Han and kana) for those scripts, as a few ranges. Written
 * as `\p{L}\p{N}\p{M}` less the scripts without spaces, as until session 13, it compiled to ~20 KB of machine
 * code and ~0.8 ms per pattern, so textlint with the prh.yml of a 10,000-term glossary (30,000 patterns) ran out
 * of memory before it read a line (`bench/case-matching.bench.ts --peer`); these ranges take ~1.7 KB and ~0.05 ms.
 * So a letter of another script (Arabic, Hebrew, Indic, Thai…) touching a Latin edge is a boundary for prh.yml
 * and not for the matcher (decision 019).
 */
const SPACED_WORD =
  '[0-9A-Z_a-z\\u00AA\\u00B5\\u00BA\\u00C0-\\u00D6\\u00D8-\\u00F6\\u00F8-\\u02AF\\u0300-\\u036F\\u0386\\u0388-\\u03FF\\u0400-\\u052F\\u1E00-\\u1FFF]'
// Combining marks (U+0300–U+036F) are in the class on purpose: a mark glues to the letter before it.
// eslint-disable-next-line no-misleading-character-class
const SPACED_WORD_CHAR = new RegExp(`^${SPACED_WORD}$`)

/**
 * A prh pattern for a form, as a regular expression with the matcher's boundary rule (app/services/matching/
 * boundary.ts) as far as SPACED_WORD goes: a Latin/digit edge must not touch another letter or digit of a
 * script written with spaces (Hangul next to it is a boundary: `API를`); a Hangul edge must not follow Hangul on
 * the left. A space in the form matches any run of spaces or a single line break; `letterCase` says which
 * cases match.
 */
export function prhPattern(text: string, letterCase: PatternCase): string {
  const first = text[0] ?? ''
  const last = text.at(-1) ?? ''
  const isWord = (ch: string) => SPACED_WORD_CHAR.test(ch)
  const isHangul = (ch: string) => /^\p{Script=Hangul}$/u.test(ch)
  let body = text.split(/\s+/).map(literalPattern).join('(?:[^\\S\\n]+|[^\\S\\n]*\\n[^\\S\\n]*)')
  // A small letter is never escaped by literalPattern, so it opens the body as written.
  const capital = first.toUpperCase()
  if (
    letterCase === 'exact-or-capital' &&
    capital !== first &&
    capital.length === 1 &&
    /\p{Ll}/u.test(first)
  ) {
    body = `[${first}${capital}]${body.slice(1)}`
  }
  const left = isWord(first) ? `(?<!${SPACED_WORD})` : isHangul(first) ? '(?<!\\p{Script=Hangul})' : ''
  const right = isWord(last) ? `(?!${SPACED_WORD})` : ''
  // prh adds the `u` flag itself (and accepts only g, i, m, y after the slash).
  return `/${left}${body}${right}/${letterCase === 'any' ? 'i' : ''}`
}

/** The form groups of one folded key at a time: formGroups yields the groups of a key one after another. */
async function* byFoldedKey(groups: AsyncGenerator<FormGroup>): AsyncGenerator<FormGroup[]> {
  let key: FormGroup[] = []
  for await (const group of groups) {
    if (key.length && key[0]!.forms[0]!.normalized !== group.forms[0]!.normalized) {
      yield key
      key = []
    }
    key.push(group)
  }
  if (key.length) yield key
}

/**
 * `prh.yml` for textlint-rule-prh: one rule per deprecated or admitted notation, `expected` being the
 * preferred form (when several terms share the notation, the first by slug), the finding and severity in the
 * rule's `prh` message (prh has no severity of its own: textlint reports every rule at one level).
 *
 * Letter case follows decision 013 as far as a pattern can: where the forms of a folded key (of terms that are
 * not deprecated, the ones this file reads) are written alike, case included, a pattern matches any case, as the
 * matcher does; where they differ only by case (`GitHub` and `Github`, `voratixel` and `VoraTixel`), case
 * tells them apart, so a pattern matches its form as written, or with a capital first letter (a sentence
 * start) unless that is another form of the key. Otherwise `Voratixel` opening a sentence (the preferred
 * `voratixel`) would be reported as the deprecated `VoraTixel`. Rules come a folded key at a time (deprecated
 * before admitted within a key), read in one pass.
 */
export async function* prhYml(): AsyncGenerator<string> {
  yield `# Generated by the glossary at ${exportBase()}; regenerate rather than edit.\nversion: 1\nrules:\n`
  let any = false
  for await (const key of byFoldedKey(formGroups(['preferred', 'admitted', 'deprecated'], false))) {
    const casedForms = new Set(key.map((group) => casedKey(group.text)))
    for (const kind of ['deprecated', 'admitted'] as const) {
      const finding: Finding = kind === 'deprecated' ? 'deprecated-notation' : 'admitted-notation'
      for (const group of key) {
        const expected = preferredForms(
          group.forms.filter((form) => form.kind === kind),
          group.text,
        )[0]
        if (!expected) continue
        any = true
        const cased = casedKey(group.text)
        const letterCase: PatternCase =
          casedForms.size === 1
            ? 'any'
            : casedForms.has(cased.charAt(0).toUpperCase() + cased.slice(1))
              ? 'exact'
              : 'exact-or-capital'
        const rule = {
          expected,
          patterns: [prhPattern(group.text, letterCase)],
          prh: `${finding} (${severityOf(finding, SEVERITY_CONFIG)}): "${group.text}" → "${expected}"`,
        }
        yield `  ${stringify([rule], { lineWidth: 0 }).trimEnd().replace(/\n/g, '\n  ')}\n`
      }
    }
  }
  if (!any) yield '  []\n'
}
