import { parse } from 'csv-parse/sync'
import { validationError } from '#app/lib/errors.server.ts'
import { IMPORT_MAX_ROWS, type ImportInput } from '#app/schemas/import.ts'
import { applyEmptyCells } from './empty-cells.ts'

/** The CSV side of import (docs/decisions/007-validation-and-import.md): the columns, the template, parsing. */

/**
 * CSV columns, in template order. Lists are separated by `;`. Each notation column has a language column
 * beside it (`preferredLang`…): its n-th item is the language of the n-th notation, an empty item none. They
 * are extra columns, so files written before them still import (issue 27; a notation then keeps the language
 * its term already gives the same text).
 */
export const CSV_COLUMNS = [
  'slug',
  'name',
  'fullName',
  'nameEn',
  'nameKo',
  'preferred',
  'preferredLang',
  'admitted',
  'admittedLang',
  'deprecated',
  'deprecatedLang',
  'domains',
  'categories',
  'tags',
  'status',
  'definition',
  'body',
  'note',
] as const

const COLUMN_BY_LOWER = new Map<string, string>(CSV_COLUMNS.map((c) => [c.toLowerCase(), c]))

/**
 * The published CSV template, UTF-8 with a BOM (so spreadsheet programs read Korean correctly) and CRLF. Its
 * example rows name domains and business categories by key, so they use keys this install has (`domains`,
 * `categories`: the scheme's keys in display order) and leave the cells empty when there are none: the
 * template downloaded on a fresh install dry-runs without errors (issue 27). Keys need no quoting: the key rule
 * allows only lowercase letters, digits, `-` and `_`.
 */
export function importTemplateCsv(scheme: {
  domains: readonly string[]
  categories: readonly string[]
}): string {
  const [firstDomain = '', secondDomain = firstDomain] = scheme.domains
  const [firstCategory = ''] = scheme.categories
  const lines = [
    CSV_COLUMNS.join(','),
    `api-gateway,API Gateway,,API Gateway,API 게이트웨이,,,API GW,en,API 관문,ko,${firstDomain},${firstCategory},network;edge,active,"The single entry point that routes API calls to services.",,initial import`,
    `,원장,,Ledger,원장,,,,,장부,ko,${secondDomain},,,,,"Body in **Markdown**.",`,
  ]
  return `\uFEFF${lines.join('\r\n')}\r\n`
}

/**
 * Formula neutralization (OWASP "CSV Injection"): a spreadsheet runs a cell that starts with `=`, `+`, `-`,
 * `@`, tab or CR as a formula, so the export writes such a cell with a `'` in front, as a spreadsheet's own
 * text marker. A cell that already starts with `'`s before one of them gets one more, so the import can take
 * exactly one `'` off any cell starting with `'`s and one of them and give back the stored text, whatever it
 * is (`-fno-rtti`, `+1`, `'=x`). The rule applies to every imported CSV, as it does when typed in a sheet.
 */
const FORMULA_START = /^'*[=+\-@\t\r]/
const NEUTRALIZED = /^'+[=+\-@\t\r]/

/** A cell's text as the export writes it: neutralized when a spreadsheet would run it. */
export const neutralizeFormula = (cell: string): string => (FORMULA_START.test(cell) ? `'${cell}` : cell)

/** The text of a cell the export neutralized (any other cell as it is). */
const restoreFormula = (cell: string): string => (NEUTRALIZED.test(cell) ? cell.slice(1) : cell)

/**
 * A list cell (notations, domains, categories, tags): items joined with `;`. A `;` inside an item is written
 * `\;`, and a `\` before a `;`, a `\` or the end of an item is written `\\`; any other `\` stands for itself,
 * so hand-written cells such as `C:\tmp` read as typed.
 */
export const joinList = (items: readonly string[]): string =>
  items.map((item) => item.replace(/\\(?=[\\;]|$)|;/g, '\\$&')).join(';')

function splitList(cell: string): string[] {
  return splitItems(cell).filter(Boolean)
}

/** The items of a list cell, empty ones kept (a language list keeps its places). */
function splitItems(cell: string): string[] {
  if (!cell) return []
  const items: string[] = []
  let item = ''
  for (let i = 0; i < cell.length; i++) {
    const ch = cell[i]!
    const next = cell[i + 1]
    if (ch === '\\' && (next === '\\' || next === ';')) {
      item += next
      i++
    } else if (ch === ';') {
      items.push(item)
      item = ''
    } else item += ch
  }
  items.push(item)
  return items.map((s) => s.trim())
}

const NOTATION_KINDS = ['preferred', 'admitted', 'deprecated'] as const
const LANG_COLUMN = {
  preferred: 'preferredLang',
  admitted: 'admittedLang',
  deprecated: 'deprecatedLang',
} as const
const LANG_COLUMNS = new Set<string>(Object.values(LANG_COLUMN))

/**
 * The notations of a record, kind by kind, each with its language when the file has the language column:
 * an empty item is `lang: null` (what `emptyCells` then does with it is `applyEmptyCells`' rule); without the
 * column `lang` is left out, which the plan reads as "the language the term already gives this text".
 */
function notationsOf(rec: Record<string, string>, line: number): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = []
  for (const kind of NOTATION_KINDS) {
    const texts = splitList(restoreFormula(rec[kind] ?? '').trim())
    const langColumn = LANG_COLUMN[kind]
    const langs = langColumn in rec ? splitItems(restoreFormula(rec[langColumn] ?? '').trim()) : undefined
    if (langs && langs.length > texts.length && langs.slice(texts.length).some(Boolean)) {
      throw validationError(
        [
          {
            path: `csv.${line}.${langColumn}`,
            message: `Row ${line}: ${langColumn} has more languages (${langs.length}) than ${kind} has notations (${texts.length}).`,
          },
        ],
        'The CSV file cannot be read.',
      )
    }
    texts.forEach((text, i) => out.push(langs ? { text, kind, lang: langs[i] || null } : { text, kind }))
  }
  return out
}

/** CSV text → row objects shaped like JSON import rows. Malformed CSV or unknown columns → 400. */
export function csvToRows(csv: string): Record<string, unknown>[] {
  let records: Record<string, string>[]
  try {
    records = parse(csv, {
      bom: true,
      columns: (header: string[]) =>
        header.map((h) => {
          const column = COLUMN_BY_LOWER.get(h.trim().toLowerCase())
          if (!column) throw new Error(`Unknown column "${h}". Columns: ${CSV_COLUMNS.join(', ')}.`)
          return column
        }),
      skip_empty_lines: true,
      relax_column_count: false,
    }) as Record<string, string>[]
  } catch (err) {
    throw validationError([{ path: 'csv', message: (err as Error).message }], 'The CSV file cannot be read.')
  }
  if (records.length > IMPORT_MAX_ROWS) {
    throw validationError([{ path: 'csv', message: `At most ${IMPORT_MAX_ROWS} rows per import.` }])
  }
  return records.map((rec, index) => {
    const row: Record<string, unknown> = {}
    let hasNotations = false
    for (const [column, written] of Object.entries(rec)) {
      const raw = restoreFormula(written ?? '')
      const cell = raw.trim()
      if (column === 'preferred' || column === 'admitted' || column === 'deprecated') {
        hasNotations = true
      } else if (LANG_COLUMNS.has(column)) {
        // Read with the notations of its kind.
      } else if (column === 'domains' || column === 'categories' || column === 'tags') {
        row[column] = splitList(cell)
      } else if (column === 'slug' || column === 'status' || column === 'note' || column === 'name') {
        if (cell) row[column] = cell
      } else if (column === 'definition' || column === 'body') {
        row[column] = raw
      } else {
        row[column] = cell || null
      }
    }
    if (hasNotations) row.notations = notationsOf(rec, index + 1)
    return row
  })
}

/**
 * The rows of an import request, whichever format it came in, with its empty values decided by
 * `emptyCells` (so the rows a job stores mean the same when the job applies them).
 */
export function rowsOf(input: ImportInput): Record<string, unknown>[] {
  const rows = input.format === 'csv' ? csvToRows(input.csv ?? '') : (input.rows ?? [])
  return applyEmptyCells(rows, input.emptyCells)
}
