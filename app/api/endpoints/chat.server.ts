import { endpoint, type Endpoint } from '#app/api/endpoint.server.ts'
import { toErrorResponse } from '#app/lib/errors.server.ts'
import {
  ChatAnswerSchema,
  ChatRequestSchema,
  ChatStreamEventSchema,
  ConversationListSchema,
  ConversationParamsSchema,
  ConversationSchema,
} from '#app/schemas/chat.ts'
import {
  askChat,
  deleteConversation,
  getConversation,
  listConversations,
  type ChatAnswer,
} from '#app/services/chat/chat.server.ts'
import { sessionOf } from './identity.server.ts'

/** Signed-in sessions only: an API key is 403, no session 401 (spec: `POST /chat`, logged-in session). */
const session = { kind: 'session' } as const

/** Room for a 4,000-character question even when every character is JSON-escaped. */
const CHAT_BODY = 64 * 1024

/** Whether the client asked for the answer as server-sent events. */
const wantsEventStream = (accept: string | null) => /text\/event-stream/i.test(accept ?? '')

/** One server-sent event: its name and its JSON data on one line (JSON.stringify writes no line break). */
const sseEvent = (name: string, data: unknown) => `event: ${name}\ndata: ${JSON.stringify(data)}\n\n`

/**
 * The answer as server-sent events (decision 029): `meta` once the evidence is chosen, `text` per piece of the
 * model's answer, then `answer` (the whole ChatAnswer) or `error` (the envelope). A failure before `meta` (rate
 * limit, chat off, another user's conversation…) is the ordinary JSON error answer with its status, so the
 * status line still tells what happened. The body is a web stream the Fetch bridge pipes to the socket as
 * it comes (no compression, no held body); proxies are asked not to buffer it.
 */
async function streamAnswer(input: {
  userId: string
  message: string
  conversationId?: string
}): Promise<Response> {
  const encoder = new TextEncoder()
  const pending: string[] = []
  let wake: (() => void) | undefined
  let ended = false
  let cancelled = false
  const push = (chunk: string) => {
    if (cancelled) return
    pending.push(chunk)
    wake?.()
  }
  let started!: () => void
  const start = new Promise<void>((resolve) => (started = resolve))
  const run = askChat({
    ...input,
    onStart: (meta) => {
      push(sseEvent('meta', meta))
      started()
    },
    onText: (text) => push(sseEvent('text', { text })),
  })
  const finished = run.then(
    (answer: ChatAnswer) => push(sseEvent('answer', answer)),
    async (error: unknown) => push(sseEvent('error', await toErrorResponse(error).json())),
  )
  void finished.finally(() => {
    ended = true
    wake?.()
  })
  // Before the stream starts, a failure is thrown here and answered as JSON with its status.
  await Promise.race([start, run])
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      while (pending.length === 0 && !ended) await new Promise<void>((resolve) => (wake = resolve))
      wake = undefined
      if (pending.length > 0) controller.enqueue(encoder.encode(pending.splice(0).join('')))
      else controller.close()
    },
    cancel() {
      // The client left: the answer is still stored when the model finishes.
      cancelled = true
      pending.length = 0
    },
  })
  return new Response(body, {
    headers: {
      'Content-Type': 'text/event-stream; charset=utf-8',
      'Cache-Control': 'no-store',
      'X-Accel-Buffering': 'no',
    },
  })
}

/** The chatbot and its private history (spec part 6, issue 29). */
export const CHAT_ENDPOINTS: Endpoint[] = [
  endpoint({
    method: 'POST',
    path: '/chat',
    operationId: 'askChat',
    summary: 'Ask the chatbot: an answer from cited glossary terms, wiki pages and meeting records',
    description:
      'Signed-in session only (an API key gets 403). Evidence: terms named in the question and found by its keywords among names and notations, and — with search by meaning ready — the nearest passages of terms, published wiki pages and active meetings (`searchMode: "hybrid"`); when search by meaning is off or not ready, the embedding provider fails for now, or a named term is not indexed at its current revision yet, names and keywords only (`"keyword"`). Active terms and published wiki pages are official; terms that need completion are sent marked incomplete and meeting records as records of past discussion (`official: false`); deprecated terms, draft or archived wiki pages and archived meetings are never evidence. `answer` cites its evidence by label (`[G1]`, `[W1]`, `[M1]`); `citations` lists those it cites (all of the evidence when it cites none). The question is stored in your conversation before the AI provider is asked, and stays there when it fails (502 `rag_provider_error`, `details.conversationId`). 503 `rag_not_ready` when the chatbot is switched off (`chatEnabled`, `details.reason: "chat_off"`) or no AI provider is set (`"no_llm"`). Rate-limited per user (`GLOSSARY_RATE_CHAT_PER_MINUTE`, default 30 a minute): 429 with `Retry-After`. ' +
      'With `Accept: text/event-stream` the answer streams as server-sent events: `meta`, then `text` pieces, then `answer` (or `error`).',
    tag: 'chat',
    access: session,
    body: ChatRequestSchema,
    maxBodyBytes: CHAT_BODY,
    response: ChatAnswerSchema,
    media: { 'text/event-stream': ChatStreamEventSchema },
    errors: ['not_found', 'rate_limited', 'rag_not_ready', 'rag_provider_error'],
    handler: async (ctx) => {
      const input = { userId: sessionOf(ctx).user.id, ...ctx.body }
      return wantsEventStream(ctx.request.headers.get('accept')) ? streamAnswer(input) : askChat(input)
    },
  }),
  endpoint({
    method: 'GET',
    path: '/chat/conversations',
    operationId: 'listChatConversations',
    summary: 'Your conversations with the chatbot, the one changed last first',
    tag: 'chat',
    access: session,
    response: ConversationListSchema,
    handler: async (ctx) => ({ items: await listConversations(sessionOf(ctx).user.id) }),
  }),
  endpoint({
    method: 'GET',
    path: '/chat/conversations/{id}',
    operationId: 'getChatConversation',
    summary: 'One of your conversations with its turns (questions and cited answers)',
    description: "Another user's conversation is 404, as one that does not exist.",
    tag: 'chat',
    access: session,
    params: ConversationParamsSchema,
    response: ConversationSchema,
    errors: ['not_found'],
    handler: async (ctx) => getConversation(sessionOf(ctx).user.id, ctx.params.id),
  }),
  endpoint({
    method: 'DELETE',
    path: '/chat/conversations/{id}',
    operationId: 'deleteChatConversation',
    summary: 'Delete one of your conversations',
    description: "Another user's conversation is 404, as one that does not exist.",
    tag: 'chat',
    access: session,
    params: ConversationParamsSchema,
    successStatus: 204,
    errors: ['not_found'],
    handler: async (ctx) => {
      await deleteConversation(sessionOf(ctx).user.id, ctx.params.id)
    },
  }),
]
