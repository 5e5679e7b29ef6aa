import { stringify } from 'csv-stringify/sync'
import { CSV_COLUMNS } from '#app/services/import/csv.server.ts'
import { termBatches, type ExportTerm } from './terms-source.server.ts'

/**
 * `terms.csv`: the import template's columns (app/services/import/csv.server.ts), so the file re-imports
 * unchanged. UTF-8 with a byte order mark and CRLF like the template; lists joined with `;`. The `note`
 * column is left empty (a note belongs to a save, not to the content).
 */
export async function* termsCsv(): AsyncGenerator<string> {
  yield `\uFEFF${stringify([[...CSV_COLUMNS]], { record_delimiter: 'windows' })}`
  for await (const { terms } of termBatches({ withBody: true })) {
    yield stringify(terms.map(csvRow), { record_delimiter: 'windows' })
  }
}

function csvRow(term: ExportTerm): string[] {
  const c = term.content
  const notations = (kind: string) =>
    c.notations
      .filter((n) => n.kind === kind)
      .map((n) => n.text)
      .join(';')
  const values: Record<(typeof CSV_COLUMNS)[number], string> = {
    slug: c.slug,
    name: c.name,
    fullName: c.fullName ?? '',
    nameEn: c.nameEn ?? '',
    nameKo: c.nameKo ?? '',
    preferred: notations('preferred'),
    admitted: notations('admitted'),
    deprecated: notations('deprecated'),
    domains: c.domains.join(';'),
    categories: c.categories.join(';'),
    tags: c.tags.join(';'),
    status: c.status,
    definition: c.definition,
    body: c.body,
    note: '',
  }
  return CSV_COLUMNS.map((column) => values[column])
}
