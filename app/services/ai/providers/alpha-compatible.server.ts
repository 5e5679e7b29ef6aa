import os from 'node:os'
import { boundedStream, OutboundError, type StreamAnswer } from '#app/lib/outbound.server.ts'
import { VECTOR_DIMENSIONS } from '#domain/rag.ts'
import {
  badAnswer,
  callProvider,
  checkVectors,
  classOfStatus,
  ProviderError,
  withKey,
  type ChatCompleter,
  type ChatCompletion,
  type ChatMessage,
  type ChatOptions,
  type Embedder,
  type ProviderTarget,
  type Reranker,
  type Usage,
} from '../provider.server.ts'
import { sseData } from './sse.server.ts'

/**
 * A generic compatible-API server (`alpha_compatible`): `POST {baseUrl}/embeddings` with `dimensions: 1536`,
 * `POST {baseUrl}/rerank`, `POST {baseUrl}/chat/completions` (whole or streamed as server-sent events),
 * `GET {baseUrl}/models`; the key as `Authorization: Bearer`.
 */

const bearer = (target: ProviderTarget) => withKey(target, { authorization: `Bearer ${target.apiKey}` })

/**
 * Base URLs whose server refused `encoding_format: "base64"` (HTTP 400 or 422) in this process: asked for
 * JSON numbers from then on.
 */
const refusesBase64 = new Set<string>()

/**
 * Vectors are asked for as base64 (each the little-endian float32 bytes, as the compatible API defines it):
 * parsing 1,536 numbers of JSON text cost the service ~0.5 ms of its one thread a vector, most of a full
 * reindex's embedding cost (decision 036). A server that ignores the field answers numbers, which are read as
 * well; one that refuses it is asked once more for numbers, and for numbers only from then on.
 */
export function alphaEmbedder(target: ProviderTarget): Embedder {
  const call = (texts: readonly string[], encoding: 'base64' | 'float') =>
    callProvider('embedding', `${target.baseUrl}/embeddings`, {
      method: 'POST',
      headers: bearer(target),
      body: { model: target.model, input: texts, dimensions: VECTOR_DIMENSIONS, encoding_format: encoding },
    }) as Promise<{ data?: { embedding?: unknown; index?: number }[]; usage?: Record<string, unknown> }>
  return {
    provider: 'alpha_compatible',
    target,
    async embed(texts) {
      let json
      if (refusesBase64.has(target.baseUrl)) json = await call(texts, 'float')
      else {
        try {
          json = await call(texts, 'base64')
        } catch (error) {
          if (!(error instanceof ProviderError && (error.httpStatus === 400 || error.httpStatus === 422)))
            throw error
          json = await call(texts, 'float')
          refusesBase64.add(target.baseUrl)
        }
      }
      if (!Array.isArray(json?.data)) throw badAnswer('embedding', 'no data')
      const ordered = [...json.data]
        .sort((a, b) => (a.index ?? 0) - (b.index ?? 0))
        .map((d) => (typeof d.embedding === 'string' ? float32Base64(d.embedding) : d.embedding))
      return {
        vectors: checkVectors('embedding', ordered, texts.length, VECTOR_DIMENSIONS),
        usage: usageOf(json.usage),
      }
    },
  }
}

/**
 * A base64 vector's numbers (little-endian float32); a length that is not whole floats is left to the check.
 * Read through a Float32Array copied to an aligned buffer of its own, into a plain array by a loop: ~30 µs a
 * vector, against ~75 µs by `readFloatLE` and ~250 µs by `Array.from` (and ~450 µs to parse it as JSON).
 */
function float32Base64(text: string): number[] | string {
  const bytes = Buffer.from(text, 'base64')
  if (bytes.length % 4 !== 0) return text
  const out = new Array<number>(bytes.length / 4)
  if (!LITTLE_ENDIAN) {
    for (let i = 0; i < out.length; i++) out[i] = bytes.readFloatLE(i * 4)
    return out
  }
  const floats = new Float32Array(Uint8Array.from(bytes).buffer)
  for (let i = 0; i < out.length; i++) out[i] = floats[i]!
  return out
}

const LITTLE_ENDIAN = os.endianness() === 'LE'

export function alphaReranker(target: ProviderTarget): Reranker {
  return {
    provider: 'alpha_compatible',
    target,
    rerank: (q, docs) => rerankCall(target, bearer(target), q, docs),
  }
}

/** `POST {baseUrl}/rerank` → `{ results: [{ index, relevance_score }] }` (also accepted under `data`). */
export async function rerankCall(
  target: ProviderTarget,
  headers: Record<string, string>,
  query: string,
  documents: readonly string[],
): Promise<{ scores: number[]; usage: Usage }> {
  const json = (await callProvider('reranker', `${target.baseUrl}/rerank`, {
    method: 'POST',
    headers,
    body: { model: target.model, query, documents, top_n: documents.length },
  })) as { results?: unknown; data?: unknown; usage?: Record<string, unknown>; meta?: unknown }
  const results = (Array.isArray(json?.results) ? json.results : json?.data) as
    { index?: unknown; relevance_score?: unknown; score?: unknown }[] | undefined
  if (!Array.isArray(results)) throw badAnswer('reranker', 'no results')
  const scores = documents.map(() => Number.NaN)
  for (const r of results) {
    const score = typeof r.relevance_score === 'number' ? r.relevance_score : r.score
    if (typeof r.index === 'number' && r.index >= 0 && r.index < scores.length && typeof score === 'number') {
      scores[r.index] = score
    }
  }
  return { scores, usage: usageOf(json.usage) }
}

export function usageOf(raw: Record<string, unknown> | undefined): Usage {
  const n = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? Math.round(v) : undefined)
  if (!raw) return {}
  return {
    inputTokens: n(raw.prompt_tokens) ?? n(raw.input_tokens),
    outputTokens: n(raw.completion_tokens) ?? n(raw.output_tokens),
    totalTokens: n(raw.total_tokens),
  }
}

/**
 * Limits of one chat-completion call (issue 29). A model writes its answer slowly, so the whole exchange may
 * take longer than an embedding call; the answer is text, so 1 MiB of events is far more than any answer.
 * A streamed call must start answering (status and headers) within `firstByteTimeoutMs`; a whole answer
 * (`complete`) only arrives when it is written, so only `timeoutMs` bounds it.
 */
export const CHAT_LIMITS = { firstByteTimeoutMs: 30_000, timeoutMs: 120_000, maxBytes: 1024 * 1024 }

/** Test hook: other chat limits (the stand-in's slow and endless modes); answers the previous ones. */
export function setChatLimits(limits: Partial<typeof CHAT_LIMITS>): typeof CHAT_LIMITS {
  const before = { ...CHAT_LIMITS }
  Object.assign(CHAT_LIMITS, limits)
  return before
}

const LLM = 'llm'

/** `POST {baseUrl}/chat/completions` of an alpha-compatible server, whole (`complete`) or streamed. */
export function alphaChat(target: ProviderTarget): ChatCompleter {
  const request = (messages: readonly ChatMessage[], options: ChatOptions | undefined, stream: boolean) => ({
    model: target.model,
    messages: messages.map((m) => ({ role: m.role, content: m.content })),
    temperature: options?.temperature,
    max_tokens: options?.maxTokens,
    stream,
    ...(stream ? { stream_options: { include_usage: true } } : {}),
  })
  return {
    provider: 'alpha_compatible',
    target,
    async complete(messages, options) {
      const answer = await openChat(target, request(messages, options, false), false)
      return completionOf(await readJson(answer))
    },
    async stream(messages, options, onText) {
      const answer = await openChat(target, request(messages, options, true), true)
      if (!answer.contentType.toLowerCase().includes('text/event-stream')) {
        // A server that ignores `stream: true` answers the whole completion at once.
        const whole = completionOf(await readJson(answer))
        if (whole.text) onText(whole.text)
        return whole
      }
      return readEvents(answer, onText)
    },
  }
}

/** Sends the call; answers a 2xx whose body is still unread, or throws a `ProviderError`. */
async function openChat(target: ProviderTarget, body: unknown, stream: boolean): Promise<StreamAnswer> {
  let answer: StreamAnswer
  try {
    answer = await boundedStream(`${target.baseUrl}/chat/completions`, {
      method: 'POST',
      headers: { accept: stream ? 'text/event-stream' : 'application/json', ...bearer(target) },
      body,
      firstByteTimeoutMs: stream ? CHAT_LIMITS.firstByteTimeoutMs : CHAT_LIMITS.timeoutMs,
      timeoutMs: CHAT_LIMITS.timeoutMs,
      maxBytes: CHAT_LIMITS.maxBytes,
    })
  } catch (error) {
    throw chatFailure(error)
  }
  if (answer.status < 200 || answer.status >= 300) {
    await answer.cancel()
    const failureClass = classOfStatus(answer.status)
    throw new ProviderError(
      failureClass,
      `${LLM}: ${failureClass} (HTTP ${answer.status}).`,
      answer.status,
      answer.retryAfter === undefined ? null : answer.retryAfter * 1000,
    )
  }
  return answer
}

/** A failure of the exchange as a `ProviderError`: its own words, never the provider's. */
function chatFailure(error: unknown): unknown {
  if (!(error instanceof OutboundError)) return error
  if (error.kind === 'timeout')
    return new ProviderError('timeout', `${LLM}: the provider did not answer in time.`)
  return new ProviderError('provider_unavailable', `${LLM}: ${error.message}`)
}

async function readJson(answer: StreamAnswer): Promise<unknown> {
  const chunks: Uint8Array[] = []
  try {
    for await (const chunk of answer.body) chunks.push(chunk)
  } catch (error) {
    throw chatFailure(error)
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8'))
  } catch {
    throw badAnswer(LLM, 'not JSON')
  }
}

/** `{ choices: [{ message: { content } }], usage }`. */
function completionOf(json: unknown): ChatCompletion {
  const root = json as { choices?: { message?: { content?: unknown } }[]; usage?: Record<string, unknown> }
  const content = Array.isArray(root?.choices) ? root.choices[0]?.message?.content : undefined
  if (typeof content !== 'string') throw badAnswer(LLM, 'no message content')
  return { text: content, usage: usageOf(root.usage) }
}

/**
 * Server-sent events: `data: {chunk}` lines, each chunk's `choices[0].delta.content` handed on in order, the
 * usage from the chunk that carries it (the last one, with `stream_options.include_usage`), then
 * `data: [DONE]`. A stream that ends before `[DONE]` and without a finish reason was cut off.
 */
async function readEvents(answer: StreamAnswer, onText: (text: string) => void): Promise<ChatCompletion> {
  const pieces: string[] = []
  let usage: Usage = {}
  let done = false
  let finished = false
  try {
    for await (const data of sseData(answer.body)) {
      if (data.trim() === '[DONE]') {
        done = true
        break
      }
      let chunk: {
        choices?: { delta?: { content?: unknown }; finish_reason?: unknown }[]
        usage?: Record<string, unknown> | null
        error?: unknown
      }
      try {
        chunk = JSON.parse(data) as typeof chunk
      } catch {
        throw badAnswer(LLM, 'an event is not JSON')
      }
      if (chunk?.error !== undefined && chunk.error !== null) {
        throw new ProviderError('provider_unavailable', `${LLM}: the provider reported an error mid-answer.`)
      }
      const choice = Array.isArray(chunk?.choices) ? chunk.choices[0] : undefined
      const text = choice?.delta?.content
      if (typeof text === 'string' && text !== '') {
        pieces.push(text)
        onText(text)
      }
      if (choice?.finish_reason) finished = true
      if (chunk?.usage) usage = usageOf(chunk.usage)
    }
  } catch (error) {
    throw chatFailure(error)
  } finally {
    if (!done) await answer.cancel()
  }
  if (!done && !finished) {
    throw new ProviderError('provider_unavailable', `${LLM}: the answer was cut off before its end.`)
  }
  return { text: pieces.join(''), usage }
}
