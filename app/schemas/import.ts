import { z } from 'zod'
import { IMPORT_JOB_STATUSES } from '#domain/content.ts'
import { UpdateTermSchema } from './terms.ts'

/** Import of terms from CSV or JSON (docs/decisions/007-validation-and-import.md). */
export const IMPORT_MAX_ROWS = 10_000
export const IMPORT_MAX_BYTES = 11 * 1024 * 1024

/** What an empty cell (CSV) or empty value (JSON) of a row means for an existing term (issue 27). */
export const EMPTY_CELLS = ['keep', 'clear'] as const
export type EmptyCells = (typeof EMPTY_CELLS)[number]

export const ImportSchema = z
  .object({
    format: z.enum(['csv', 'json']),
    csv: z.string().optional().meta({
      description:
        "The CSV file (UTF-8, header row; see GET /import/template.csv). For format csv. A cell starting with `'` followed by `=`, `+`, `-`, `@`, tab or CR loses that one `'` (how GET /export/terms.csv neutralizes formulas); in list cells `\\;` is a `;` inside an item and `\\\\` a `\\`.",
    }),
    rows: z.array(z.record(z.string(), z.unknown())).max(IMPORT_MAX_ROWS).optional().meta({
      description: 'Term objects (the fields of POST /terms, plus `slug` to update). For format json.',
    }),
    emptyCells: z.enum(EMPTY_CELLS).default('keep').meta({
      description:
        "What an empty value means for a term that exists, alike in CSV and JSON. `keep` (default): an empty cell, an empty or blank text, `null`, an empty list or a notation's empty `lang` leaves the stored value as it is (as a missing column or field always does). `clear`: it clears the field (the body, a name, the notations, a notation's language…). A new term gets the defaults either way. In CSV the three notation columns are one field: it is empty when all of them are.",
    }),
    dryRun: z.boolean().default(false).meta({ description: 'Report what would happen without writing.' }),
    wait: z.boolean().default(false).meta({
      description: 'Answer only when the import is finished (200) instead of 202 with the running job.',
    }),
  })
  .strict()
  .refine(
    (v) =>
      v.format === 'csv'
        ? v.csv !== undefined && v.rows === undefined
        : v.rows !== undefined && v.csv === undefined,
    {
      message: 'Send `csv` with format csv, or `rows` with format json.',
    },
  )
  .meta({
    example: {
      format: 'json',
      dryRun: true,
      rows: [
        {
          slug: 'api-gateway',
          name: 'API Gateway',
          definition: 'Entry point.',
          notations: [{ text: 'API GW', kind: 'admitted' }],
        },
      ],
    },
  })
export type ImportInput = z.output<typeof ImportSchema>

/**
 * One import row, checked row by row so each row's problems are reported: the fields of a term edit, each
 * optional (an absent field keeps its value, a present one replaces it), `slug` naming the term to update,
 * and the change note, `import` when absent.
 */
export const ImportRowSchema = UpdateTermSchema.omit({ baseRevision: true, note: true })
  .extend({ note: UpdateTermSchema.shape.note.unwrap().optional() })
  .strict()
export type ImportRow = z.output<typeof ImportRowSchema>

export const ImportJobParamsSchema = z.object({ jobId: z.uuid() })

/** Bound of `before`/`after` in a row's `changes` (a body can be 100,000 characters). */
export const CHANGE_TEXT_MAX = 200

export const FieldChangeSchema = z.object({
  field: z.string().meta({ description: 'The term field: name, fullName, nameEn, nameKo, notations, …' }),
  before: z
    .string()
    .nullable()
    .meta({
      description: `The stored value as text (lists joined with "; ", a notation as \`text (kind, lang)\`), null when empty; at most ${CHANGE_TEXT_MAX} characters, a longer text cut and ended with "…".`,
    }),
  after: z.string().nullable().meta({ description: 'The value after the import, written the same way.' }),
})
export type FieldChange = z.output<typeof FieldChangeSchema>

export const ReportRowSchema = z.object({
  row: z.number().int().meta({ description: '1-based data row (the CSV header is not counted).' }),
  action: z.enum(['created', 'updated', 'unchanged', 'error']),
  slug: z.string().nullable(),
  name: z.string().nullable(),
  termId: z.uuid().nullable(),
  errors: z
    .array(z.object({ path: z.string(), message: z.string() }))
    .optional()
    .meta({
      description: 'Why the row cannot be imported; each colliding notation is named with the reason.',
    }),
  changes: z.array(FieldChangeSchema).optional().meta({
    description:
      'For an `updated` row: each field the import changes, with its value before and after, in the order of the term editor.',
  }),
  warnings: z
    .array(z.object({ path: z.string(), message: z.string() }))
    .optional()
    .meta({
      description:
        'Notations of the row that another term (another row, or a term already in the glossary) also has, or has in another letter case: imported, but named so nothing is resolved silently. A use of a shared notation is reported for every term that has it; letter case decides between terms whose notations differ only by case.',
    }),
})

const CountsSchema = z.object({
  total: z.number().int(),
  created: z.number().int(),
  updated: z.number().int(),
  unchanged: z.number().int(),
  errors: z.number().int(),
})

export type ReportRow = z.output<typeof ReportRowSchema>
export type ImportCounts = z.output<typeof CountsSchema>

export const ImportReportSchema = CountsSchema.extend({
  dryRun: z.literal(true),
  rows: z.array(ReportRowSchema),
})
export type ImportReport = z.output<typeof ImportReportSchema>

export const ImportJobSchema = CountsSchema.extend({
  id: z.uuid(),
  status: z.enum(IMPORT_JOB_STATUSES),
  format: z.enum(['csv', 'json']),
  processed: z.number().int(),
  error: z.string().nullable(),
  rows: z.array(ReportRowSchema).optional().meta({ description: 'The per-row report, once finished.' }),
  createdAt: z.iso.datetime(),
  finishedAt: z.iso.datetime().nullable(),
})
export type ImportJob = z.output<typeof ImportJobSchema>

/** The body of GET /import/template.csv. */
export const ImportTemplateCsvSchema = z.string().meta({
  description:
    'UTF-8 with a byte-order mark and CRLF line ends: the header row naming every column, then two example rows.',
})
