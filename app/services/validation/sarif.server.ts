import { FINDING_VALUES, type Finding, type GlossaryState, type SarifLog } from '#app/schemas/validation.ts'
import type { Occurrence } from './findings.server.ts'

/**
 * SARIF 2.1.0 (https://docs.oasis-open.org/sarif/sarif/v2.1.0/sarif-v2.1.0.html) for CI systems. One run,
 * one result per finding (correct uses, severity `none`, are not findings and are left out), columns in
 * UTF-16 code units (`columnKind`), regions with 1-based lines/columns, `endColumn` exclusive, and
 * `charOffset`/`charLength` as well.
 */
type SarifRule = SarifLog['runs'][number]['tool']['driver']['rules'][number]

/** One rule per finding of FINDING_VALUES that is reported (a correct use is not). */
type ReportedFinding = Exclude<Finding, 'correct'>
const RULE: Record<ReportedFinding, { name: string; text: string; level: 'error' | 'warning' | 'note' }> = {
  'deprecated-notation': {
    name: 'DeprecatedNotation',
    text: 'A deprecated notation of a glossary term is used.',
    level: 'error',
  },
  'deprecated-term': {
    name: 'DeprecatedTerm',
    text: 'A term whose status is deprecated is used.',
    level: 'warning',
  },
  'wrong-case': {
    name: 'WrongCase',
    text: 'A glossary term is written in a letter case that none of its notations has.',
    level: 'warning',
  },
  'admitted-notation': {
    name: 'AdmittedNotation',
    text: 'An admitted (not preferred) notation of a glossary term is used.',
    level: 'note',
  },
}
const REPORTED = FINDING_VALUES.filter((f): f is ReportedFinding => f !== 'correct')
const RULES: SarifRule[] = REPORTED.map((finding) => ({
  id: `glossary/${finding}`,
  name: RULE[finding].name,
  shortDescription: { text: RULE[finding].text },
  defaultConfiguration: { level: RULE[finding].level },
}))

/** Bytes written as themselves: RFC 3986 `unreserved` (ALPHA / DIGIT / "-" / "." / "_" / "~"). */
const UNRESERVED = /^[A-Za-z0-9\-._~]$/
const utf8 = new TextEncoder()

/**
 * The artifact URI of a batch text: its id as a relative reference (SARIF's `uri-reference` format), so a CI
 * system resolves it against its checkout as a path. Every UTF-8 byte of the id that is not `unreserved` is
 * percent-encoded except `/`, which stays the path separator; `decodeURIComponent(uri)` gives the id back. An
 * id starting with `//` gets its second slash encoded, as `//x` would read as a host name. A lone surrogate has
 * no UTF-8 form: `TextEncoder` writes U+FFFD for it, so only such an id does not come back unchanged.
 */
export function artifactUri(id: string): string {
  const uri = id
    .split('/')
    .map((segment) => {
      let out = ''
      for (const byte of utf8.encode(segment)) {
        const c = String.fromCharCode(byte)
        out += UNRESERVED.test(c) ? c : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`
      }
      return out
    })
    .join('/')
  return uri.startsWith('//') ? `/%2F${uri.slice(2)}` : uri
}

/** SARIF levels of our severities; a finding's level follows its severity (wrong case is configurable). */
const LEVEL = { error: 'error', warning: 'warning', info: 'note' } as const

/** The finding in words (SARIF requires a message; JSON clients localize from finding and preferred). */
function messageOf(o: Occurrence): string {
  switch (o.finding) {
    case 'deprecated-notation':
      return `"${o.text}" is deprecated; write "${o.preferred ?? o.term.name}".`
    case 'deprecated-term':
      return `The term "${o.term.name}" is deprecated.`
    case 'wrong-case':
      return `"${o.text}" is written in the wrong letter case; the glossary writes "${o.notation}"${o.preferred && o.preferred !== o.notation ? ` (preferred: "${o.preferred}")` : ''}.`
    default:
      return `"${o.text}" is admitted; the preferred form is "${o.preferred}".`
  }
}

/** Line and column just after the occurrence (the occurrence may span a line break between words). */
function endPosition(o: Occurrence): { endLine: number; endColumn: number } {
  let line = o.line
  let column = o.column
  for (let i = 0; i < o.text.length; i++) {
    const c = o.text.charCodeAt(i)
    if (c === 0x0a || (c === 0x0d && o.text.charCodeAt(i + 1) !== 0x0a)) {
      line++
      column = 1
    } else {
      column++
    }
  }
  return { endLine: line, endColumn: column }
}

export function toSarif(
  results: readonly { id: string; occurrences: readonly Occurrence[] }[],
  version: string,
  glossary: GlossaryState,
): SarifLog {
  const sarifResults = results.flatMap((r) =>
    r.occurrences
      .filter((o) => o.severity !== 'none')
      .map((o) => {
        const severity = o.severity as 'error' | 'warning' | 'info'
        const ruleIndex = REPORTED.indexOf(o.finding as ReportedFinding)
        return {
          ruleId: RULES[ruleIndex].id,
          ruleIndex,
          level: LEVEL[severity],
          message: { text: messageOf(o) },
          locations: [
            {
              physicalLocation: {
                artifactLocation: { uri: artifactUri(r.id) },
                region: {
                  startLine: o.line,
                  startColumn: o.column,
                  ...endPosition(o),
                  charOffset: o.start,
                  charLength: o.end - o.start,
                  snippet: { text: o.text },
                },
              },
            },
          ],
          properties: {
            termId: o.term.id,
            termSlug: o.term.slug,
            notation: o.notation,
            kind: o.kind,
            finding: o.finding,
            ...(o.preferred ? { preferred: o.preferred } : {}),
          },
        }
      }),
  )
  return {
    $schema: 'https://json.schemastore.org/sarif-2.1.0.json',
    version: '2.1.0',
    runs: [
      {
        tool: {
          driver: {
            name: 'glossary-validate',
            version,
            rules: RULES,
          },
        },
        columnKind: 'utf16CodeUnits',
        // Which glossary the texts were checked against (a property bag: SARIF has no field of its own for it).
        properties: { glossary },
        artifacts: results.map((r) => ({ location: { uri: artifactUri(r.id) } })),
        results: sarifResults,
      },
    ],
  }
}
