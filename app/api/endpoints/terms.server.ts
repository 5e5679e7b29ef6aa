import { endpoint } from '#app/api/endpoint.server.ts'
import {
  CreateTermSchema,
  DiffParamsSchema,
  IdOrSlugParamsSchema,
  ListTermsQuerySchema,
  LookupResponseSchema,
  LookupSchema,
  MergeResponseSchema,
  MergeTermSchema,
  RevisionDiffSchema,
  RevisionListSchema,
  RevisionParamsSchema,
  RevisionSchema,
  SuggestQuerySchema,
  SuggestResponseSchema,
  TermListSchema,
  TermSchema,
  UpdateTermSchema,
} from '#app/schemas/terms.ts'
import {
  diffRevisions,
  getRevision,
  getTerm,
  listRevisions,
  listTerms,
  suggestTerms,
} from '#app/services/terms/read.server.ts'
import { createTerm, deleteTerm, mergeTerm, updateTerm } from '#app/services/terms/write.server.ts'
import { lookupTerms } from '#app/services/validation/lookup.server.ts'
import { encodeLookupAnswer } from '#app/api/lookup-answer.server.ts'
import { ATTACHMENT_ENDPOINTS } from './attachments.server.ts'
import { CANDIDATE_ENDPOINTS } from './candidates.server.ts'
import { CLASSIFICATION_ENDPOINTS } from './classification.server.ts'
import { IMPORT_ENDPOINTS } from './import.server.ts'
import { VALIDATION_ENDPOINTS } from './validation.server.ts'

const read = { kind: 'scoped', scope: 'read' } as const
const write = { kind: 'scoped', scope: 'write', minRole: 'editor' } as const

/** The term resource: list, read, history, diff, suggest, lookup, create, update, merge, delete. */
export const TERM_ENDPOINTS = [
  endpoint({
    method: 'GET',
    path: '/terms',
    operationId: 'listTerms',
    summary: 'List and search terms',
    description:
      '`q` matches any name or notation (substring, ignoring case and width: NFKC + lowercase; Korean included). Exact matches rank first, then prefix matches. Merged terms are left out unless `status=merged`; deleted terms never appear.',
    tag: 'terms',
    access: read,
    query: ListTermsQuerySchema,
    response: TermListSchema,
    handler: async ({ query }) => listTerms(query),
  }),
  endpoint({
    method: 'GET',
    path: '/terms/suggest',
    operationId: 'suggestTerms',
    summary: 'Autocomplete: terms whose name or notation starts with q',
    tag: 'terms',
    access: read,
    query: SuggestQuerySchema,
    response: SuggestResponseSchema,
    handler: async ({ query }) => suggestTerms(query),
  }),
  endpoint({
    method: 'POST',
    path: '/terms/lookup',
    operationId: 'lookupTerms',
    summary: 'Look up many notations at once',
    description:
      'Answers every text in one call: the terms it is a name or notation of, its kind of use and the preferred form to write instead. Texts are compared after normalization (NFKC, lowercase, whitespace folded). Merged and deleted terms are not included.',
    tag: 'terms',
    access: read,
    body: LookupSchema,
    response: LookupResponseSchema,
    encode: encodeLookupAnswer,
    handler: async ({ body }) => lookupTerms(body),
  }),
  endpoint({
    method: 'GET',
    path: '/terms/{idOrSlug}',
    operationId: 'getTerm',
    summary: 'One term by UUID, current slug or any old slug',
    tag: 'terms',
    access: read,
    params: IdOrSlugParamsSchema,
    response: TermSchema,
    errors: ['not_found'],
    handler: async ({ params }) => getTerm(params),
  }),
  endpoint({
    method: 'GET',
    path: '/terms/{idOrSlug}/revisions',
    operationId: 'listTermRevisions',
    summary: 'Revision history of a term, newest first',
    tag: 'terms',
    access: read,
    params: IdOrSlugParamsSchema,
    response: RevisionListSchema,
    errors: ['not_found'],
    handler: async ({ params }) => listRevisions(params),
  }),
  endpoint({
    method: 'GET',
    path: '/terms/{idOrSlug}/revisions/{revision}',
    operationId: 'getTermRevision',
    summary: 'One revision with its full content',
    tag: 'terms',
    access: read,
    params: RevisionParamsSchema,
    response: RevisionSchema,
    errors: ['not_found'],
    handler: async ({ params }) => getRevision(params),
  }),
  endpoint({
    method: 'GET',
    path: '/terms/{idOrSlug}/revisions/{from}/diff/{to}',
    operationId: 'diffTermRevisions',
    summary: 'Field-by-field difference between two revisions',
    description: 'Scalars as before/after, lists as an item diff, definition and body as a line diff.',
    tag: 'terms',
    access: read,
    params: DiffParamsSchema,
    response: RevisionDiffSchema,
    errors: ['not_found'],
    handler: async ({ params }) => diffRevisions(params),
  }),
  endpoint({
    method: 'POST',
    path: '/terms',
    operationId: 'createTerm',
    summary: 'Create a term (revision 1)',
    tag: 'terms',
    access: write,
    body: CreateTermSchema,
    successStatus: 201,
    response: TermSchema,
    errors: ['slug_taken'],
    handler: async ({ body, actor }) => createTerm({ input: body, actorId: actor!.user.id }),
  }),
  endpoint({
    method: 'PATCH',
    path: '/terms/{idOrSlug}',
    operationId: 'updateTerm',
    summary: 'Edit a term (a new revision)',
    description:
      '`baseRevision` is the revision the edit started from; if someone saved since, the answer is 409 `revision_conflict` with `details.currentRevision` and nothing is written. Saving content identical to the current revision creates no revision. Merged terms are read-only (409 `term_merged`).',
    tag: 'terms',
    access: write,
    params: IdOrSlugParamsSchema,
    body: UpdateTermSchema,
    response: TermSchema,
    errors: ['not_found', 'revision_conflict', 'term_merged', 'slug_taken'],
    handler: async ({ params, body, actor }) =>
      updateTerm({ idOrSlug: params.idOrSlug, input: body, actorId: actor!.user.id }),
  }),
  endpoint({
    method: 'POST',
    path: '/terms/{idOrSlug}/merge',
    operationId: 'mergeTerm',
    summary: 'Merge this term into another',
    description:
      'The term becomes `merged` and read-only; its slug becomes an old address of the survivor, its names and notations become notations of the survivor, and it leaves search, lookup and validation.',
    tag: 'terms',
    access: write,
    params: IdOrSlugParamsSchema,
    body: MergeTermSchema,
    response: MergeResponseSchema,
    errors: ['not_found', 'term_merged'],
    handler: async ({ params, body, actor }) =>
      mergeTerm({ idOrSlug: params.idOrSlug, input: body, actorId: actor!.user.id }),
  }),
  endpoint({
    method: 'DELETE',
    path: '/terms/{idOrSlug}',
    operationId: 'deleteTerm',
    summary: 'Delete a term (admin session; keeps a tombstone)',
    tag: 'terms',
    access: { kind: 'session', minRole: 'admin' },
    params: IdOrSlugParamsSchema,
    successStatus: 204,
    errors: ['not_found'],
    handler: async ({ params, actor }) => deleteTerm({ idOrSlug: params.idOrSlug, actorId: actor!.user.id }),
  }),
]

/** Every glossary endpoint (terms, validation, candidates, …), registered together in the registry. */
export const GLOSSARY_ENDPOINTS = [
  ...TERM_ENDPOINTS,
  ...CLASSIFICATION_ENDPOINTS,
  ...VALIDATION_ENDPOINTS,
  ...CANDIDATE_ENDPOINTS,
  ...IMPORT_ENDPOINTS,
  ...ATTACHMENT_ENDPOINTS,
]
