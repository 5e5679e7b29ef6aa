import crypto from 'node:crypto'
import { deferWrite } from '#app/lib/deferred-writes.server.ts'
import { log } from '#app/lib/logger.server.ts'
import { countChunksEmbedded, observeAiCall } from '#app/lib/metrics.server.ts'
import { em } from '#db/orm.ts'
import type { AiPurpose, AiTask } from '#domain/rag.ts'
import {
  ProviderError,
  type ChatCompleter,
  type Embedder,
  type Reranker,
  type Usage,
} from './provider.server.ts'
import { finishRun, insertFinishedRun, insertRun, type AiRunEnd, type AiRunStart } from './store.server.ts'

/**
 * The one recorder every provider call goes through (issue 12): it writes an `ai_runs` row per call (task,
 * provider, model, latency, tokens where reported, outcome, failure class, trace id) and nothing the call
 * carried. The chatbot will pass one trace id for all calls of one chat request.
 */

export interface RunContext {
  purpose: AiPurpose
  /** Shared by every call of one piece of work (a search, an index row, a chat request). */
  traceId?: string
}

/** A fresh trace id. */
export function newTraceId(): string {
  return crypto.randomUUID()
}

/**
 * When a call still under way gets its `running` row. Most calls (a query's embedding, a batch of chunks) end
 * well before this, and are then written once, finished: one insert instead of an insert and an update, each
 * with the rollup triggers (issue 28: the two writes were a third of `POST /rag/search`'s statements). A call
 * that lasts longer (a chat answer, a provider that hangs) shows on the dashboard as running from here on, and a
 * process that dies during it leaves that row, judged interrupted. An object so a test can change it.
 */
export const RUNNING_ROW = { afterMs: 1000 }

/** Runs one provider call and records it; the call's own error is rethrown unchanged. */
export async function recordCall<T extends object>(
  meta: { task: AiTask; provider: string; model: string; items: number } & RunContext,
  call: () => Promise<T>,
): Promise<T> {
  const run: AiRunStart = {
    id: crypto.randomUUID(),
    traceId: meta.traceId ?? newTraceId(),
    task: meta.task,
    purpose: meta.purpose,
    provider: meta.provider,
    model: meta.model,
    items: meta.items,
  }
  // A record that cannot be written never stops the call it describes.
  const safely = (what: string, write: () => Promise<void>) =>
    write().catch((err: unknown) => log().warn({ err, aiRunId: run.id }, `ai run record: ${what} failed`))
  let running: Promise<void> | undefined
  const slow = setTimeout(() => {
    running = safely('start', () => insertRun(em(), run))
  }, RUNNING_ROW.afterMs)
  const started = performance.now()
  // The record is bookkeeping: inside an API call the caller goes on (a search runs its query beside the
  // write) and the answer waits for it (deferred-writes.server.ts).
  const record = (end: AiRunEnd) => {
    clearTimeout(slow)
    const write = running
      ? running.then(() => safely('finish', () => finishRun(em(), run.id, end)))
      : safely('record', () => insertFinishedRun(em(), run, end))
    return deferWrite(write)
  }
  try {
    const result = await call()
    observeAiCall(meta.task, 'succeeded', (performance.now() - started) / 1e3)
    // Every text embedded for indexing passes here, the pipeline's stage and the full reindex runner's alike.
    if (meta.task === 'embedding' && meta.purpose === 'index') countChunksEmbedded(meta.items)
    await record({
      status: 'succeeded',
      failureClass: null,
      httpStatus: null,
      latencyMs: Math.round(performance.now() - started),
      ...(result as { usage?: Usage }).usage,
    })
    return result
  } catch (error) {
    const failure = error instanceof ProviderError ? error : null
    observeAiCall(
      meta.task,
      failure?.failureClass ?? 'provider_unavailable',
      (performance.now() - started) / 1e3,
    )
    await record({
      status: 'failed',
      failureClass: failure?.failureClass ?? 'provider_unavailable',
      httpStatus: failure?.httpStatus ?? null,
      latencyMs: Math.round(performance.now() - started),
    })
    throw error
  }
}

/** The embedder with every call recorded. */
export function recordedEmbedder(embedder: Embedder, context: RunContext): Embedder {
  return {
    provider: embedder.provider,
    target: embedder.target,
    embed: (texts) =>
      recordCall(
        {
          task: 'embedding',
          provider: embedder.provider,
          model: embedder.target.model,
          items: texts.length,
          ...context,
        },
        () => embedder.embed(texts),
      ),
  }
}

/** The reranker with every call recorded. */
export function recordedReranker(reranker: Reranker, context: RunContext): Reranker {
  return {
    provider: reranker.provider,
    target: reranker.target,
    rerank: (query, documents) =>
      recordCall(
        {
          task: 'reranker',
          provider: reranker.provider,
          model: reranker.target.model,
          items: documents.length,
          ...context,
        },
        () => reranker.rerank(query, documents),
      ),
  }
}

/**
 * The chat model with every call recorded (task `llm`): one row per `complete` or `stream`, with the number
 * of messages as its items and the tokens the provider reported; the prompt and the answer stay out of it.
 * A stream is one call: its row finishes when the last piece has arrived (or the stream failed).
 */
export function recordedChat(chat: ChatCompleter, context: RunContext): ChatCompleter {
  const meta = (messages: readonly unknown[]) => ({
    task: 'llm' as const,
    provider: chat.provider,
    model: chat.target.model,
    items: messages.length,
    ...context,
  })
  return {
    provider: chat.provider,
    target: chat.target,
    complete: (messages, options) => recordCall(meta(messages), () => chat.complete(messages, options)),
    stream: (messages, options, onText) =>
      recordCall(meta(messages), () => chat.stream(messages, options, onText)),
  }
}
