/** The vocabulary of sharing the glossary (spec part 9, issue 14), declared once (no imports). */

/**
 * The standard column keys of the shared sheet (`/sheet`, `/embed`, `columns=`), in display order. Unknown keys
 * in a link are ignored.
 */
export const SHEET_COLUMNS = [
  'name',
  'fullName',
  'nameEn',
  'nameKo',
  'notations',
  'preferred',
  'admitted',
  'deprecated',
  'domain',
  'category',
  'tags',
  'status',
  'definition',
  'updatedAt',
  'revision',
] as const
export type SheetColumn = (typeof SHEET_COLUMNS)[number]

/** The columns of a sheet link that names none. */
export const DEFAULT_SHEET_COLUMNS: readonly SheetColumn[] = ['name', 'notations', 'status', 'definition']

/** At most this many rows on a shared sheet (spec, Limits). */
export const SHEET_MAX_ROWS = 200

/** The glossary's export formats: the file name under `/api/v1/export/` of each. */
export const EXPORT_FORMATS = [
  'terms.csv',
  'terms.tbx',
  'terms.skos.ttl',
  'terms.skos.jsonld',
  'vale.zip',
  'prh.yml',
] as const
export type ExportFormat = (typeof EXPORT_FORMATS)[number]
