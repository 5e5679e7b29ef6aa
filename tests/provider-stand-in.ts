import crypto from 'node:crypto'
import http from 'node:http'
import type { AddressInfo } from 'node:net'

/**
 * A provider stand-in for tests (issue 12): a real HTTP server on 127.0.0.1 speaking the shapes of the
 * alpha-compatible API (`POST /embeddings`, `POST /rerank`, `POST /chat/completions`, `GET /models`), the
 * beta batch API (`POST /models/{model}:batchEmbedContents`) and a gamma-compatible rerank server. Its
 * embeddings are a bag of words hashed into 1536 dimensions and normalized, so texts sharing words are near
 * each other. Its chat answer is predictable (`standInChatText`: it cites the evidence labels of the prompt),
 * whole or streamed as server-sent events in several chunks with the usage in the last one. It can fail on
 * demand (`failNext(status, n)`, or every request until further notice: `failAll`), answer slowly
 * (`delayMs`, `chunkDelayMs`), never answer (`hangNext`), cut a stream mid-way (`cutStreamNext`), and records
 * every request (`lastChat()` is the body of the latest chat call, to check a prompt). `POST /embeddings`
 * answers each vector as numbers or, when asked with `encoding_format: "base64"`, as the base64 of its
 * little-endian float32 bytes, as the compatible API does; `embeddingFormats` lists the formats it accepts
 * (a server that refuses base64 answers 400).
 */

export interface SeenRequest {
  method: string
  path: string
  headers: http.IncomingHttpHeaders
  body: unknown
}

export interface StandIn {
  url: string
  requests: SeenRequest[]
  /** The next `times` requests answer `status` (500, 429, 401, 404 …), with `headers` (e.g. `Retry-After`). */
  failNext(status: number, times?: number, headers?: Record<string, string>): void
  /** Every request answers `status` (with `headers`) until called again with null: an outage. */
  failAll(status: number | null, headers?: Record<string, string>): void
  /** Every answer waits this long first. */
  delayMs: number
  /** The `encoding_format`s `POST /embeddings` accepts (both by default); another is answered 400. */
  embeddingFormats: ('float' | 'base64')[]
  /** Model ids `GET /models` lists; `POST /chat/completions` answers 404 for a model not in it. */
  models: string[]
  /** The next `times` requests get no answer at all (until the client gives up or the stand-in closes). */
  hangNext(times?: number): void
  /** The next streamed chat answer sends `pieces` text chunks, then the connection is cut. */
  cutStreamNext(pieces?: number): void
  /** The chat answer's text instead of `standInChatText` (e.g. a huge one), until set back to null. */
  chatReply: string | null
  /** A streamed chat answer waits this long between its chunks. */
  chunkDelayMs: number
  /** The body of the latest `POST /chat/completions` (model, messages, stream, temperature, max_tokens). */
  lastChat(): ChatRequestSeen | undefined
  close(): Promise<void>
}

export interface ChatRequestSeen {
  model: string
  messages: { role: string; content: string }[]
  stream?: boolean
  stream_options?: { include_usage?: boolean }
  temperature?: number
  max_tokens?: number
}

/** The chat model id the stand-in lists. */
export const STAND_IN_CHAT_MODEL = 'stand-in-chat'

const DIM = 1536

/**
 * The stand-in's chat answer: the evidence labels (`[G1]`, `[W2]`, `[M1]`) found in the messages other than
 * earlier answers, each once, in the order they first appear: `Answer citing [G1] [W2].`; without any label,
 * `Answer without evidence.`
 */
export function standInChatText(messages: readonly { role: string; content: string }[]): string {
  const labels: string[] = []
  for (const m of messages) {
    if (m.role === 'assistant') continue
    for (const [label] of String(m.content).matchAll(/\[[GWM]\d+\]/g)) {
      if (!labels.includes(label)) labels.push(label)
    }
  }
  return labels.length > 0 ? `Answer citing ${labels.join(' ')}.` : 'Answer without evidence.'
}

const words = (text: string) => text.match(/[\p{L}\p{N}]+/gu)?.length ?? 0

/** The pieces a streamed answer is sent in: its words (at most 100 pieces, longer texts in even slices). */
function piecesOf(text: string): string[] {
  const byWord = text.match(/\s*\S+/g) ?? []
  if (byWord.length <= 100) return byWord
  const size = Math.ceil(text.length / 100)
  return Array.from({ length: Math.ceil(text.length / size) }, (_, i) => text.slice(i * size, (i + 1) * size))
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** The stand-in's embedding of a text: hashed words, L2-normalized. */
export function standInVector(text: string): number[] {
  const v = new Array<number>(DIM).fill(0)
  const words = text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? ['empty']
  for (const word of words) {
    const h = crypto.createHash('sha256').update(word).digest()
    v[h.readUInt16BE(0) % DIM]! += 1
    v[h.readUInt16BE(2) % DIM]! += 0.5
  }
  const norm = Math.sqrt(v.reduce((s, x) => s + x * x, 0)) || 1
  return v.map((x) => x / norm)
}

function overlap(query: string, doc: string): number {
  const q = new Set(query.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [])
  const d = doc.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []
  return d.filter((w) => q.has(w)).length / (d.length || 1)
}

export async function startStandIn(): Promise<StandIn> {
  const failures: { status: number; headers: Record<string, string> }[] = []
  let outage: { status: number; headers: Record<string, string> } | undefined
  let hangs = 0
  const cuts: number[] = []
  const state: StandIn = {
    url: '',
    requests: [],
    delayMs: 0,
    embeddingFormats: ['float', 'base64'],
    models: ['text-embed-small', 'text-embed-large', 'chat-model', 'bge-reranker-v2', STAND_IN_CHAT_MODEL],
    chatReply: null,
    chunkDelayMs: 0,
    failNext(status, times = 1, headers = {}) {
      for (let i = 0; i < times; i++) failures.push({ status, headers })
    },
    failAll(status, headers = {}) {
      outage = status === null ? undefined : { status, headers }
    },
    hangNext(times = 1) {
      hangs += times
    },
    cutStreamNext(pieces = 1) {
      cuts.push(pieces)
    },
    lastChat() {
      const seen = state.requests.findLast((r) => r.method === 'POST' && r.path.endsWith('/chat/completions'))
      return seen?.body as ChatRequestSeen | undefined
    },
    close: async () => undefined,
  }
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8')
      let body: unknown
      try {
        body = raw ? JSON.parse(raw) : undefined
      } catch {
        body = raw
      }
      const path = (req.url ?? '/').replace(/\?.*$/, '')
      state.requests.push({ method: req.method ?? 'GET', path, headers: req.headers, body })
      const answer = (status: number, json: unknown, headers: Record<string, string> = {}) => {
        const send = () => {
          if (res.destroyed) return
          res.writeHead(status, { 'content-type': 'application/json', ...headers })
          res.end(JSON.stringify(json))
        }
        if (state.delayMs > 0) setTimeout(send, state.delayMs)
        else send()
      }
      if (hangs > 0) {
        hangs--
        return
      }
      const failure = outage ?? failures.shift()
      if (failure)
        return answer(
          failure.status,
          { error: { message: `stand-in failure ${failure.status} with secret echo` } },
          failure.headers,
        )
      const b = body as Record<string, unknown>
      if (req.method === 'GET' && path.endsWith('/models')) {
        return answer(200, { object: 'list', data: state.models.map((id) => ({ id, object: 'model' })) })
      }
      if (req.method === 'POST' && path.endsWith('/embeddings')) {
        const input = (Array.isArray(b.input) ? b.input : [b.input]) as string[]
        const format = (b.encoding_format ?? 'float') as 'float' | 'base64'
        if (!state.embeddingFormats.includes(format))
          return answer(400, { error: { message: `encoding_format ${format} is not supported` } })
        const encode = (v: number[]) =>
          format === 'base64' ? Buffer.from(new Float32Array(v).buffer).toString('base64') : v
        return answer(200, {
          object: 'list',
          data: input.map((text, index) => ({
            object: 'embedding',
            index,
            embedding: encode(standInVector(text)),
          })),
          model: b.model,
          usage: { prompt_tokens: input.length * 3, total_tokens: input.length * 3 },
        })
      }
      if (req.method === 'POST' && path.endsWith(':batchEmbedContents')) {
        const requests = (b.requests ?? []) as { content: { parts: { text: string }[] } }[]
        return answer(200, {
          embeddings: requests.map((r) => ({
            values: standInVector(r.content.parts.map((p) => p.text).join(' ')),
          })),
        })
      }
      if (req.method === 'POST' && path.endsWith('/rerank')) {
        const documents = (b.documents ?? []) as string[]
        return answer(200, {
          results: documents
            .map((d, index) => ({ index, relevance_score: overlap(String(b.query), d) }))
            .sort((x, y) => y.relevance_score - x.relevance_score),
          usage: { total_tokens: documents.length },
        })
      }
      if (req.method === 'POST' && path.endsWith('/chat/completions')) {
        const chat = b as unknown as ChatRequestSeen
        if (!state.models.includes(chat.model)) {
          return answer(404, { error: { message: 'The model does not exist.', code: 'model_not_found' } })
        }
        const messages = Array.isArray(chat.messages) ? chat.messages : []
        const text = state.chatReply ?? standInChatText(messages)
        const promptTokens = messages.reduce((n, m) => n + words(String(m.content)), 0)
        const usage = {
          prompt_tokens: promptTokens,
          completion_tokens: words(text),
          total_tokens: promptTokens + words(text),
        }
        const id = `chatcmpl-${crypto.randomUUID()}`
        if (!chat.stream) {
          return answer(200, {
            id,
            object: 'chat.completion',
            model: chat.model,
            choices: [{ index: 0, message: { role: 'assistant', content: text }, finish_reason: 'stop' }],
            usage,
          })
        }
        const cutAfter = cuts.shift()
        const event = (json: unknown) => `data: ${JSON.stringify(json)}\n\n`
        const chunk = (delta: object, finish: string | null = null) =>
          event({
            id,
            object: 'chat.completion.chunk',
            model: chat.model,
            choices: [{ index: 0, delta, finish_reason: finish }],
          })
        void (async () => {
          if (state.delayMs > 0) await sleep(state.delayMs)
          if (res.destroyed) return
          res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' })
          // Each chunk is flushed before the next, so a cut comes after the pieces already sent.
          const send = (data: string) => new Promise((resolve) => res.write(data, resolve))
          await send(chunk({ role: 'assistant', content: '' }))
          let sent = 0
          for (const piece of piecesOf(text)) {
            if (cutAfter !== undefined && sent >= cutAfter) return void res.destroy()
            if (state.chunkDelayMs > 0) await sleep(state.chunkDelayMs)
            if (res.destroyed) return
            await send(chunk({ content: piece }))
            sent++
          }
          if (cutAfter !== undefined) return void res.destroy()
          res.write(chunk({}, 'stop'))
          if (chat.stream_options?.include_usage) {
            res.write(event({ id, object: 'chat.completion.chunk', model: chat.model, choices: [], usage }))
          }
          res.end('data: [DONE]\n\n')
        })()
        return
      }
      answer(404, { error: 'not found' })
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`
  state.close = async () => {
    server.closeAllConnections()
    await new Promise<void>((resolve) => server.close(() => resolve()))
  }
  return state
}
