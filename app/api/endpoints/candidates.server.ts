import { endpoint } from '#app/api/endpoint.server.ts'
import {
  CandidateListSchema,
  CandidateParamsSchema,
  CandidateResponseSchema,
  ListCandidatesQuerySchema,
  PromoteCandidateSchema,
  PromoteResponseSchema,
} from '#app/schemas/candidates.ts'
import {
  dismissCandidate,
  listCandidates,
  promoteCandidate,
} from '#app/services/candidates/candidates.server.ts'

const write = { kind: 'scoped', scope: 'write', minRole: 'editor' } as const

/** Term candidates gathered from validated texts and imports. */
export const CANDIDATE_ENDPOINTS = [
  endpoint({
    method: 'GET',
    path: '/candidates',
    operationId: 'listCandidates',
    summary: 'Notations that look like terms but are not in the glossary',
    description: 'Most frequent first, with counts and the last sightings (source, context, time).',
    tag: 'candidates',
    access: { kind: 'scoped', scope: 'read' },
    query: ListCandidatesQuerySchema,
    response: CandidateListSchema,
    handler: async ({ query }) => listCandidates(query),
  }),
  endpoint({
    method: 'POST',
    path: '/candidates/{id}/dismiss',
    operationId: 'dismissCandidate',
    summary: 'Hide a candidate for good (it is never gathered again)',
    tag: 'candidates',
    access: write,
    params: CandidateParamsSchema,
    response: CandidateResponseSchema,
    errors: ['not_found', 'conflict'],
    handler: async ({ params, actor }) => dismissCandidate({ id: params.id, actorId: actor!.user.id }),
  }),
  endpoint({
    method: 'POST',
    path: '/candidates/{id}/promote',
    operationId: 'promoteCandidate',
    summary: 'Create a needs_completion term from a candidate',
    tag: 'candidates',
    access: write,
    params: CandidateParamsSchema,
    body: PromoteCandidateSchema,
    successStatus: 201,
    response: PromoteResponseSchema,
    errors: ['not_found', 'conflict', 'slug_taken'],
    handler: async ({ params, body, actor }) =>
      promoteCandidate({ id: params.id, input: body, actorId: actor!.user.id }),
  }),
]
