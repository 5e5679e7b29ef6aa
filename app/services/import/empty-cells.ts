import type { EmptyCells } from '#app/schemas/import.ts'

/**
 * What an empty value in an import row means (docs/decisions/007-validation-and-import.md, issue 27). A
 * spreadsheet cannot tell "no value" from "leave it alone", and an import that read an empty cell as "clear"
 * erased bodies and languages nobody meant to touch. So, alike for CSV and JSON: with `keep` (the default) an
 * empty value — an empty or blank text, `null`, an empty list, a notation's empty `lang` — is taken out of the
 * row, and a field that is not in a row keeps the term's value; with `clear` it stays, and clears the field.
 * (`name` cannot be cleared: an empty one is left out, or refused by the row schema with `clear`.)
 */

const isEmpty = (value: unknown): boolean =>
  value === null ||
  value === undefined ||
  (typeof value === 'string' && value.trim() === '') ||
  (Array.isArray(value) && value.length === 0)

/** A notation without its empty `lang` (so the plan gives it the language its term already has). */
function keepNotationLang(notation: unknown): unknown {
  if (!notation || typeof notation !== 'object' || Array.isArray(notation)) return notation
  const n = notation as Record<string, unknown>
  if (!('lang' in n) || !isEmpty(n.lang)) return n
  const { lang: _lang, ...rest } = n
  return rest
}

/** The rows with their empty values kept out (`keep`) or left in to clear their fields (`clear`). */
export function applyEmptyCells(
  rows: Record<string, unknown>[],
  mode: EmptyCells,
): Record<string, unknown>[] {
  if (mode === 'clear') return rows
  return rows.map((row) => {
    const out: Record<string, unknown> = {}
    for (const [field, value] of Object.entries(row)) {
      if (isEmpty(value)) continue
      out[field] = field === 'notations' && Array.isArray(value) ? value.map(keepNotationLang) : value
    }
    return out
  })
}
