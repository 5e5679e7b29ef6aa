import { z } from 'zod'
import { RELATION_STATUSES, RELATION_TYPES } from '#domain/content.ts'

/**
 * Request and response shapes of the relation API (docs/decisions/008-relations.md). Shared by the API
 * endpoints, the OpenAPI document and the review/propose pages' forms.
 */

export const RELATION_LIMITS = { evidenceMin: 1, evidenceMax: 4000, pageSize: 20, candidates: 20 } as const

const TermIdSchema = z.uuid().meta({ description: 'Term UUID.' })
const RevisionSchema = z.coerce.number().int().min(1).meta({ description: 'A revision number of the term.' })

export const RelationTypeSchema = z
  .enum(RELATION_TYPES)
  .meta({ description: 'Kind of relation, read "source <type> target".', example: 'part_of' })

/** Length in characters (Unicode code points), as the spec's limits and Postgres `char_length` count. */
export function charLength(s: string): number {
  let n = 0
  for (const _ of s) n++
  return n
}

export const EvidenceSchema = z
  .string()
  .max(RELATION_LIMITS.evidenceMax * 2)
  .refine((s) => s.trim().length >= RELATION_LIMITS.evidenceMin, 'Give the evidence (at least 1 character).')
  .refine(
    (s) => charLength(s) <= RELATION_LIMITS.evidenceMax,
    `The evidence may have at most ${RELATION_LIMITS.evidenceMax} characters.`,
  )
  .meta({ description: 'Why the relation holds, in Markdown (1 to 4000 characters).' })

export const ProposeRelationSchema = z
  .object({
    sourceTermId: TermIdSchema,
    targetTermId: TermIdSchema,
    relationType: RelationTypeSchema,
    evidenceMd: EvidenceSchema,
    sourceRevision: RevisionSchema,
    targetRevision: RevisionSchema,
  })
  .strict()
  .refine((b) => b.sourceTermId.toLowerCase() !== b.targetTermId.toLowerCase(), {
    path: ['targetTermId'],
    message: 'The target must be a different term than the source.',
  })
export type ProposeRelationInput = z.output<typeof ProposeRelationSchema>

const VersionSchema = z
  .string()
  .min(1)
  .max(100)
  .meta({ description: 'The `version` read with the relation (opaque concurrency token).' })

export const PatchRelationSchema = z.discriminatedUnion('action', [
  z.object({ action: z.literal('approved'), version: VersionSchema }).strict(),
  z.object({ action: z.literal('rejected'), version: VersionSchema }).strict(),
  z
    .object({
      action: z.literal('edit'),
      version: VersionSchema,
      relationType: RelationTypeSchema,
      evidenceMd: EvidenceSchema,
      sourceRevision: RevisionSchema,
      targetRevision: RevisionSchema,
    })
    .strict(),
])
export type PatchRelationInput = z.output<typeof PatchRelationSchema>

export const ReverseRelationSchema = z
  .object({
    version: VersionSchema,
    relationType: RelationTypeSchema.optional().meta({
      description: 'Type of the reversed relation; the original type when omitted.',
    }),
    evidenceMd: EvidenceSchema.optional().meta({
      description: 'Evidence of the reversed relation; the original evidence when omitted.',
    }),
  })
  .strict()
export type ReverseRelationInput = z.output<typeof ReverseRelationSchema>

export const RelationIdParamsSchema = z.object({ id: z.uuid() })

export const ListRelationsQuerySchema = z.object({
  termId: z.uuid().optional().meta({ description: 'Relations where this term is the source or the target.' }),
  status: z.enum(RELATION_STATUSES).optional(),
  type: z.enum(RELATION_TYPES).optional(),
  stale: z.stringbool().optional().meta({
    description:
      'Only relations whose recorded revisions differ from the terms’ current ones (or only current ones).',
  }),
  page: z.coerce.number().int().min(1).max(100_000).default(1),
})
export type ListRelationsQuery = z.output<typeof ListRelationsQuerySchema>

export const RelationTermsQuerySchema = z.object({
  q: z
    .string()
    .max(200)
    .optional()
    .meta({ description: 'Part of a name or notation.', example: '게이트웨이' }),
})

const PersonSchema = z.object({ id: z.string(), name: z.string() }).nullable()

export const RelationTermSchema = z.object({
  id: z.string(),
  slug: z.string(),
  name: z.string(),
  status: z.string(),
  revision: z.number().int().meta({ description: 'Current revision of the term.' }),
  definition: z.string().meta({ description: 'Definition at the current revision.' }),
})

export const RelationSchema = z.object({
  id: z.string(),
  sourceTermId: z.string(),
  targetTermId: z.string(),
  relationType: z.enum(RELATION_TYPES),
  evidenceMd: z.string(),
  evidenceHtml: z.string().meta({ description: 'The evidence rendered to sanitized HTML.' }),
  sourceRevision: z.number().int(),
  targetRevision: z.number().int(),
  status: z.enum(RELATION_STATUSES),
  official: z.boolean().meta({ description: 'True only for approved relations.' }),
  stale: z
    .boolean()
    .meta({ description: 'A term has changed since the revisions the relation was judged on.' }),
  version: z.string(),
  source: RelationTermSchema,
  target: RelationTermSchema,
  proposedBy: PersonSchema,
  lastReviewedBy: PersonSchema,
  lastReviewedAt: z.string().nullable(),
  lastEditedBy: PersonSchema,
  lastEditedAt: z.string().nullable(),
  reversedFromId: z.string().nullable(),
  createdAt: z.string(),
  updatedAt: z.string(),
})

export const RelationListSchema = z.object({
  items: z.array(RelationSchema),
  total: z.number().int(),
  page: z.number().int(),
})

export const RelationTermCandidatesSchema = z.object({
  items: z.array(RelationTermSchema),
  total: z.number().int(),
})

export const RelationIdResponseSchema = z.object({ id: z.string() })
export const ReverseRelationResponseSchema = z.object({
  id: z.string().meta({ description: 'The new, reversed relation (proposed).' }),
  rejectedId: z.string().meta({ description: 'The relation that was rejected.' }),
})
