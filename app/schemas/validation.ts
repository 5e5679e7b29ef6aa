import { z } from 'zod'
import { NOTATION_KINDS } from '#domain/terms.ts'

/** Request schemas of text validation (docs/decisions/007-validation-and-import.md). */
export const VALIDATE_LIMITS = {
  /** One text of POST /validate (UTF-16 code units). */
  textChars: 5_000_000,
  batchTexts: 1000,
  /** Total UTF-8 bytes of all texts of one batch. */
  batchBytes: 10 * 1024 * 1024,
} as const

export const SEVERITY_VALUES = ['error', 'warning', 'info', 'none'] as const
export type Severity = (typeof SEVERITY_VALUES)[number]

/**
 * Every kind of finding, in the order a use is classified (the first that applies wins): a deprecated
 * notation; a form of a term whose status is deprecated; a use recognized in the wrong letter case
 * (docs/decisions/013-letter-case.md); an admitted notation; a correct use. SARIF rules, severities and the
 * API documents derive from this one list.
 */
export const FINDING_VALUES = [
  'deprecated-notation',
  'deprecated-term',
  'wrong-case',
  'admitted-notation',
  'correct',
] as const
export type Finding = (typeof FINDING_VALUES)[number]

/** Severities an administrator may give wrong-case findings (`none` stops reporting them). */
export const WrongCaseSeveritySchema = z.enum(SEVERITY_VALUES)

/** The administrator's validation settings (`GET`/`PATCH /admin/validation-config`). */
export const ValidationConfigSchema = z.object({
  wrongCaseSeverity: WrongCaseSeveritySchema.meta({
    description:
      'Severity of a use whose letter case matches none of its notations where case matters (`GITHUB` for `GitHub`); default `warning`, `none` reports it as a correct use.',
  }),
})
export type ValidationConfig = z.output<typeof ValidationConfigSchema>

export const UpdateValidationConfigSchema = ValidationConfigSchema.partial()
  .strict()
  .meta({ example: { wrongCaseSeverity: 'error' } })
export type UpdateValidationConfigInput = z.output<typeof UpdateValidationConfigSchema>

/**
 * How a text is read (docs/decisions/022-markdown-validation.md): as plain text, or as Markdown, whose code,
 * URLs, link destinations and titles, HTML, reference definitions and front matter are not checked.
 */
export const MARKUP_VALUES = ['text', 'markdown'] as const
export type Markup = (typeof MARKUP_VALUES)[number]
const MARKUP_DESCRIPTION =
  '`markdown` checks only the prose of a Markdown text: code blocks and spans, URLs, link destinations and titles, HTML, reference definitions and YAML front matter are skipped. Offsets, lines and columns stay those of the text as sent.'

export const ValidateSchema = z
  .object({
    text: z.string().max(VALIDATE_LIMITS.textChars),
    markup: z.enum(MARKUP_VALUES).default('text').meta({ description: MARKUP_DESCRIPTION }),
    includePreferred: z
      .boolean()
      .default(true)
      .meta({ description: 'Also report correct uses (preferred notations, severity `none`).' }),
  })
  .strict()
  .meta({ example: { text: 'API 관문을 통해 호출한다. The API GW routes calls.' } })
export type ValidateInput = z.output<typeof ValidateSchema>

export const ValidateBatchSchema = z
  .object({
    texts: z
      .array(
        z.object({
          id: z.string().max(500).optional().meta({
            description:
              'Your name for the text, by default `text-<n>` (1-based). For SARIF a file path relative to your checkout: it becomes the artifact URI, percent-encoded.',
          }),
          text: z.string(),
          markup: z
            .enum(MARKUP_VALUES)
            .optional()
            .meta({ description: 'How this text is read, when not as the batch’s `markup` says.' }),
        }),
      )
      .min(1)
      .max(VALIDATE_LIMITS.batchTexts),
    markup: z.enum(MARKUP_VALUES).default('text').meta({ description: MARKUP_DESCRIPTION }),
    format: z.enum(['json', 'sarif']).default('json').meta({
      description: '`sarif` answers with a SARIF 2.1.0 log (application/sarif+json) for CI systems.',
    }),
    includePreferred: z.boolean().default(false),
  })
  .strict()
  .meta({
    example: {
      texts: [
        { id: 'docs/intro.md', text: 'API 관문을 쓴다. `api-gw --help`' },
        { id: 'docs/api.md', text: 'Call the [API GW](https://api-gw.example).' },
      ],
      markup: 'markdown',
      format: 'sarif',
    },
  })
export type ValidateBatchInput = z.output<typeof ValidateBatchSchema>

export const OccurrenceSchema = z.object({
  start: z.number().int().meta({ description: 'Offset of the first UTF-16 code unit.' }),
  end: z.number().int().meta({ description: 'Offset after the last UTF-16 code unit (exclusive).' }),
  line: z.number().int().meta({ description: '1-based line.' }),
  column: z.number().int().meta({ description: '1-based column in UTF-16 code units.' }),
  text: z.string().meta({ description: 'The text as it occurs in the input.' }),
  notation: z.string().meta({
    description:
      'The glossary notation it is a use of, as the glossary writes it (for `wrong-case`: the notation written correctly).',
  }),
  term: z.object({ id: z.uuid(), slug: z.string(), name: z.string(), status: z.string() }),
  kind: z
    .enum(['preferred', 'admitted', 'deprecated'])
    .meta({ description: 'The kind of use of `notation`.' }),
  finding: z.enum(FINDING_VALUES).meta({
    description:
      '`deprecated-notation`, `deprecated-term`, `wrong-case` (recognized, but its letter case matches none of the notations where case matters), `admitted-notation` or `correct`.',
  }),
  preferred: z.string().nullable(),
  severity: z.enum(SEVERITY_VALUES),
})
/** One use in a validated text, as the API documents it (validation, SARIF and the check page share it). */
export type Occurrence = z.output<typeof OccurrenceSchema>

export const SummarySchema = z.object({
  occurrences: z.number().int(),
  error: z.number().int(),
  warning: z.number().int(),
  info: z.number().int(),
  none: z.number().int(),
  terms: z.number().int().meta({ description: 'Distinct terms found.' }),
})

export const GlossaryStateSchema = z
  .object({
    version: z.number().int().meta({ description: 'The glossary version the matcher was built from.' }),
    upToDate: z.boolean().meta({
      description:
        'False when a newer glossary version (a save that just committed) was still being compiled after 2 s of waiting; the answer then used `version`.',
    }),
  })
  .meta({ description: 'Which glossary the answer was checked against.' })
export type GlossaryState = z.output<typeof GlossaryStateSchema>

export const ValidateResponseSchema = z.object({
  occurrences: z.array(OccurrenceSchema),
  summary: SummarySchema,
  glossary: GlossaryStateSchema,
})

export const ValidateBatchResponseSchema = z.object({
  results: z.array(
    z.object({ id: z.string(), occurrences: z.array(OccurrenceSchema), summary: SummarySchema }),
  ),
  summary: SummarySchema.extend({ texts: z.number().int() }),
  glossary: GlossaryStateSchema,
})

/** An artifact URI: the text id as a relative reference (the rule is `artifactUri` in sarif.server.ts). */
const SarifUriSchema = z.string().meta({
  format: 'uri-reference',
  description:
    'The text `id` as a relative URI reference: every UTF-8 byte except the unreserved characters (A–Z a–z 0–9 - . _ ~) and `/` is percent-encoded, `docs/a b.md` → `docs/a%20b.md` (and the second slash of a leading `//`); `decodeURIComponent` gives the id back.',
})

const SARIF_LEVEL_VALUES = ['error', 'warning', 'note'] as const

/**
 * The SARIF 2.1.0 log of `POST /validate/batch` with `format: "sarif"`: the part of the format this service
 * writes (`toSarif` is typed by it). The whole format is the OASIS schema
 * https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json.
 */
export const SarifLogSchema = z
  .object({
    $schema: z.string(),
    version: z.literal('2.1.0'),
    runs: z.array(
      z.object({
        tool: z.object({
          driver: z.object({
            name: z.string(),
            version: z.string(),
            rules: z.array(
              z.object({
                id: z.string(),
                name: z.string(),
                shortDescription: z.object({ text: z.string() }),
                defaultConfiguration: z.object({ level: z.enum(SARIF_LEVEL_VALUES) }),
              }),
            ),
          }),
        }),
        columnKind: z.literal('utf16CodeUnits'),
        properties: z.object({ glossary: GlossaryStateSchema }),
        artifacts: z.array(z.object({ location: z.object({ uri: SarifUriSchema }) })),
        results: z.array(
          z.object({
            ruleId: z.string(),
            ruleIndex: z.number().int(),
            level: z.enum(SARIF_LEVEL_VALUES),
            message: z.object({ text: z.string() }),
            locations: z.array(
              z.object({
                physicalLocation: z.object({
                  artifactLocation: z.object({ uri: SarifUriSchema }),
                  region: z.object({
                    startLine: z.number().int(),
                    startColumn: z.number().int(),
                    endLine: z.number().int(),
                    endColumn: z.number().int().meta({ description: 'Exclusive.' }),
                    charOffset: z.number().int(),
                    charLength: z.number().int(),
                    snippet: z.object({ text: z.string() }),
                  }),
                }),
              }),
            ),
            properties: z.object({
              termId: z.uuid(),
              termSlug: z.string(),
              notation: z.string(),
              kind: z.enum(NOTATION_KINDS),
              finding: z.enum(FINDING_VALUES),
              preferred: z.string().optional(),
            }),
          }),
        ),
      }),
    ),
  })
  .meta({
    description:
      'A SARIF 2.1.0 log with one run: a rule per reported kind of finding (`glossary/<finding>`), a result per finding, regions in UTF-16 code units.',
  })
export type SarifLog = z.output<typeof SarifLogSchema>
