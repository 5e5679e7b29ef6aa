import { endpoint } from '#app/api/endpoint.server.ts'
import {
  CreateWikiPageSchema,
  ListWikiQuerySchema,
  UpdateWikiPageSchema,
  WikiDiffParamsSchema,
  WikiDiffSchema,
  WikiListSchema,
  WikiPageSchema,
  WikiRevisionListSchema,
  WikiRevisionParamsSchema,
  WikiRevisionSchema,
  WikiSlugParamsSchema,
} from '#app/schemas/wiki.ts'
import {
  diffWikiRevisions,
  getWikiPage,
  getWikiRevision,
  listWikiPages,
  listWikiRevisions,
} from '#app/services/wiki/read.server.ts'
import { createWikiPage, updateWikiPage } from '#app/services/wiki/write.server.ts'

const read = { kind: 'scoped', scope: 'read' } as const
const write = { kind: 'scoped', scope: 'write', minRole: 'editor' } as const
/** Room for 200,000 characters of content even when every one is JSON-escaped. */
const MAX_BODY = 4 * 1024 * 1024

/** Wiki knowledge pages (docs/decisions/009-wiki-and-meetings.md). */
export const WIKI_ENDPOINTS = [
  endpoint({
    method: 'GET',
    path: '/wiki',
    operationId: 'listWikiPages',
    summary: 'List wiki pages',
    description:
      'Most recently changed first (with `q`, title matches first). Archived pages are hidden unless `status=archived`. `pageSize` defaults to 20, at most 100. `official` is true only for published pages.',
    tag: 'wiki',
    access: read,
    query: ListWikiQuerySchema,
    response: WikiListSchema,
    handler: async ({ query }) => listWikiPages(query),
  }),
  endpoint({
    method: 'POST',
    path: '/wiki',
    operationId: 'createWikiPage',
    summary: 'Create a wiki page (revision 1, `draft` unless given)',
    description:
      'The slug is generated from the title when omitted (Hangul kept, lowercase, spaces become hyphens, punctuation dropped, `-2`… added when another page has it). A slug equal to a term’s slug is refused with 409 `slug_taken`. A published page is queued for search.',
    tag: 'wiki',
    access: write,
    body: CreateWikiPageSchema,
    maxBodyBytes: MAX_BODY,
    successStatus: 201,
    response: WikiPageSchema,
    errors: ['slug_taken'],
    handler: async ({ body, actor }) =>
      createWikiPage({ input: body, actor: { id: actor!.user.id, name: actor!.user.name } }),
  }),
  endpoint({
    method: 'GET',
    path: '/wiki/{slug}',
    operationId: 'getWikiPage',
    summary: 'One wiki page: the original Markdown and its sanitized HTML',
    tag: 'wiki',
    access: read,
    params: WikiSlugParamsSchema,
    response: WikiPageSchema,
    errors: ['not_found'],
    handler: async ({ params }) => getWikiPage(params),
  }),
  endpoint({
    method: 'PATCH',
    path: '/wiki/{slug}',
    operationId: 'updateWikiPage',
    summary: 'Edit a wiki page (a new revision)',
    description:
      'Every edit keeps a full revision (author, time, content). A page published after the edit is queued for search with its new revision; moving it to draft or archived removes it from search. Any move between draft, published and archived is allowed. `baseRevision`, when sent, must be the current revision (409 `revision_conflict`).',
    tag: 'wiki',
    access: write,
    params: WikiSlugParamsSchema,
    body: UpdateWikiPageSchema,
    maxBodyBytes: MAX_BODY,
    response: WikiPageSchema,
    errors: ['not_found', 'revision_conflict'],
    handler: async ({ params, body, actor }) =>
      updateWikiPage({
        slug: params.slug,
        input: body,
        actor: { id: actor!.user.id, name: actor!.user.name },
      }),
  }),
  endpoint({
    method: 'GET',
    path: '/wiki/{slug}/revisions',
    operationId: 'listWikiRevisions',
    summary: 'Revision history of a page, newest first',
    tag: 'wiki',
    access: read,
    params: WikiSlugParamsSchema,
    response: WikiRevisionListSchema,
    errors: ['not_found'],
    handler: async ({ params }) => listWikiRevisions(params),
  }),
  endpoint({
    method: 'GET',
    path: '/wiki/{slug}/revisions/{revision}',
    operationId: 'getWikiRevision',
    summary: 'One revision with its full content',
    tag: 'wiki',
    access: read,
    params: WikiRevisionParamsSchema,
    response: WikiRevisionSchema,
    errors: ['not_found'],
    handler: async ({ params }) => getWikiRevision(params),
  }),
  endpoint({
    method: 'GET',
    path: '/wiki/{slug}/revisions/{from}/diff/{to}',
    operationId: 'diffWikiRevisions',
    summary: 'Difference between two revisions of a page',
    description: 'Scalars as before/after, domains and linked terms as an item diff, content as a line diff.',
    tag: 'wiki',
    access: read,
    params: WikiDiffParamsSchema,
    response: WikiDiffSchema,
    errors: ['not_found'],
    handler: async ({ params }) => diffWikiRevisions(params),
  }),
]
