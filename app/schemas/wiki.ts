import { z } from 'zod'
import { charLength } from './relations.ts'
import { FieldDiffSchema, SLUG_PATTERN, SLUG_RULE } from './terms.ts'
import { WIKI_STATUSES } from '#domain/content.ts'

/**
 * Request and response shapes of the wiki API (docs/decisions/009-wiki-and-meetings.md). Shared by the API
 * endpoints, the OpenAPI document and the wiki editor's form.
 */

export const WIKI_LIMITS = {
  slug: 120,
  title: 300,
  content: 200_000,
  summary: 2000,
  sourceUrl: 2000,
  domains: 30,
  domain: 100,
  termSlugs: 200,
  pageSizeDefault: 20,
  pageSizeMax: 100,
} as const

/** `/wiki/new` is the create page. */
export const WIKI_RESERVED_SLUGS = new Set(['new'])

const UUID_LIKE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

export const WikiSlugSchema = z
  .string()
  .trim()
  .min(1)
  .max(WIKI_LIMITS.slug)
  .regex(SLUG_PATTERN, 'use lowercase letters (any script), digits and single hyphens')
  .refine((s) => !UUID_LIKE.test(s), 'a slug must not look like a UUID')
  .refine((s) => !WIKI_RESERVED_SLUGS.has(s), 'this slug is reserved')
  .meta({
    description: `Address of the page (unique; never equal to a term slug; not new). ${SLUG_RULE}`,
    example: '결제-흐름-개요',
  })

const TitleSchema = z
  .string()
  .trim()
  .min(1, 'Give the page a title.')
  .max(WIKI_LIMITS.title)
  .meta({ example: '결제 흐름 개요' })

const ContentSchema = z
  .string()
  .max(WIKI_LIMITS.content * 2)
  .refine((s) => s.trim().length > 0, 'Write the page content.')
  .refine(
    (s) => charLength(s) <= WIKI_LIMITS.content,
    `The content may have at most ${WIKI_LIMITS.content} characters.`,
  )
  .meta({ description: 'Markdown (at most 200,000 characters). Raw HTML is shown as text, never run.' })

const SummarySchema = z
  .string()
  .trim()
  .max(WIKI_LIMITS.summary)
  .nullish()
  .transform((v) => (v ? v : null))

/** On update, an omitted summary stays as it is; `null` or `""` clears it. */
const SummaryUpdateSchema = z
  .string()
  .trim()
  .max(WIKI_LIMITS.summary)
  .nullish()
  .transform((v) => (v === undefined ? undefined : v ? v : null))

/** An http or https address; anything else (javascript:, data:, ftp:, relative) is refused. */
export const HttpUrlSchema = z
  .string()
  .trim()
  .max(WIKI_LIMITS.sourceUrl)
  .refine((s) => {
    try {
      const url = new URL(s)
      return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== ''
    } catch {
      return false
    }
  }, 'use an http or https address')
  .meta({
    description: 'Address of the original document (http or https).',
    example: 'https://intra.example/doc/1',
  })

const SourceUrlSchema = z.union([HttpUrlSchema, z.literal(''), z.null()]).transform((v) => (v ? v : null))

export const DomainListSchema = z
  .array(z.string().trim().min(1).max(WIKI_LIMITS.domain))
  .max(WIKI_LIMITS.domains)
  .transform((v) => [...new Set(v)])
  .meta({ description: 'Domains (free keys such as `payments`).', example: ['payments'] })

const TermSlugsSchema = z
  .array(z.string().trim().min(1).max(200))
  .max(WIKI_LIMITS.termSlugs)
  .transform((v) => [...new Set(v.map((s) => s.normalize('NFKC').toLowerCase()))])
  .meta({ description: 'Slugs of the linked terms (a set: no order).', example: ['api-gateway'] })

export const CreateWikiPageSchema = z
  .object({
    slug: WikiSlugSchema.optional().meta({
      description: 'Generated from the title when omitted (Hangul kept, lowercase, spaces become hyphens).',
    }),
    title: TitleSchema,
    content: ContentSchema,
    summary: SummarySchema,
    sourceUrl: SourceUrlSchema.optional(),
    domain: DomainListSchema.default([]),
    termSlugs: TermSlugsSchema.default([]),
    status: z.enum(WIKI_STATUSES).default('draft').meta({ description: 'Default `draft`.' }),
    termLinks: z.boolean().default(true).meta({
      description: 'Link the uses of glossary terms for readers, with their definitions. Default on.',
    }),
  })
  .strict()
export type CreateWikiPageInput = z.output<typeof CreateWikiPageSchema>

export const UpdateWikiPageSchema = z
  .object({
    baseRevision: z.number().int().min(1).optional().meta({
      description:
        'The revision the edit started from; a different current revision answers 409 revision_conflict.',
    }),
    title: TitleSchema.optional(),
    content: ContentSchema.optional(),
    summary: SummaryUpdateSchema,
    sourceUrl: SourceUrlSchema.optional(),
    domain: DomainListSchema.optional(),
    termSlugs: TermSlugsSchema.optional(),
    status: z.enum(WIKI_STATUSES).optional(),
    termLinks: z.boolean().optional().meta({
      description:
        'Switches term links on or off for readers; alone it changes the page without a new revision.',
    }),
  })
  .strict()
  .refine(
    (b) => Object.entries(b).some(([key, value]) => key !== 'baseRevision' && value !== undefined),
    'Send at least one field to change.',
  )
export type UpdateWikiPageInput = z.output<typeof UpdateWikiPageSchema>

/** One value or a repeated query parameter, as a list. */
const listParam = z
  .union([z.string(), z.array(z.string())])
  .optional()
  .transform((v) => (v === undefined ? [] : Array.isArray(v) ? v : [v]))

export const ListWikiQuerySchema = z.object({
  q: z.string().trim().max(200).optional().meta({ description: 'Text in the title, summary or content.' }),
  status: z
    .enum(WIKI_STATUSES)
    .optional()
    .meta({ description: 'Only this status. Without it, archived pages are hidden.' }),
  domain: listParam.meta({ description: 'Domain (repeat for any of several).' }),
  termId: z.uuid().optional().meta({ description: 'Pages linked to this term.' }),
  page: z.coerce.number().int().min(1).max(100_000).default(1),
  pageSize: z.coerce
    .number()
    .int()
    .min(1)
    .max(WIKI_LIMITS.pageSizeMax)
    .default(WIKI_LIMITS.pageSizeDefault)
    .meta({ description: 'Default 20, at most 100.' }),
})
export type ListWikiQuery = z.output<typeof ListWikiQuerySchema>

export const WikiSlugParamsSchema = z.object({ slug: z.string().min(1).max(200) })
export const WikiRevisionParamsSchema = z.object({
  slug: z.string().min(1).max(200),
  revision: z.coerce.number().int().min(1),
})
export const WikiDiffParamsSchema = z.object({
  slug: z.string().min(1).max(200),
  from: z.coerce.number().int().min(1),
  to: z.coerce.number().int().min(1),
})

const PersonSchema = z.object({ id: z.string(), name: z.string() }).nullable()

const wikiSummaryFields = {
  id: z.string(),
  slug: z.string(),
  title: z.string(),
  summary: z.string().nullable(),
  sourceUrl: z.string().nullable(),
  domain: z.array(z.string()),
  termSlugs: z.array(z.string()),
  status: z.enum(WIKI_STATUSES),
  revision: z.number().int(),
  termLinks: z.boolean().meta({
    description:
      'Whether readers see the uses of glossary terms on the page linked to their terms, with definitions (a display setting: changing it writes no revision).',
  }),
  official: z.boolean().meta({
    description: 'True only for published pages: drafts and archived pages are not official evidence.',
  }),
  createdAt: z.string(),
  updatedAt: z.string(),
  createdBy: PersonSchema,
  updatedBy: PersonSchema,
}

export const WikiListItemSchema = z.object(wikiSummaryFields)
export const WikiPageSchema = z.object({
  ...wikiSummaryFields,
  content: z.string().meta({ description: 'The original Markdown.' }),
  html: z.string().meta({ description: 'The content rendered to sanitized HTML.' }),
  terms: z.array(z.object({ id: z.string(), slug: z.string(), name: z.string() })),
})
export const WikiListSchema = z.object({
  items: z.array(WikiListItemSchema),
  total: z.number().int(),
  page: z.number().int(),
  pageSize: z.number().int(),
})

const RevisionSummarySchema = z.object({
  revision: z.number().int(),
  title: z.string(),
  status: z.enum(WIKI_STATUSES),
  author: PersonSchema,
  createdAt: z.string(),
})
export const WikiRevisionListSchema = z.object({
  slug: z.string(),
  items: z.array(RevisionSummarySchema),
  total: z.number().int(),
})
export const WikiRevisionSchema = RevisionSummarySchema.extend({
  slug: z.string(),
  content: z.string(),
  html: z.string(),
  summary: z.string().nullable(),
  sourceUrl: z.string().nullable(),
  domain: z.array(z.string()),
  termSlugs: z.array(z.string()),
})
export const WikiDiffSchema = z.object({
  slug: z.string(),
  from: RevisionSummarySchema,
  to: RevisionSummarySchema,
  fields: z.array(FieldDiffSchema),
})
