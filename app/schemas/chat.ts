import { z } from 'zod'
import { charLength } from './relations.ts'

/**
 * The chatbot's API (issue 29, spec part 6; decision 029): the question, the cited answer, the private history
 * and the events of a streamed answer. The chat page's form reads the same limits.
 */

/** The longest question, in characters (code points). */
export const CHAT_MESSAGE_MAX = 4000

export const ChatMessageSchema = z
  .string()
  .max(CHAT_MESSAGE_MAX * 2)
  .refine((s) => s.trim().length > 0, 'Write a question.')
  .refine(
    (s) => charLength(s) <= CHAT_MESSAGE_MAX,
    `A question may have at most ${CHAT_MESSAGE_MAX.toLocaleString('en')} characters.`,
  )

export const ChatRequestSchema = z
  .object({
    message: ChatMessageSchema.meta({ description: '1 to 4,000 characters.' }),
    conversationId: z
      .uuid()
      .optional()
      .meta({ description: 'Continue this conversation of yours; omitted: a new conversation.' }),
  })
  .strict()
export type ChatRequest = z.output<typeof ChatRequestSchema>

export const CitationSchema = z
  .object({
    label: z.string().meta({
      description: '`G<n>` a glossary term, `W<n>` a wiki page, `M<n>` a meeting record; numbered per type.',
      example: 'G1',
    }),
    type: z.enum(['term', 'meeting', 'wiki']),
    title: z.string(),
    slug: z.string().optional().meta({ description: "Terms and wiki pages: the address's slug." }),
    id: z.string().optional(),
    revision: z.number().int().optional().meta({ description: 'The revision cited.' }),
    meetingDate: z.string().optional().meta({ description: 'Meetings: the meeting date (ISO 8601).' }),
    url: z.string().meta({
      description:
        'Opens the term at the cited revision, or the wiki page / meeting at the cited passage (`?passage=START-END&revision=N#passage`).',
    }),
    snippet: z.string().meta({ description: 'The cited passage, cut to 300 characters.' }),
    official: z.boolean().meta({
      description:
        'True for active terms and published wiki pages; false for terms that need completion and for meeting records (records of past discussion, never approval of current policy).',
    }),
  })
  .strict()

const SearchModeSchema = z.enum(['hybrid', 'keyword']).meta({
  description:
    '`hybrid`: vector search over terms, wiki pages and meetings with name and keyword search over the glossary; `keyword`: name and keyword search only (search by meaning off or not ready, the embedding provider failing for now, or a named term not indexed at its current revision yet).',
})

export const ChatAnswerSchema = z
  .object({
    conversationId: z.uuid(),
    answer: z.string().meta({ description: 'Refers to its evidence by label, e.g. `[G1]`.' }),
    citations: z.array(CitationSchema),
    searchMode: SearchModeSchema,
    traceId: z.string().meta({ description: 'Shared by the AI run rows of this question.' }),
  })
  .strict()

export const ConversationSummarySchema = z
  .object({ id: z.uuid(), title: z.string(), createdAt: z.string(), updatedAt: z.string() })
  .strict()

export const ConversationListSchema = z
  .object({ items: z.array(ConversationSummarySchema) })
  .strict()
  .meta({ description: 'Your conversations, the one changed last first (at most 200).' })

export const ChatTurnSchema = z
  .object({
    id: z.uuid(),
    role: z.enum(['user', 'assistant']),
    content: z.string(),
    createdAt: z.string(),
    citations: z.array(CitationSchema),
    searchMode: SearchModeSchema.nullable(),
    traceId: z.string().nullable(),
    failed: z.boolean().meta({ description: 'An answer the AI provider could not give (no content).' }),
  })
  .strict()

export const ConversationSchema = ConversationSummarySchema.extend({
  turns: z.array(ChatTurnSchema),
}).strict()

export const ConversationParamsSchema = z.object({ id: z.uuid() })

/**
 * One event of a streamed answer (`Accept: text/event-stream`), as its `data:` line holds it: `meta` once (the
 * conversation, search mode and trace id), `text` for each piece of the answer, then `answer` (the whole
 * answer, as the JSON answer) or `error` (the error envelope) last.
 */
export const ChatStreamEventSchema = z
  .union([
    z.object({ conversationId: z.uuid(), searchMode: SearchModeSchema, traceId: z.string() }).strict(),
    z.object({ text: z.string() }).strict(),
    ChatAnswerSchema,
    z.object({ error: z.object({ code: z.string(), message: z.string().optional() }).loose() }).strict(),
  ])
  .meta({
    description:
      'Server-sent events: `event: meta` (conversationId, searchMode, traceId), `event: text` ({ text }) for each piece of the answer, then `event: answer` (the whole answer with its citations) or `event: error` ({ error }: the envelope, e.g. `rag_provider_error` when the AI provider fails mid-way). Errors before the stream starts are plain JSON answers with their status.',
  })
