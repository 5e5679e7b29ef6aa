/** The vocabulary of terms, declared once (no imports; entities, schemas, services and pages import it). */

/** A term's status (decision 006); `merged` terms live on only as an address of the term they merged into. */
export const TERM_STATUSES = ['active', 'needs_completion', 'deprecated', 'merged'] as const
export type TermStatus = (typeof TERM_STATUSES)[number]

/** The statuses an editor may set; `merged` comes only from a merge. */
export const EDITABLE_TERM_STATUSES = ['active', 'needs_completion', 'deprecated'] as const

/** How a notation may be used: the preferred form, an admitted one, or one not to write. */
export const NOTATION_KINDS = ['preferred', 'admitted', 'deprecated'] as const
export type NotationKind = (typeof NOTATION_KINDS)[number]
