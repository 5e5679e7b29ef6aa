import type { ChatAnswer, ChatStart } from './chat-types.ts'

/**
 * The chat page's question with JavaScript: `POST /api/v1/chat` with `Accept: text/event-stream` (the browser's
 * session cookie and origin, like any page script), read as server-sent events: a `meta` event names the
 * conversation before the answer starts, `text` events carry pieces of the answer (`{ text }`), one `answer`
 * event the whole answer with its citations, an `error` event the API's error envelope. A refusal before the stream starts (401, 403, 429, 503…) is the envelope as JSON.
 */

/** Why a question got no answer: the API's error code (or `network` when the answer broke off). */
export interface AskFailure {
  code: string
  status: number
  /** The conversation that keeps the question, when the API says which (the provider failed on a new one). */
  conversationId?: string
}

export class AskError extends Error {
  constructor(readonly failure: AskFailure) {
    super(failure.code)
  }
}

interface Envelope {
  error?: { code?: unknown; details?: { conversationId?: unknown } }
}

function failureOf(body: unknown, status: number, started?: string): AskFailure {
  const error = (body as Envelope | null)?.error
  const code = typeof error?.code === 'string' ? error.code : 'internal_error'
  const named = error?.details?.conversationId
  const conversationId = typeof named === 'string' ? named : started
  return { code, status, ...(conversationId ? { conversationId } : {}) }
}

/** One server-sent event: its name (`message` when it has none) and its data lines joined. */
interface ServerEvent {
  event: string
  data: string
}

/** Splits a text/event-stream body into events as they arrive (the HTML standard's parsing, the parts we use). */
async function* serverEvents(body: ReadableStream<Uint8Array>): AsyncGenerator<ServerEvent> {
  const reader = body.getReader()
  const decoder = new TextDecoder()
  let buffer = ''
  let event = ''
  let data: string[] = []
  for (;;) {
    const { value, done } = await reader.read()
    if (done) return
    buffer += decoder.decode(value, { stream: true })
    let newline = buffer.search(/\r\n|\r|\n/)
    while (newline !== -1) {
      const line = buffer.slice(0, newline)
      buffer = buffer.slice(newline + (buffer.startsWith('\r\n', newline) ? 2 : 1))
      if (line === '') {
        if (data.length) yield { event: event || 'message', data: data.join('\n') }
        event = ''
        data = []
      } else if (!line.startsWith(':')) {
        const colon = line.indexOf(':')
        const field = colon === -1 ? line : line.slice(0, colon)
        const raw = colon === -1 ? '' : line.slice(colon + 1)
        const text = raw.startsWith(' ') ? raw.slice(1) : raw
        if (field === 'event') event = text
        else if (field === 'data') data.push(text)
      }
      newline = buffer.search(/\r\n|\r|\n/)
    }
  }
}

/**
 * Asks `message` (in `conversationId`, or a new conversation) and hands each streamed piece of the answer to
 * `onText`; resolves with the whole answer, or throws an `AskError` naming what failed.
 */
export async function askStreaming(input: {
  message: string
  conversationId?: string
  onText: (text: string) => void
  signal?: AbortSignal
}): Promise<ChatAnswer> {
  let res: Response
  try {
    res = await fetch('/api/v1/chat', {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
      body: JSON.stringify({
        message: input.message,
        ...(input.conversationId ? { conversationId: input.conversationId } : {}),
      }),
      credentials: 'same-origin',
      signal: input.signal,
    })
  } catch {
    throw new AskError({ code: 'network', status: 0 })
  }
  const type = res.headers.get('content-type') ?? ''
  if (!res.ok || !res.body) {
    const body: unknown = await res.json().catch(() => null)
    throw new AskError(failureOf(body, res.status))
  }
  if (type.includes('application/json')) return (await res.json()) as ChatAnswer
  // the conversation the question went into, once the stream has named it
  let started: string | undefined
  const broken = () =>
    new AskError({ code: 'network', status: 0, ...(started ? { conversationId: started } : {}) })
  try {
    for await (const { event, data } of serverEvents(res.body)) {
      if (event === 'meta') started = (JSON.parse(data) as ChatStart).conversationId
      else if (event === 'text') input.onText((JSON.parse(data) as { text: string }).text)
      else if (event === 'answer') return JSON.parse(data) as ChatAnswer
      else if (event === 'error') throw new AskError(failureOf(JSON.parse(data), 502, started))
    }
  } catch (error) {
    if (error instanceof AskError) throw error
    throw broken()
  }
  // the stream ended without its final event: the connection broke off
  throw broken()
}
