import { z } from 'zod'
import { charLength } from './relations.ts'
import {
  AI_FAILURE_CLASSES,
  EMBEDDING_PROVIDERS,
  MODEL_ENDPOINTS,
  RAG_LIMITS,
  RERANKER_PROVIDERS,
} from '#domain/rag.ts'

/**
 * Search settings, the provider tools of the settings page, and the three searches (spec: "Search/index
 * configuration", "Vector search item", "Search and index administration", "Vector search"). Secrets are
 * write-only: the read schema has no member that could carry one.
 */

export const BaseUrlSchema = z
  .string()
  .trim()
  .max(2000)
  .refine((v) => v === '' || /^https?:\/\/[^\s]+$/i.test(v), 'Use an http:// or https:// address.')
  .refine((v) => {
    if (v === '') return true
    try {
      const url = new URL(v)
      return !url.username && !url.password && !url.search && !url.hash
    } catch {
      return false
    }
  }, 'Give the address without credentials, query or fragment (put keys in the API key or a custom header).')
  .transform((v) => v.replace(/\/+$/, ''))
  .meta({
    description:
      'http(s) address of the provider; `/embeddings`, `/models/{model}:batchEmbedContents` or `/rerank` is appended.',
    example: 'https://ai.example.internal/v1',
  })

export const ModelNameSchema = z.string().trim().max(200)

/** Header names that would break the request or the HTTP framing; the provider modules set these. */
const RESERVED_HEADERS = new Set([
  'host',
  'content-length',
  'content-type',
  'transfer-encoding',
  'connection',
])

const HeaderWriteSchema = z
  .object({
    name: z
      .string()
      .trim()
      .min(1)
      .max(100)
      .regex(/^[A-Za-z0-9!#$%&'*+.^_`|~-]+$/, 'A header name is letters, digits and - _ . only.')
      .refine((v) => !RESERVED_HEADERS.has(v.toLowerCase()), 'This header is set by the service itself.'),
    value: z
      .string()
      .max(4000)
      .refine((v) => !/[\r\n]/.test(v), 'A header value may not contain line breaks.')
      .nullish()
      .meta({ description: 'Write-only. Empty or omitted keeps the stored value of a header of that name.' }),
  })
  .strict()

export const HeadersWriteSchema = z
  .array(HeaderWriteSchema)
  .max(RAG_LIMITS.customHeadersMax, `At most ${RAG_LIMITS.customHeadersMax} custom headers.`)
  .refine(
    (rows) => new Set(rows.map((r) => r.name.toLowerCase())).size === rows.length,
    'Each header name may appear once.',
  )
  .meta({ description: 'The full list of custom headers: a stored header missing from it is deleted.' })

export const ApiKeyWriteSchema = z
  .string()
  .max(4000)
  .refine((v) => !/[\r\n]/.test(v), 'An API key may not contain line breaks.')
  .nullable()
  .optional()
  .meta({ description: 'Write-only. Omitted or empty keeps the stored key; `null` deletes it.' })

export const ChunkSizeSchema = z.number().int().min(RAG_LIMITS.chunkSizeMin).max(RAG_LIMITS.chunkSizeMax)
export const TopKSchema = z.number().int().min(RAG_LIMITS.topKMin).max(RAG_LIMITS.topKMax)

export const UpdateRagConfigSchema = z
  .object({
    enabled: z.boolean(),
    chatEnabled: z.boolean(),
    embeddingProvider: z.enum(EMBEDDING_PROVIDERS),
    embeddingBaseUrl: BaseUrlSchema,
    embeddingModel: ModelNameSchema,
    embeddingApiKey: ApiKeyWriteSchema,
    embeddingCustomHeaders: HeadersWriteSchema,
    rerankerEnabled: z.boolean(),
    rerankerProvider: z.enum(RERANKER_PROVIDERS),
    rerankerBaseUrl: BaseUrlSchema,
    rerankerModel: ModelNameSchema,
    rerankerApiKey: ApiKeyWriteSchema,
    rerankerCustomHeaders: HeadersWriteSchema,
    chunkSize: ChunkSizeSchema.meta({ description: '400 to 8000 characters.' }),
    chunkOverlap: z.number().int().min(0).meta({ description: '0 or more, smaller than chunkSize.' }),
    topK: TopKSchema,
  })
  .partial()
  .strict()
export type UpdateRagConfigInput = z.output<typeof UpdateRagConfigSchema>

export const HeaderReadSchema = z.object({ name: z.string(), configured: z.boolean() }).strict()

export const RagStatsSchema = z
  .object({
    indexedTerms: z
      .number()
      .int()
      .meta({ description: 'Searchable terms with chunks of their current revision.' }),
    totalTerms: z.number().int().meta({ description: 'Searchable terms (not deleted, not merged).' }),
    queued: z.number().int(),
    processing: z.number().int(),
    ready: z.number().int(),
    failed: z.number().int(),
  })
  .strict()
export type RagStats = z.output<typeof RagStatsSchema>

export const RagConfigSchema = z
  .object({
    enabled: z.boolean(),
    chatEnabled: z.boolean(),
    embeddingProvider: z.enum(EMBEDDING_PROVIDERS),
    embeddingBaseUrl: z.string(),
    embeddingModel: z.string(),
    hasApiKey: z.boolean().meta({ description: 'Whether an embedding API key is stored (never the key).' }),
    embeddingCustomHeaders: z.array(HeaderReadSchema),
    rerankerEnabled: z.boolean(),
    rerankerProvider: z.enum(RERANKER_PROVIDERS),
    rerankerBaseUrl: z.string(),
    rerankerModel: z.string(),
    rerankerHasApiKey: z.boolean(),
    rerankerCustomHeaders: z.array(HeaderReadSchema),
    chunkSize: z.number().int(),
    chunkOverlap: z.number().int(),
    topK: z.number().int(),
    secretsReadable: z.boolean().meta({
      description: 'False when a stored secret cannot be decrypted with the current key: search answers 503.',
    }),
    problem: z.string().nullable().meta({ description: 'Why search cannot run, for the settings page.' }),
    updatedAt: z.string(),
    ...RagStatsSchema.shape,
  })
  .strict()
export type RagConfigDto = z.output<typeof RagConfigSchema>

/** The stored secrets of the search settings, by the name of the field that writes them. */
export const RAG_SECRET_FIELDS = [
  'embeddingApiKey',
  'embeddingCustomHeaders',
  'rerankerApiKey',
  'rerankerCustomHeaders',
] as const
export type RagSecretField = (typeof RAG_SECRET_FIELDS)[number]

/** `PATCH /admin/rag-config`'s answer: the settings, and the stored secrets the change cleared. */
export const RagConfigUpdateSchema = RagConfigSchema.extend({
  clearedSecrets: z.array(z.enum(RAG_SECRET_FIELDS)).meta({
    description:
      'Stored secrets this change cleared because their base URL changed and the request did not send them again: the API key, or the values of the custom headers (their names stay, `configured: false`). Empty when nothing was cleared.',
  }),
}).strict()
export type RagConfigUpdateDto = z.output<typeof RagConfigUpdateSchema>

export const ListModelsSchema = z
  .object({
    baseUrl: BaseUrlSchema.refine((v) => v !== '', 'Give the provider address.'),
    endpoint: z.enum(MODEL_ENDPOINTS),
  })
  .strict()
export type ListModelsInput = z.output<typeof ListModelsSchema>

export const ModelListSchema = z
  .object({ models: z.array(z.object({ id: z.string(), label: z.string() }).strict()) })
  .strict()

export const ConnectionTestSchema = z
  .object({ ok: z.boolean(), embedding: z.boolean(), reranker: z.boolean() })
  .strict()

export const ReindexResultSchema = z
  .object({
    ok: z.boolean(),
    queued: z.number().int().meta({ description: 'Terms queued.' }),
    queuedMeetings: z.number().int(),
    queuedWikiPages: z.number().int(),
  })
  .strict()

export const FailureClassSchema = z.enum(AI_FAILURE_CLASSES)

// ── Searches ─────────────────────────────────────────────────────────────────────────────────────────────

const QuerySchema = z
  .string()
  .max(RAG_LIMITS.queryMax * 2)
  .refine((s) => s.trim().length > 0, 'Give a search query.')
  .refine(
    (s) => charLength(s) <= RAG_LIMITS.queryMax,
    `The query may have at most ${RAG_LIMITS.queryMax.toLocaleString('en')} characters.`,
  )

const searchFields = {
  query: QuerySchema.meta({ description: '1 to 20,000 characters.' }),
  topK: TopKSchema.optional().meta({ description: '1 to 50; the admin setting when omitted.' }),
  domain: z.string().trim().min(1).max(100).nullish().meta({ description: 'Null or omitted: all domains.' }),
  rerank: z.boolean().optional().meta({ description: 'Rerank the results; the admin setting when omitted.' }),
}

export const SearchRequestSchema = z.object(searchFields).strict()
export type SearchRequest = z.output<typeof SearchRequestSchema>

const IsoSchema = z.iso
  .datetime({ offset: true })
  .or(z.iso.date())
  .transform((v) => new Date(v))

export const MeetingSearchRequestSchema = z
  .object({
    ...searchFields,
    team: z.string().trim().min(1).max(200).nullish(),
    from: IsoSchema.nullish().meta({ description: 'Meetings on or after (ISO 8601).' }),
    to: IsoSchema.nullish().meta({ description: 'Meetings on or before (ISO 8601).' }),
  })
  .strict()
export type MeetingSearchRequest = z.output<typeof MeetingSearchRequestSchema>

const scoreFields = {
  score: z.number().meta({ description: 'Cosine similarity mapped to (0, 1]: nearer to 1 is more similar.' }),
  rerankScore: z.number().optional().meta({ description: 'Only on items the reranker scored.' }),
}

export const TermSearchItemSchema = z
  .object({
    id: z.uuid(),
    termId: z.uuid(),
    slug: z.string(),
    title: z.string(),
    nameEn: z.string(),
    nameKo: z.string(),
    domain: z.array(z.string()),
    categories: z.array(z.string()),
    tags: z.array(z.string()),
    topic: z.string(),
    status: z.string(),
    revision: z.number().int(),
    sourceField: z.string(),
    content: z.string(),
    metadata: z.object({ termId: z.uuid(), revision: z.number().int(), sourceField: z.string() }).strict(),
    ...scoreFields,
    updatedAt: z.string(),
  })
  .strict()
export type TermSearchItem = z.output<typeof TermSearchItemSchema>

export const WikiSearchItemSchema = z
  .object({
    id: z.uuid(),
    wikiPageId: z.uuid(),
    slug: z.string(),
    title: z.string(),
    domain: z.array(z.string()),
    revision: z.number().int(),
    startOffset: z.number().int(),
    endOffset: z.number().int(),
    content: z.string(),
    metadata: z.object({ wikiPageId: z.uuid(), revision: z.number().int() }).strict(),
    ...scoreFields,
    updatedAt: z.string(),
  })
  .strict()
export type WikiSearchItem = z.output<typeof WikiSearchItemSchema>

export const MeetingSearchItemSchema = z
  .object({
    id: z.uuid(),
    meetingId: z.uuid(),
    title: z.string(),
    meetingDate: z.string(),
    team: z.string().nullable(),
    domain: z.array(z.string()),
    revision: z.number().int(),
    startOffset: z.number().int(),
    endOffset: z.number().int(),
    content: z.string(),
    metadata: z.object({ meetingId: z.uuid(), revision: z.number().int() }).strict(),
    ...scoreFields,
  })
  .strict()
export type MeetingSearchItem = z.output<typeof MeetingSearchItemSchema>

const searchAnswer = <T extends z.ZodType>(item: T) =>
  z
    .object({
      query: z.string(),
      total: z.number().int().meta({ description: 'Number of items.' }),
      reranked: z.boolean(),
      items: z.array(item),
    })
    .strict()

export const TermSearchResultSchema = searchAnswer(TermSearchItemSchema)
export const WikiSearchResultSchema = searchAnswer(WikiSearchItemSchema)
export const MeetingSearchResultSchema = searchAnswer(MeetingSearchItemSchema)
export interface SearchResult<T> {
  query: string
  total: number
  reranked: boolean
  items: T[]
}
