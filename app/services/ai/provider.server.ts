import { AppError } from '#app/lib/errors.server.ts'
import { boundedJson, OutboundError, type JsonAnswer } from '#app/lib/outbound.server.ts'
import type { AiFailureClass } from '#domain/rag.ts'
import { RETRYABLE_FAILURES } from '#domain/rag.ts'

/**
 * The one interface every provider kind implements (issue 12): an embedder turns texts into 1536-d vectors,
 * a reranker scores documents against a query, and both list their models. Calls go through `callProvider`,
 * which bounds them (`boundedJson`) and turns every failure into a `ProviderError` with one of the spec's
 * failure classes and a message that never holds the key, a header value or the answer's body.
 */

export interface ProviderTarget {
  baseUrl: string
  model: string
  apiKey: string | null
  /** Custom headers, decrypted. */
  headers: Record<string, string>
}

export interface Usage {
  inputTokens?: number
  outputTokens?: number
  totalTokens?: number
}

export interface Embedder {
  readonly provider: string
  readonly target: ProviderTarget
  /** One vector per text, in order. */
  embed(texts: readonly string[]): Promise<{ vectors: number[][]; usage: Usage }>
}

export interface Reranker {
  readonly provider: string
  readonly target: ProviderTarget
  /** A relevance score per document, in the documents' order. */
  rerank(query: string, documents: readonly string[]): Promise<{ scores: number[]; usage: Usage }>
}

/** One message of a chat-completion call. */
export interface ChatMessage {
  role: 'system' | 'user' | 'assistant'
  content: string
}

export interface ChatOptions {
  temperature?: number
  maxTokens?: number
}

/** The answer of a chat-completion call: its whole text and the tokens the provider reported. */
export interface ChatCompletion {
  text: string
  usage: Usage
}

/**
 * A chat-completion model (task `llm`, issue 29). `complete` waits for the whole answer; `stream` asks the
 * provider to stream and hands each piece of text to `onText` as it arrives, then resolves like `complete`.
 */
export interface ChatCompleter {
  readonly provider: string
  readonly target: ProviderTarget
  complete(messages: readonly ChatMessage[], options?: ChatOptions): Promise<ChatCompletion>
  stream(
    messages: readonly ChatMessage[],
    options: ChatOptions,
    onText: (text: string) => void,
  ): Promise<ChatCompletion>
}

export interface ModelInfo {
  id: string
  label: string
}

/** A provider call that did not give a usable answer. */
export class ProviderError extends Error {
  constructor(
    readonly failureClass: AiFailureClass,
    message: string,
    readonly httpStatus: number | null = null,
    /** How long the provider asked callers to wait (`Retry-After`), when it said. */
    readonly retryAfterMs: number | null = null,
  ) {
    super(message)
    this.name = 'ProviderError'
  }

  get retryable(): boolean {
    return RETRYABLE_FAILURES.includes(this.failureClass)
  }
}

/**
 * A provider failure as the API's 502 `rag_provider_error` (anything else is rethrown as it is): the message
 * names the failure class, and `details.failureClass` carries it for the settings and search pages, which
 * show it in the reader's language.
 */
export function throwProviderFailure(error: unknown, what: string): never {
  if (error instanceof ProviderError) {
    throw new AppError('rag_provider_error', `${what} (${error.failureClass}): ${error.message}`, {
      details: { failureClass: error.failureClass },
    })
  }
  throw error
}

/** Limits of one provider call. Embedding a batch of 64 chunks of 8000 characters answers ~64 × 1536 floats. */
export const CALL_LIMITS = { timeoutMs: 30_000, maxBytes: 16 * 1024 * 1024 }

/** Test hook: shorter time limits for the stand-in's slow mode. */
export function setCallTimeout(ms: number): void {
  CALL_LIMITS.timeoutMs = ms
}

/** The failure class of an HTTP status that is not a success. */
export function classOfStatus(status: number): AiFailureClass {
  if (status === 401 || status === 403) return 'authentication'
  if (status === 404) return 'model_not_found'
  if (status === 429) return 'rate_limited'
  return 'provider_unavailable'
}

/** A JSON call to a provider; resolves with the parsed answer of a 2xx, or throws a `ProviderError`. */
export async function callProvider(
  what: string,
  url: string,
  request: { method: 'GET' | 'POST'; headers: Record<string, string>; body?: unknown },
): Promise<unknown> {
  let response: JsonAnswer
  try {
    response = await boundedJson(url, { ...request, ...CALL_LIMITS })
  } catch (error) {
    if (error instanceof OutboundError) {
      if (error.kind === 'timeout')
        throw new ProviderError('timeout', `${what}: the provider did not answer in time.`)
      throw new ProviderError('provider_unavailable', `${what}: ${error.message}`)
    }
    throw error
  }
  if (response.status < 200 || response.status >= 300) {
    const failureClass = classOfStatus(response.status)
    throw new ProviderError(
      failureClass,
      `${what}: ${failureClass} (HTTP ${response.status}).`,
      response.status,
      response.retryAfter === undefined ? null : response.retryAfter * 1000,
    )
  }
  if (response.json === undefined) {
    throw new ProviderError(
      'provider_unavailable',
      `${what}: the provider's answer is not JSON.`,
      response.status,
    )
  }
  return response.json
}

/** A malformed answer: the provider is not what the settings say it is. */
export function badAnswer(what: string, detail: string): ProviderError {
  return new ProviderError('provider_unavailable', `${what}: unexpected answer (${detail}).`)
}

/** Every header of a call: the custom ones, then the key (a custom header cannot replace the key's header). */
export function withKey(target: ProviderTarget, keyHeader: Record<string, string>): Record<string, string> {
  return { ...target.headers, ...(target.apiKey ? keyHeader : {}) }
}

export function checkVectors(
  what: string,
  vectors: unknown[],
  count: number,
  dimensions: number,
): number[][] {
  if (vectors.length !== count) throw badAnswer(what, `${vectors.length} vectors for ${count} texts`)
  for (const v of vectors) {
    if (
      !Array.isArray(v) ||
      v.length !== dimensions ||
      !v.every((x) => typeof x === 'number' && Number.isFinite(x))
    ) {
      throw badAnswer(what, `a vector is not ${dimensions} numbers`)
    }
  }
  return vectors as number[][]
}

/** Models whose id contains `embed` (embedding) or `reranker` (reranker), as the spec asks. */
export function filterModels(models: ModelInfo[], endpoint: 'embedding' | 'reranker'): ModelInfo[] {
  const needle = endpoint === 'embedding' ? 'embed' : 'reranker'
  return models.filter((m) => m.id.toLowerCase().includes(needle)).sort((a, b) => a.id.localeCompare(b.id))
}

/** `{ data: [{ id }] }` (alpha-compatible) or `{ models: [{ name, displayName }] }` (beta). */
export function parseModelList(json: unknown): ModelInfo[] {
  const out: ModelInfo[] = []
  const root = json as { data?: unknown; models?: unknown }
  const items = Array.isArray(root?.data) ? root.data : Array.isArray(root?.models) ? root.models : undefined
  if (!items) throw badAnswer('models', 'no model list')
  for (const item of items.slice(0, 5000) as Record<string, unknown>[]) {
    const raw =
      typeof item?.id === 'string' ? item.id : typeof item?.name === 'string' ? item.name : undefined
    if (!raw) continue
    const id = raw.replace(/^models\//, '').slice(0, 200)
    const label = typeof item.displayName === 'string' ? item.displayName.slice(0, 200) : id
    out.push({ id, label })
  }
  return out
}
