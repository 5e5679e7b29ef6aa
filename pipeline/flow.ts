import { scrubSecrets } from '#app/lib/log-safety.ts'
import { log } from '#app/lib/logger.server.ts'
import { countIndexRow } from '#app/lib/metrics.server.ts'
import { CALL_LIMITS, ProviderError } from '#app/services/ai/provider.server.ts'
import {
  claimOne,
  clearPause,
  heldRow,
  markFailed,
  pauseProvider,
  providerPauses,
  requeue,
  takeProbe,
  touch,
  type PausedProvider,
  type ProviderPause,
} from '#app/services/index-queue/store.server.ts'
import { notReadyMessage, searchState } from '#app/services/search/settings.server.ts'
import { em } from '#db/orm.ts'
import { chunkStage, removeFromSearch } from './stages/chunk.ts'
import { embedStage } from './stages/embed.ts'
import { rerankCheckStage } from './stages/rerank-check.ts'
import type { HeldRow } from './stages/stage.ts'
import { upsertStage } from './stages/upsert.ts'

/**
 * The index flow, written once (decisions 016 and 027): chunk → embed → upsert → rerank-check. The queue table
 * is the record; the relay (`relay.ts`) submits due rows as the first stage's job, and each stage's job
 * submits the next (`index-jobs.ts`), over BullMQ or in this process alike. Every rule of a row's run is
 * here: the claim, the settings check, the provider pause, retries and failure messages.
 *
 * Retries live in the queue table, not in the transport: a failure puts the row back to `queued` with
 * exponential backoff (`available_at`), up to `RETRY.attempts` claims; then it is `failed` with a short,
 * secret-free message. A provider that answers 429, 5xx or not in time is PAUSED instead (its `Retry-After`,
 * or a doubling backoff up to a minute): the row waits for the pause without spending its attempt, and no
 * row that needs the provider starts meanwhile, for as long as the outage is within `OUTAGE.budgetMs`. When
 * the pause ends, one stage probes the provider; the first success lets every row through again.
 */

export const FLOW = [chunkStage, embedStage, upsertStage, rerankCheckStage] as const

export type StageName = (typeof FLOW)[number]['name']

/** Claims of one row before it fails for good, and the first retry's delay (doubling after). */
export const RETRY = { attempts: 4, backoffMs: 5_000 }

/**
 * A provider's pause: `baseMs` doubling per failure up to `maxMs` when it gives no `Retry-After` (which is
 * honoured up to `retryAfterMaxMs`); an outage longer than `budgetMs` is treated as the rows' own failure
 * again; a pause that ended `forgetAfterMs` ago without a call since starts a new outage when it fails again.
 */
export const OUTAGE = {
  baseMs: 5_000,
  maxMs: 60_000,
  retryAfterMaxMs: 10 * 60_000,
  budgetMs: 60 * 60_000,
  forgetAfterMs: 15 * 60_000,
}

/** A probe holds the provider for as long as one call may take; the other rows look again this often. */
export const PROBE_WINDOW_MS = CALL_LIMITS.timeoutMs + 5_000
const PROBE_WAIT_MS = 1_000

/** How long an index row waits when search cannot run (switched off, no provider, unreadable secrets). */
const NOT_READY_DELAY_MS = 60_000

/** A failure message keeps at most this many characters. */
const MESSAGE_MAX = 500

/** A row's message, at most `MESSAGE_MAX` characters. */
function clip(text: string): string {
  return text.length > MESSAGE_MAX ? `${text.slice(0, MESSAGE_MAX - 1)}…` : text
}

/** The payload of every stage: ids only (the row, the revision it was claimed at, the claim's attempt). */
export interface StagePayload {
  rowId: string
  revision: number
  attempt: number
}

/** The stage after `name`, or undefined after the last. */
function nextStage(name: StageName): StageName | undefined {
  const i = FLOW.findIndex((s) => s.name === name)
  return FLOW[i + 1]?.name
}

/** A failure as a row's message: our provider messages as they are, anything else scrubbed; truncated. */
export function failureMessage(error: unknown): string {
  const text =
    error instanceof ProviderError
      ? error.message
      : `Indexing failed: ${scrubSecrets(error instanceof Error ? error.message : String(error))}`
  return clip(text)
}

/**
 * How many `index` rows the relay may start now (removals always start): none while search cannot run or a
 * provider is paused; one when a pause has ended but no call succeeded since (the probe); else any number.
 * The one place the driver asks; a failure to ask is logged and starts removals only.
 */
export async function indexRowsStartable(): Promise<number> {
  try {
    const state = await searchState()
    if (!state.ready) return 0
    const pauses = await providerPauses(em())
    if (pauses.some((p) => p.remainingMs > 0)) return 0
    return pauses.length ? 1 : Number.POSITIVE_INFINITY
  } catch (err) {
    log().warn({ err }, 'index relay cannot read the search settings; starting removals only')
    return 0
  }
}

/**
 * Takes the row for this claim: the first stage claims it (`queued → processing`, the attempt counted, the
 * holder written); a later stage finds it still held at the payload's attempt and refreshes the claim.
 * Undefined when the work moved on (another claim, a newer revision, a reaper).
 */
async function takeRow(name: StageName, payload: StagePayload, holder: string): Promise<HeldRow | undefined> {
  const row =
    name === FLOW[0].name
      ? await em().transactional((tx) =>
          claimOne(tx, payload.rowId, payload.revision, payload.attempt - 1, holder),
        )
      : await heldRow(em(), payload.rowId, payload.attempt)
  if (!row || row.revision !== payload.revision) return undefined
  if (name !== FLOW[0].name) await touch(em(), row.id, payload.attempt, holder)
  return { ...row, attempt: payload.attempt, holder }
}

/**
 * Runs one stage for one row on worker `holder` and answers the stage to run next (undefined when the row is
 * finished, handed back to the queue, or no longer held by this claim).
 */
export async function runStage(
  name: StageName,
  payload: StagePayload,
  holder: string,
): Promise<StageName | undefined> {
  const held = await takeRow(name, payload, holder)
  if (!held) return undefined
  if (held.action === 'remove') {
    await removeFromSearch(held)
    countIndexRow('removed')
    return undefined
  }
  const state = await searchState()
  if (!state.ready) {
    await requeue(em(), held, held.attempt, NOT_READY_DELAY_MS, notReadyMessage(state.reason), {
      spendAttempt: false,
    })
    countIndexRow('deferred')
    return undefined
  }
  const stage = FLOW.find((s) => s.name === name)!
  const provider = 'provider' in stage ? stage.provider : undefined
  const pause = provider ? (await providerPauses(em())).find((p) => p.provider === provider) : undefined
  if (pause && (pause.remainingMs > 0 || !(await takeProbe(em(), pause.provider, PROBE_WINDOW_MS)))) {
    // Paused, or the pause ended and another stage is probing the provider: wait (briefly, for a probe).
    await waitForPause(held, pause.remainingMs > 0 ? pause : { ...pause, remainingMs: PROBE_WAIT_MS })
    return undefined
  }
  try {
    const outcome = await stage.run(held, state.settings)
    if (pause) await clearPause(em(), pause.provider)
    if (outcome === 'done') countIndexRow('ready')
    return outcome === 'done' ? undefined : nextStage(name)
  } catch (error) {
    await handleFailure(held, name, provider, error)
    return undefined
  }
}

/**
 * The row waits for its provider's pause to end. Within the outage budget the wait costs the row nothing;
 * past it, each wait spends an attempt like any failure, so a provider that never comes back fails its rows
 * (with its reason) instead of holding them forever.
 */
async function waitForPause(held: HeldRow, pause: ProviderPause): Promise<void> {
  const message = clip(`Waiting for the ${pause.provider} provider, paused after: ${pause.reason}`)
  if (pause.outageMs <= OUTAGE.budgetMs) {
    await requeue(em(), held, held.attempt, pause.remainingMs, message, { spendAttempt: false })
    countIndexRow('deferred')
  } else if (held.attempt < RETRY.attempts) {
    await requeue(em(), held, held.attempt, pause.remainingMs, message)
    countIndexRow('retried')
  } else {
    log().warn({ rowId: held.id, provider: pause.provider, reason: pause.reason }, 'index row failed')
    await markFailed(em(), held.id, held.attempt, pause.reason)
    countIndexRow('failed')
  }
}

/** A stage failed: pause its provider (an outage), retry with backoff, or fail the row for good. */
async function handleFailure(
  held: HeldRow,
  stage: StageName,
  provider: PausedProvider | undefined,
  error: unknown,
): Promise<void> {
  const message = failureMessage(error)
  if (provider && error instanceof ProviderError && error.retryable) {
    const retryAfterMs =
      error.retryAfterMs === null ? null : Math.min(error.retryAfterMs, OUTAGE.retryAfterMaxMs)
    const pause = await pauseProvider(em(), provider, retryAfterMs, OUTAGE, message)
    log().warn(
      {
        rowId: held.id,
        stage,
        provider,
        pausedForMs: pause.remainingMs,
        outageMs: pause.outageMs,
        reason: message,
      },
      'index provider paused',
    )
    await waitForPause(held, pause)
    return
  }
  const permanent = error instanceof ProviderError && !error.retryable
  if (!permanent && held.attempt < RETRY.attempts) {
    const delay = RETRY.backoffMs * 2 ** (held.attempt - 1)
    log().warn({ rowId: held.id, stage, attempt: held.attempt, delay, reason: message }, 'index row retried')
    await requeue(em(), held, held.attempt, delay, message)
    countIndexRow('retried')
  } else {
    log().warn({ rowId: held.id, stage, attempt: held.attempt, reason: message }, 'index row failed')
    await markFailed(em(), held.id, held.attempt, message)
    countIndexRow('failed')
  }
}
