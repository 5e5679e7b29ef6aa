import { z } from 'zod'
import { FINDING_VALUES } from './validation.ts'
import { XML_TEXT_RULE, xmlText } from './xml-text.ts'
import { EDITABLE_TERM_STATUSES, NOTATION_KINDS, TERM_STATUSES } from '#domain/terms.ts'

/**
 * Request schemas of the glossary (terms, classification, lookup). Shared by the API endpoints and the
 * Remix forms; limits are defined once here. See docs/decisions/006-term-model.md.
 */

/** Statuses a client may set directly; `merged` is reached only through the merge operation. */

export const LIMITS = {
  slug: 120,
  name: 200,
  definition: 10_000,
  body: 200_000,
  notations: 100,
  notation: 200,
  tags: 50,
  tag: 60,
  classification: 30,
  note: 500,
  pageSize: 100,
  lookupTexts: 500,
} as const

/** Lowercase letters (any script), digits and single hyphens; never a UUID (ids and slugs share one path). */
export const SLUG_PATTERN = /^[\p{Ll}\p{Lo}\p{Nd}]+(?:-[\p{Ll}\p{Lo}\p{Nd}]+)*$/u
/**
 * SLUG_PATTERN as the OpenAPI document states it, for tools that compile patterns without Unicode mode: exact
 * for ASCII (a–z, 0–9 and single hyphens, nothing else), while every non-ASCII character but white space passes
 * here and is left to SLUG_PATTERN on the server. The class holds only ASCII code points written as escapes, so
 * engines read it alike with or without Unicode mode (an astral character is one or two non-ASCII units).
 */
export const SLUG_PATTERN_PORTABLE =
  // eslint-disable-next-line no-control-regex -- the class excludes the ASCII control characters on purpose
  /^[^\s\x00-\x2f\x3a-\x60\x7b-\x7f]+(?:-[^\s\x00-\x2f\x3a-\x60\x7b-\x7f]+)*$/
/** The slug rule in words, for the document (its `pattern` is SLUG_PATTERN_PORTABLE). */
export const SLUG_RULE =
  'Lowercase letters of any script (Unicode Ll, Lo), decimal digits (Nd) and single hyphens, not shaped like a UUID; `pattern` checks the ASCII part, the server the whole rule.'
/** Slugs that are page or API addresses of their own (`/terms/new`, `/api/v1/terms/suggest`, …). */
export const RESERVED_SLUGS = new Set(['suggest', 'lookup', 'new'])
const UUID_LIKE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

export const SlugSchema = z
  .string()
  .trim()
  .min(1)
  .max(LIMITS.slug)
  .regex(SLUG_PATTERN, 'use lowercase letters, digits and single hyphens')
  .refine((s) => !UUID_LIKE.test(s), 'a slug must not look like a UUID')
  .refine((s) => !RESERVED_SLUGS.has(s), 'this slug is reserved')
  .meta({
    description: `Address of the term (unique; not suggest, lookup or new). ${SLUG_RULE}`,
    example: 'api-gateway',
  })

export const ClassificationKeySchema = z
  .string()
  .regex(/^[a-z0-9][a-z0-9_-]{0,63}$/, 'lowercase letters, digits, - and _')
  .meta({ example: 'payments' })

export const NotationSchema = z
  .object({
    text: xmlText(z.string().trim().min(1).max(LIMITS.notation)),
    kind: z.enum(NOTATION_KINDS).default('admitted'),
    lang: z
      .string()
      .regex(/^[a-z]{2,3}(-[A-Za-z0-9]{2,8})?$/)
      .nullish()
      .transform((v) => v ?? null),
  })
  .meta({
    description:
      'An additional notation and its kind of use: preferred (recommended), admitted (acceptable), deprecated (flagged by validation).',
    example: { text: 'API GW', kind: 'admitted', lang: 'en' },
  })

const optionalText = (max: number) =>
  xmlText(z.string().trim().max(max))
    .nullish()
    .transform((v) => (v ? v : null))

/** Content fields shared by create and update (all optional here; create requires `name`). */
const contentFields = {
  slug: SlugSchema.optional(),
  name: xmlText(z.string().trim().min(1).max(LIMITS.name)).meta({
    description: 'Primary name.',
    example: 'API Gateway',
  }),
  fullName: optionalText(LIMITS.name).meta({ example: 'Application Programming Interface Gateway' }),
  nameEn: optionalText(LIMITS.name).meta({ example: 'API Gateway' }),
  nameKo: optionalText(LIMITS.name).meta({ example: 'API 게이트웨이' }),
  notations: z.array(NotationSchema).max(LIMITS.notations),
  domains: z.array(ClassificationKeySchema).max(LIMITS.classification),
  categories: z.array(ClassificationKeySchema).max(LIMITS.classification),
  tags: z.array(z.string().trim().min(1).max(LIMITS.tag)).max(LIMITS.tags),
  status: z.enum(EDITABLE_TERM_STATUSES),
  definition: xmlText(z.string().max(LIMITS.definition)),
  body: z.string().max(LIMITS.body).meta({ description: 'Markdown.' }),
  note: z.string().trim().max(LIMITS.note).meta({ description: 'Change note stored with the revision.' }),
}

export const CreateTermSchema = z
  .object({
    ...contentFields,
    notations: contentFields.notations.default([]),
    domains: contentFields.domains.default([]),
    categories: contentFields.categories.default([]),
    tags: contentFields.tags.default([]),
    status: contentFields.status.optional(),
    definition: contentFields.definition.default(''),
    body: contentFields.body.default(''),
    note: contentFields.note.default(''),
  })
  .strict()
  .meta({
    description: `A new term. \`slug\` is generated from the name when omitted. \`status\` defaults to \`active\`, or \`needs_completion\` when the definition is empty. ${XML_TEXT_RULE}`,
    example: {
      name: 'API Gateway',
      nameKo: 'API 게이트웨이',
      notations: [
        { text: 'API GW', kind: 'admitted' },
        { text: 'API 관문', kind: 'deprecated', lang: 'ko' },
      ],
      domains: ['platform'],
      definition: 'The single entry point that routes API calls to services.',
    },
  })
export type CreateTermInput = z.output<typeof CreateTermSchema>

export const UpdateTermSchema = z
  .object({
    baseRevision: z
      .number()
      .int()
      .min(1)
      .meta({ description: 'The revision the edit started from; a stale one gives 409 revision_conflict.' }),
    slug: contentFields.slug,
    name: contentFields.name.optional(),
    fullName: contentFields.fullName.optional(),
    nameEn: contentFields.nameEn.optional(),
    nameKo: contentFields.nameKo.optional(),
    notations: contentFields.notations.optional(),
    domains: contentFields.domains.optional(),
    categories: contentFields.categories.optional(),
    tags: contentFields.tags.optional(),
    status: contentFields.status.optional(),
    definition: contentFields.definition.optional(),
    body: contentFields.body.optional(),
    note: contentFields.note.default(''),
  })
  .strict()
  .meta({
    description: `Fields to change; omitted fields keep their value, \`notations\` replaces the whole list. ${XML_TEXT_RULE}`,
    example: { baseRevision: 3, definition: 'Routes API calls.', note: 'shorter definition' },
  })
export type UpdateTermInput = z.output<typeof UpdateTermSchema>

export const MergeTermSchema = z
  .object({
    into: z
      .string()
      .min(1)
      .meta({ description: 'Id or slug of the surviving term.', example: 'api-gateway' }),
    note: contentFields.note.default(''),
  })
  .strict()
export type MergeTermInput = z.output<typeof MergeTermSchema>

/** One value or a repeated query parameter, as a list. */
const listParam = z
  .union([z.string(), z.array(z.string())])
  .optional()
  .transform((v) => (v === undefined ? [] : Array.isArray(v) ? v : [v]))

export const ListTermsQuerySchema = z.object({
  q: z.string().max(200).optional().meta({
    description: 'Matches names and every notation, ignoring case and width (NFKC).',
    example: '게이트웨이',
  }),
  status: z
    .enum(TERM_STATUSES)
    .optional()
    .meta({ description: 'Only terms in this status. Without it, merged terms are left out.' }),
  domain: listParam.meta({ description: 'Domain key (repeat for any of several).' }),
  category: listParam.meta({ description: 'Business category key (repeat for any of several).' }),
  tag: listParam.meta({ description: 'Tag (repeat: the term must carry every tag).' }),
  page: z.coerce.number().int().min(1).default(1),
  pageSize: z.coerce.number().int().min(1).max(LIMITS.pageSize).default(20),
})
export type ListTermsQuery = z.output<typeof ListTermsQuerySchema>

export const SuggestQuerySchema = z.object({
  q: z.string().min(1).max(200).meta({ description: 'Prefix of a name or notation.', example: 'api' }),
  limit: z.coerce.number().int().min(1).max(50).default(10),
})

export const IdOrSlugParamsSchema = z.object({
  idOrSlug: z.string().min(1).max(200).meta({ description: 'Term UUID, current slug or an old slug.' }),
})

export const RevisionParamsSchema = z.object({
  idOrSlug: IdOrSlugParamsSchema.shape.idOrSlug,
  revision: z.coerce.number().int().min(1),
})

export const DiffParamsSchema = z.object({
  idOrSlug: IdOrSlugParamsSchema.shape.idOrSlug,
  from: z.coerce.number().int().min(1),
  to: z.coerce.number().int().min(1),
})

export const LookupSchema = z
  .object({
    texts: z
      .array(z.string().max(LIMITS.notation * 2))
      .min(1)
      .max(LIMITS.lookupTexts)
      .meta({ description: 'Notations found in a document (at most 500).', example: ['API GW', '용어집'] }),
  })
  .strict()

export const ClassificationCreateSchema = z
  .object({
    key: ClassificationKeySchema,
    nameKo: xmlText(z.string().trim().min(1).max(100)),
    nameEn: xmlText(z.string().trim().min(1).max(100)),
    sort: z.number().int().min(-100_000).max(100_000).default(0),
  })
  .strict()
  .meta({ example: { key: 'payments', nameKo: '결제', nameEn: 'Payments', sort: 10 } })

export const ClassificationUpdateSchema = z
  .object({
    nameKo: xmlText(z.string().trim().min(1).max(100)).optional(),
    nameEn: xmlText(z.string().trim().min(1).max(100)).optional(),
    sort: z.number().int().min(-100_000).max(100_000).optional(),
  })
  .strict()
  .meta({ description: 'The key cannot change; create a new entry and delete the old one instead.' })

export const ClassificationParamsSchema = z.object({ key: ClassificationKeySchema })

/* ---- Response shapes (documentation only; the services build them) ---- */

const UserRefSchema = z.object({ id: z.uuid(), name: z.string() })

export const TermSchema = z
  .object({
    id: z.uuid(),
    slug: z.string(),
    name: z.string(),
    fullName: z.string().nullable(),
    nameEn: z.string().nullable(),
    nameKo: z.string().nullable(),
    notations: z.array(
      z.object({ text: z.string(), kind: z.enum(NOTATION_KINDS), lang: z.string().nullable() }),
    ),
    domains: z.array(z.string()),
    categories: z.array(z.string()),
    tags: z.array(z.string()),
    status: z.enum(TERM_STATUSES),
    definition: z.string(),
    body: z.string(),
    revision: z.number().int(),
    mergedInto: z.object({ id: z.uuid(), slug: z.string(), name: z.string() }).nullable(),
    oldSlugs: z.array(z.string()),
    createdAt: z.iso.datetime(),
    updatedAt: z.iso.datetime(),
    updatedBy: UserRefSchema.nullable(),
  })
  .meta({
    example: {
      id: '0b6f2a5e-8a8f-4e44-9b1c-3d9b8e9f2a10',
      slug: 'api-gateway',
      name: 'API Gateway',
      fullName: null,
      nameEn: 'API Gateway',
      nameKo: 'API 게이트웨이',
      notations: [{ text: 'API GW', kind: 'admitted', lang: null }],
      domains: ['platform'],
      categories: [],
      tags: ['network'],
      status: 'active',
      definition: 'The single entry point that routes API calls to services.',
      body: '',
      revision: 3,
      mergedInto: null,
      oldSlugs: ['apigw'],
      createdAt: '2026-11-21T06:00:00.000Z',
      updatedAt: '2026-11-21T07:00:00.000Z',
      updatedBy: { id: '5f1d9c1e-1111-4c4c-8888-123456789abc', name: 'Kim Editor' },
    },
  })

export const TermListSchema = z.object({
  items: z.array(TermSchema.omit({ body: true, oldSlugs: true })),
  total: z.number().int(),
  page: z.number().int(),
  pageSize: z.number().int(),
})

export const SuggestResponseSchema = z.object({
  items: z.array(
    z.object({
      id: z.uuid(),
      slug: z.string(),
      name: z.string(),
      status: z.enum(TERM_STATUSES),
      matched: z.string(),
      kind: z.enum(NOTATION_KINDS),
    }),
  ),
})

const RevisionSummarySchema = z.object({
  revision: z.number().int(),
  note: z.string(),
  author: UserRefSchema.nullable(),
  createdAt: z.iso.datetime(),
  contentHash: z.string(),
})

export const RevisionListSchema = z.object({
  termId: z.uuid(),
  items: z.array(RevisionSummarySchema),
  total: z.number().int(),
})

export const RevisionSchema = RevisionSummarySchema.extend({
  termId: z.uuid(),
  content: TermSchema.pick({
    slug: true,
    name: true,
    fullName: true,
    nameEn: true,
    nameKo: true,
    notations: true,
    domains: true,
    categories: true,
    tags: true,
    status: true,
    definition: true,
    body: true,
  }),
})

/** One field of a revision diff (terms and wiki pages alike). */
export const FieldDiffSchema = z.object({
  field: z.string(),
  changed: z.boolean(),
  before: z.unknown(),
  after: z.unknown(),
  changes: z
    .array(z.object({ value: z.string(), added: z.boolean(), removed: z.boolean() }))
    .optional()
    .meta({
      description: 'Line diff of a long text field, or item diff of a list; only for changed fields.',
    }),
})

export const RevisionDiffSchema = z.object({
  termId: z.uuid(),
  from: RevisionSummarySchema,
  to: RevisionSummarySchema,
  fields: z.array(FieldDiffSchema),
})

export const MergeResponseSchema = z.object({ merged: TermSchema, into: TermSchema })

export const LookupResponseSchema = z
  .object({
    results: z.array(
      z.object({
        text: z.string(),
        normalized: z.string(),
        found: z.boolean(),
        matches: z.array(
          z.object({
            term: z.object({
              id: z.uuid(),
              slug: z.string(),
              name: z.string(),
              status: z.enum(TERM_STATUSES),
            }),
            notation: z.string().meta({
              description: 'The notation as the glossary writes it (for `wrong-case`: written correctly).',
            }),
            kind: z.enum(NOTATION_KINDS),
            finding: z.enum(FINDING_VALUES).meta({
              description:
                'As in validation: letter case decides between notations that differ only by case, and a text whose case matches none of the notations where case matters is `wrong-case`.',
            }),
            preferred: z.string().nullable(),
          }),
        ),
      }),
    ),
  })
  .meta({
    example: {
      results: [
        {
          text: 'API GW',
          normalized: 'api gw',
          found: true,
          matches: [
            {
              term: {
                id: '0b6f2a5e-8a8f-4e44-9b1c-3d9b8e9f2a10',
                slug: 'api-gateway',
                name: 'API Gateway',
                status: 'active',
              },
              notation: 'API GW',
              kind: 'admitted',
              finding: 'admitted-notation',
              preferred: 'API Gateway',
            },
          ],
        },
      ],
    },
  })

export const ClassificationItemSchema = z.object({
  id: z.uuid(),
  key: z.string(),
  nameKo: z.string(),
  nameEn: z.string(),
  sort: z.number().int(),
  termCount: z.number().int(),
  createdAt: z.iso.datetime(),
  updatedAt: z.iso.datetime(),
})
