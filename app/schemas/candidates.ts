import { z } from 'zod'
import { SlugSchema } from './terms.ts'
import { xmlText } from './xml-text.ts'
import { CANDIDATE_STATUSES } from '#domain/content.ts'

export const ListCandidatesQuerySchema = z.object({
  status: z.enum(CANDIDATE_STATUSES).default('open'),
  q: z.string().max(200).optional().meta({ description: 'Substring of the candidate text.' }),
  page: z.coerce.number().int().min(1).default(1),
  pageSize: z.coerce.number().int().min(1).max(100).default(20),
})
export type ListCandidatesQuery = z.output<typeof ListCandidatesQuerySchema>

export const CandidateParamsSchema = z.object({ id: z.uuid() })

export const PromoteCandidateSchema = z
  .object({
    name: xmlText(z.string().trim().min(1).max(200))
      .optional()
      .meta({ description: 'Defaults to the candidate text.' }),
    slug: SlugSchema.optional(),
    definition: xmlText(z.string().max(10_000)).default(''),
    note: z.string().trim().max(500).default(''),
  })
  .strict()
  .optional()
  .transform((v) => v ?? { definition: '', note: '' })
export type PromoteCandidateInput = z.output<typeof PromoteCandidateSchema>

export const CandidateSchema = z.object({
  id: z.uuid(),
  text: z.string(),
  status: z.enum(CANDIDATE_STATUSES),
  count: z.number().int(),
  sightings: z.array(
    z.object({ source: z.enum(['validate', 'import']), context: z.string(), seenAt: z.iso.datetime() }),
  ),
  firstSeenAt: z.iso.datetime(),
  lastSeenAt: z.iso.datetime(),
  promotedTermId: z.uuid().nullable(),
})

export const CandidateListSchema = z.object({
  items: z.array(CandidateSchema),
  total: z.number().int(),
  page: z.number().int(),
  pageSize: z.number().int(),
})
export const CandidateResponseSchema = CandidateSchema
export const PromoteResponseSchema = z.object({
  candidate: CandidateSchema,
  term: z.record(z.string(), z.unknown()),
})
