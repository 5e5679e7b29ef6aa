import { endpoint } from '#app/api/endpoint.server.ts'
import {
  ListRelationsQuerySchema,
  PatchRelationSchema,
  ProposeRelationSchema,
  RelationIdParamsSchema,
  RelationIdResponseSchema,
  RelationListSchema,
  RelationSchema,
  RelationTermCandidatesSchema,
  RelationTermsQuerySchema,
  ReverseRelationResponseSchema,
  ReverseRelationSchema,
} from '#app/schemas/relations.ts'
import { getRelation, listRelations, searchRelationTerms } from '#app/services/relations/read.server.ts'
import { patchRelation, proposeRelation, reverseRelation } from '#app/services/relations/write.server.ts'

const read = { kind: 'scoped', scope: 'read' } as const
/** Relation writes need a signed-in person: API keys get 403 (spec), roles are checked per action. */
const session = { kind: 'session' } as const

/** Relations between terms with review (docs/decisions/008-relations.md). */
export const RELATION_ENDPOINTS = [
  endpoint({
    method: 'GET',
    path: '/relations',
    operationId: 'listRelations',
    summary: 'List relations, 20 per page',
    description:
      'Most recently changed first. `termId` matches the source or the target. Items embed both terms at their current revision with its definition, `stale` (a term changed since the recorded revisions), `version` (send it back when changing the relation) and the last reviewer and editor. Only `approved` relations are official.',
    tag: 'relations',
    access: read,
    query: ListRelationsQuerySchema,
    response: RelationListSchema,
    handler: async ({ query }) => listRelations(query),
  }),
  endpoint({
    method: 'GET',
    path: '/relations/terms',
    operationId: 'listRelationTermCandidates',
    summary: 'Term candidates for proposing a relation (at most 20, with a total)',
    description:
      '`q` matches any name or notation (ignoring case and width). Use a candidate’s `id` and `revision` as `sourceTermId`/`sourceRevision` or `targetTermId`/`targetRevision`.',
    tag: 'relations',
    access: read,
    query: RelationTermsQuerySchema,
    response: RelationTermCandidatesSchema,
    handler: async ({ query }) => searchRelationTerms(query),
  }),
  endpoint({
    method: 'GET',
    path: '/relations/{id}',
    operationId: 'getRelation',
    summary: 'One relation as a read item',
    tag: 'relations',
    access: read,
    params: RelationIdParamsSchema,
    response: RelationSchema,
    errors: ['not_found'],
    handler: async ({ params }) => getRelation(params),
  }),
  endpoint({
    method: 'POST',
    path: '/relations',
    operationId: 'proposeRelation',
    summary: 'Propose a relation (any signed-in role; API keys get 403)',
    description:
      'Stored as `proposed`. Evidence is Markdown of 1 to 4000 characters; source and target must differ; the revisions must exist (an older one makes the relation stale). One relation per source, target and type: a second one answers 409 `duplicate_relation` with `details.existingId`.',
    tag: 'relations',
    access: session,
    body: ProposeRelationSchema,
    successStatus: 201,
    response: RelationIdResponseSchema,
    errors: ['not_found', 'duplicate_relation', 'term_merged'],
    handler: async ({ body, actor }) => proposeRelation({ input: body, actor: actor!.user }),
  }),
  endpoint({
    method: 'PATCH',
    path: '/relations/{id}',
    operationId: 'patchRelation',
    summary: 'Approve, reject or edit a relation (session only)',
    description:
      '`approved` and `rejected` need an editor or admin; `edit` too, except that the proposer may edit their own relation while it is `proposed`. `version` must be the current token, else 409 `operation_conflict`. Approving needs both recorded revisions to be the terms’ current ones, else 409 `revision_conflict` (details carry the current revisions). Moves: proposed → approved | rejected; approved → rejected; `edit` from any state → proposed (the terms never change). A rejected relation comes back only through `edit`.',
    tag: 'relations',
    access: session,
    params: RelationIdParamsSchema,
    body: PatchRelationSchema,
    response: RelationIdResponseSchema,
    errors: ['not_found', 'operation_conflict', 'revision_conflict', 'duplicate_relation', 'conflict'],
    handler: async ({ params, body, actor }) =>
      patchRelation({ id: params.id, input: body, actor: actor!.user }),
  }),
  endpoint({
    method: 'POST',
    path: '/relations/{id}/reverse',
    operationId: 'reverseRelation',
    summary: 'Wrong direction: reject this relation and propose the reverse, atomically',
    description:
      'Rejects the relation and proposes target → source in one transaction (both or neither), recording both terms’ current revisions; type and evidence are kept unless given. Same permissions as `edit`; `version` as for PATCH. 409 `duplicate_relation` when the reverse already exists (nothing changes then).',
    tag: 'relations',
    access: session,
    params: RelationIdParamsSchema,
    body: ReverseRelationSchema,
    successStatus: 201,
    response: ReverseRelationResponseSchema,
    errors: ['not_found', 'operation_conflict', 'duplicate_relation'],
    handler: async ({ params, body, actor }) =>
      reverseRelation({ id: params.id, input: body, actor: actor!.user }),
  }),
]
