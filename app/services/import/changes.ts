import { CHANGE_TEXT_MAX, type FieldChange } from '#app/schemas/import.ts'
import { notationLabel, type TermContent } from '#app/services/terms/content.server.ts'

/**
 * The fields an import row changes, before and after, for the dry run's report (issue 27: "updated" alone
 * hid an erased body). Values are written as short text so a report of 10,000 rows stays readable and
 * bounded: a long body is cut, a list joined.
 */

/** The content fields in the term editor's order (the slug of an imported row never changes). */
const FIELDS = [
  'name',
  'fullName',
  'nameEn',
  'nameKo',
  'notations',
  'domains',
  'categories',
  'tags',
  'status',
  'definition',
  'body',
] as const satisfies readonly (keyof TermContent)[]

function shown(value: TermContent[(typeof FIELDS)[number]]): string | null {
  const text = Array.isArray(value)
    ? value.map((v) => (typeof v === 'string' ? v : notationLabel(v))).join('; ')
    : (value ?? '')
  if (text === '') return null
  if (text.length <= CHANGE_TEXT_MAX) return text
  // By code point, so a cut never splits a surrogate pair.
  return `${Array.from(text.slice(0, CHANGE_TEXT_MAX))
    .slice(0, CHANGE_TEXT_MAX - 1)
    .join('')}…`
}

export function contentChanges(before: TermContent, after: TermContent): FieldChange[] {
  const changes: FieldChange[] = []
  for (const field of FIELDS) {
    if (JSON.stringify(before[field] ?? null) === JSON.stringify(after[field] ?? null)) continue
    changes.push({ field, before: shown(before[field]), after: shown(after[field]) })
  }
  return changes
}
