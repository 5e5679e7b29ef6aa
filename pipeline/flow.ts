import { scrubSecrets } from '#app/lib/log-safety.ts'
import { log } from '#app/lib/logger.server.ts'
import { UndecryptableSecretError } from '#app/lib/secrets.server.ts'
import { ProviderError } from '#app/services/ai/provider.server.ts'
import { heldRow, markFailed, requeue, touch } from '#app/services/index-queue/store.server.ts'
import { loadSearchSettings, type SearchSettings } from '#app/services/search/config.server.ts'
import { em } from '#db/orm.ts'
import { chunkStage } from './stages/chunk.ts'
import { embedStage } from './stages/embed.ts'
import { rerankCheckStage } from './stages/rerank-check.ts'
import type { HeldRow, Stage, StageName } from './stages/stage.ts'
import { upsertStage } from './stages/upsert.ts'

/**
 * The index flow, written once (decision 016): chunk → embed → upsert → rerank-check. Both transports call
 * `runStage` — BullMQ as one job per stage (`index-jobs.ts`), the in-process loop one stage after another
 * (`index-loop.ts`) — so retries, failure messages and the settings check are the same everywhere.
 *
 * Retries live in the queue table, not in the transport: a retryable failure (429, 5xx, timeout, or an
 * unexpected error) puts the row back to `queued` with exponential backoff (`available_at`), and the row is
 * claimed again like any queued row, up to `RETRY.attempts` claims; then it is `failed` with a short,
 * secret-free message. A process that dies mid-row leaves it `processing`; it returns to `queued` when stale.
 */

export const FLOW: readonly Stage[] = [chunkStage, embedStage, upsertStage, rerankCheckStage]

/** Claims of one row before it fails for good, and the first retry's delay (doubling after). */
export const RETRY = { attempts: 4, backoffMs: 5_000 }

/** How long a row waits when search has no usable provider (switched off, or unreadable secrets). */
const NOT_READY_DELAY_MS = 60_000

/** A failure message keeps at most this many characters. */
export const MESSAGE_MAX = 500

/** The payload of every stage: ids only (the row, the revision it was claimed at, the claim's attempt). */
export interface StagePayload {
  rowId: string
  revision: number
  attempt: number
}

/** The stage after `name`, or undefined after the last. */
export function nextStage(name: StageName): StageName | undefined {
  const i = FLOW.findIndex((s) => s.name === name)
  return FLOW[i + 1]?.name
}

/** Whether index rows can run: search on, with an embedding provider. Removals never need one. */
export function canIndex(settings: SearchSettings): boolean {
  return settings.enabled && Boolean(settings.embedding.baseUrl && settings.embedding.model)
}

/** A failure as a row's message: our provider messages as they are, anything else scrubbed; truncated. */
export function failureMessage(error: unknown): string {
  const text =
    error instanceof ProviderError
      ? error.message
      : `Indexing failed: ${scrubSecrets(error instanceof Error ? error.message : String(error))}`
  return text.length > MESSAGE_MAX ? `${text.slice(0, MESSAGE_MAX - 1)}…` : text
}

/**
 * Runs one stage for one row and answers the stage to run next (undefined when the row is finished, handed
 * back to the queue, or no longer held by this claim).
 */
export async function runStage(name: StageName, payload: StagePayload): Promise<StageName | undefined> {
  const row = await heldRow(em(), payload.rowId, payload.attempt)
  if (!row || row.revision !== payload.revision) return undefined
  const held: HeldRow = { ...row, attempt: payload.attempt }
  let settings: SearchSettings
  try {
    settings = await loadSearchSettings()
  } catch (error) {
    if (!(error instanceof UndecryptableSecretError)) throw error
    if (held.action === 'index') {
      await requeue(em(), held, held.attempt, NOT_READY_DELAY_MS, failureMessage(error))
      return undefined
    }
    settings = { enabled: false } as SearchSettings
  }
  if (held.action === 'index' && !canIndex(settings)) {
    await requeue(em(), held, held.attempt, NOT_READY_DELAY_MS, null)
    return undefined
  }
  const stage = FLOW.find((s) => s.name === name)!
  try {
    const outcome = await stage.run(held, settings)
    if (outcome === 'done') return undefined
    await touch(em(), held.id)
    return nextStage(name)
  } catch (error) {
    const message = failureMessage(error)
    const permanent = error instanceof ProviderError && !error.retryable
    if (!permanent && held.attempt < RETRY.attempts) {
      const delay = RETRY.backoffMs * 2 ** (held.attempt - 1)
      log().warn(
        { rowId: held.id, stage: name, attempt: held.attempt, delay, reason: message },
        'index row retried',
      )
      await requeue(em(), held, held.attempt, delay, message)
    } else {
      log().warn({ rowId: held.id, stage: name, attempt: held.attempt, reason: message }, 'index row failed')
      await markFailed(em(), held.id, held.attempt, message)
    }
    return undefined
  }
}

/** Runs a claimed row through every remaining stage in this process (the in-process transport). */
export async function runRow(payload: StagePayload, from: StageName = 'chunk'): Promise<void> {
  let stage: StageName | undefined = from
  while (stage) {
    stage = await runStage(stage, payload)
    // The embedded database has one connection: between stages, let waiting web requests have it.
    await new Promise<void>((resolve) => setImmediate(resolve))
  }
}
