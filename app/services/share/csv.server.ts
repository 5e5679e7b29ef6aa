import { stringify } from 'csv-stringify/sync'
import { CSV_COLUMNS, joinList, neutralizeFormula } from '#app/services/import/csv.server.ts'
import { termBatches, type ExportTerm } from './terms-source.server.ts'

/**
 * Every cell quoted (so a CR or LF inside one never starts a row, whatever a reader takes for a line end) and
 * a cell a spreadsheet would run as a formula neutralized with a leading `'` (the import takes it off again).
 */
const CSV_OPTIONS = {
  record_delimiter: 'windows',
  quoted: true,
  quoted_empty: true,
  cast: { string: neutralizeFormula },
} as const

/**
 * `terms.csv`: the import template's columns (app/services/import/csv.server.ts), so the file re-imports
 * unchanged, notation languages included. UTF-8 with a byte order mark and CRLF like the template; lists joined with `;`. The `note`
 * column is left empty (a note belongs to a save, not to the content).
 */
export async function* termsCsv(): AsyncGenerator<string> {
  yield `\uFEFF${stringify([[...CSV_COLUMNS]], CSV_OPTIONS)}`
  for await (const { terms } of termBatches({ withBody: true })) {
    yield stringify(terms.map(csvRow), CSV_OPTIONS)
  }
}

function csvRow(term: ExportTerm): string[] {
  const c = term.content
  const notations = (kind: string) => joinList(c.notations.filter((n) => n.kind === kind).map((n) => n.text))
  // The n-th language of a kind belongs to its n-th notation (an empty item: none); all empty, the cell is.
  const langs = (kind: string) => {
    const items = c.notations.filter((n) => n.kind === kind).map((n) => n.lang ?? '')
    return items.some(Boolean) ? joinList(items) : ''
  }
  const values: Record<(typeof CSV_COLUMNS)[number], string> = {
    slug: c.slug,
    name: c.name,
    fullName: c.fullName ?? '',
    nameEn: c.nameEn ?? '',
    nameKo: c.nameKo ?? '',
    preferred: notations('preferred'),
    preferredLang: langs('preferred'),
    admitted: notations('admitted'),
    admittedLang: langs('admitted'),
    deprecated: notations('deprecated'),
    deprecatedLang: langs('deprecated'),
    domains: joinList(c.domains),
    categories: joinList(c.categories),
    tags: joinList(c.tags),
    status: c.status,
    definition: c.definition,
    body: c.body,
    note: '',
  }
  return CSV_COLUMNS.map((column) => values[column])
}
