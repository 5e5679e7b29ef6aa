import { endpoint, type Endpoint } from '#app/api/endpoint.server.ts'
import {
  ConnectionTestSchema,
  ListModelsSchema,
  MeetingSearchRequestSchema,
  MeetingSearchResultSchema,
  ModelListSchema,
  RagConfigSchema,
  RagConfigUpdateSchema,
  ReindexResultSchema,
  SearchRequestSchema,
  TermSearchResultSchema,
  UpdateRagConfigSchema,
  WikiSearchResultSchema,
} from '#app/schemas/rag.ts'
import { listProviderModels, testConnection } from '#app/services/search/provider-check.server.ts'
import { getRagConfig, updateRagConfig } from '#app/services/search/rag-config.server.ts'
import { reindexAll } from '#app/services/search/reindex.server.ts'
import { searchMeetings, searchTerms, searchWiki } from '#app/services/search/search.server.ts'
import { auditActorOf, clientOf, sessionOf } from './identity.server.ts'

const admin = { kind: 'session', minRole: 'admin' } as const
const read = { kind: 'scoped', scope: 'read' } as const
/** Room for a 20,000-character query even when every character is JSON-escaped. */
const SEARCH_BODY = 256 * 1024

/** Search settings and index administration (admin session only) and the three searches (spec part 7). */
export const SEARCH_ENDPOINTS: Endpoint[] = [
  endpoint({
    method: 'GET',
    path: '/admin/rag-config',
    operationId: 'getRagConfig',
    summary: 'Search settings and index statistics (secrets never returned)',
    description:
      'Keys are reported as `hasApiKey` / `rerankerHasApiKey`, custom headers as `{ name, configured }`. `secretsReadable` is false (and `problem` says why) when a stored secret cannot be decrypted with the current encryption key.',
    tag: 'search',
    access: admin,
    response: RagConfigSchema,
    handler: async () => getRagConfig(),
  }),
  endpoint({
    method: 'PATCH',
    path: '/admin/rag-config',
    operationId: 'updateRagConfig',
    summary: 'Change search settings (any subset of the fields)',
    description:
      'Omitted or empty keys and header values keep the stored ones; `null` deletes a key; a stored header missing from a sent header list is deleted. A changed embedding provider, base URL, model or chunk setting starts a full reindex of every searchable term, published wiki page and active meeting: a new index is built beside the current one and swapped in at once when complete; until then search answers from the current index, with the model it was built with. ' +
      'Stored secrets belong to their address: when the embedding or reranker base URL changes, its stored API key and custom header values are cleared unless this request sends them again (header names stay, `configured: false`); `clearedSecrets` lists what was cleared. A secret stored while the base URL was empty goes with the first one given. ' +
      'Recorded in the audit log as `settings.search` with the names of the changed fields, never their values.',
    tag: 'search',
    access: admin,
    body: UpdateRagConfigSchema,
    response: RagConfigUpdateSchema,
    handler: async (ctx) => {
      const session = sessionOf(ctx)
      return updateRagConfig({
        input: ctx.body,
        actorId: session.user.id,
        audit: { actor: auditActorOf(session), client: clientOf(ctx) },
      })
    },
  }),
  endpoint({
    method: 'POST',
    path: '/admin/rag-config/models',
    operationId: 'listRagModels',
    summary: "The provider's models (`GET {baseUrl}/models`), filtered by endpoint; nothing is saved",
    description:
      '`embedding` lists ids containing `embed`, `reranker` ids containing `reranker`. The stored key is sent only to the stored base URL of that endpoint.',
    tag: 'search',
    access: admin,
    body: ListModelsSchema,
    response: ModelListSchema,
    errors: ['rag_provider_error'],
    handler: async ({ body }) => listProviderModels(body),
  }),
  endpoint({
    method: 'POST',
    path: '/admin/rag-config/test',
    operationId: 'testRagConfig',
    summary:
      'Send a short embedding request (and a rerank request when the reranker is on) with the stored settings',
    tag: 'search',
    access: admin,
    response: ConnectionTestSchema,
    errors: ['rag_provider_error', 'rag_not_ready'],
    handler: async () => testConnection(),
  }),
  endpoint({
    method: 'POST',
    path: '/admin/rag-config/reindex',
    operationId: 'reindexRag',
    summary:
      'Start a full reindex of every current term, active meeting and published wiki page; failed rows go back to queued',
    description:
      "Builds a new index beside the current one (a worker does it in the background) and swaps it in at once when complete; search answers from the current index until then. A full reindex still building is replaced by this one. The answer counts the sources; `/readyz` and the index status page show the run's progress.",
    tag: 'search',
    access: admin,
    successStatus: 202,
    response: ReindexResultSchema,
    handler: async () => reindexAll(),
  }),
  endpoint({
    method: 'POST',
    path: '/rag/search',
    operationId: 'searchTerms',
    summary: 'Search terms by meaning (hybrid: exact name and notation matches first)',
    description:
      'Only the current revision of non-merged, non-deleted terms is searched. `score` maps cosine similarity to (0, 1]; `rerankScore` appears only on items the reranker scored.',
    tag: 'search',
    access: read,
    body: SearchRequestSchema,
    maxBodyBytes: SEARCH_BODY,
    response: TermSearchResultSchema,
    errors: ['rag_provider_error', 'rag_not_ready'],
    handler: async ({ body }) => searchTerms(body),
  }),
  endpoint({
    method: 'POST',
    path: '/rag/wiki/search',
    operationId: 'searchWiki',
    summary: 'Search published wiki pages by meaning',
    tag: 'search',
    access: read,
    body: SearchRequestSchema,
    maxBodyBytes: SEARCH_BODY,
    response: WikiSearchResultSchema,
    errors: ['rag_provider_error', 'rag_not_ready'],
    handler: async ({ body }) => searchWiki(body),
  }),
  endpoint({
    method: 'POST',
    path: '/rag/meetings/search',
    operationId: 'searchMeetings',
    summary: 'Search active meeting records by meaning',
    description: '`team` is exact; `from` and `to` bound the meeting date (inclusive).',
    tag: 'search',
    access: read,
    body: MeetingSearchRequestSchema,
    maxBodyBytes: SEARCH_BODY,
    response: MeetingSearchResultSchema,
    errors: ['rag_provider_error', 'rag_not_ready'],
    handler: async ({ body }) => searchMeetings(body),
  }),
]
