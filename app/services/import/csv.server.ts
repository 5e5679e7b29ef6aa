import { parse } from 'csv-parse/sync'
import { validationError } from '#app/lib/errors.server.ts'
import { IMPORT_MAX_ROWS, type ImportInput } from '#app/schemas/import.ts'

/** The CSV side of import (docs/decisions/007-validation-and-import.md): the columns, the template, parsing. */

/** CSV columns, in template order. Lists are separated by `;`. */
export const CSV_COLUMNS = [
  'slug',
  'name',
  'fullName',
  'nameEn',
  'nameKo',
  'preferred',
  'admitted',
  'deprecated',
  'domains',
  'categories',
  'tags',
  'status',
  'definition',
  'body',
  'note',
] as const

const COLUMN_BY_LOWER = new Map<string, string>(CSV_COLUMNS.map((c) => [c.toLowerCase(), c]))

/** The published CSV template, UTF-8 with a BOM (so spreadsheet programs read Korean correctly) and CRLF. */
export function importTemplateCsv(): string {
  const lines = [
    CSV_COLUMNS.join(','),
    'api-gateway,API Gateway,,API Gateway,API 게이트웨이,,API GW,API 관문,platform,,network;edge,active,"The single entry point that routes API calls to services.",,initial import',
    ',원장,,Ledger,원장,,,장부,payments,,,,,"Body in **Markdown**.",',
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
  return items.map((s) => s.trim()).filter(Boolean)
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
  return records.map((rec) => {
    const row: Record<string, unknown> = {}
    const notations: { text: string; kind: string }[] = []
    let hasNotations = false
    for (const [column, written] of Object.entries(rec)) {
      const raw = restoreFormula(written ?? '')
      const cell = raw.trim()
      if (column === 'preferred' || column === 'admitted' || column === 'deprecated') {
        hasNotations = true
        for (const text of splitList(cell)) notations.push({ text, kind: column })
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
    if (hasNotations) row.notations = notations
    return row
  })
}

/** The rows of an import request, whichever format it came in. */
export function rowsOf(input: ImportInput): Record<string, unknown>[] {
  return input.format === 'csv' ? csvToRows(input.csv ?? '') : (input.rows ?? [])
}
