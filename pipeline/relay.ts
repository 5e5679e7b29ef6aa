import { log } from '#app/lib/logger.server.ts'
import { claimedRows, dueRows, returnToQueue } from '#app/services/index-queue/store.server.ts'
import { em } from '#db/orm.ts'
import { indexRowsStartable } from './flow.ts'
import { chainPending, submitFirstStage } from './index-jobs.ts'
import type { JobTransport } from './jobs/job.ts'
import { startLoop, type Loop } from './loop.ts'
import { WORKER_LIVENESS } from '#app/services/index-queue/health.server.ts'

/**
 * The relay: the one thing that turns the queue table into work (decision 027). Every worker runs it, over
 * whichever transport it has. Each pass
 * 1. returns orphaned `processing` rows to `queued` (every `orphanEveryMs`): a row whose worker stopped beating
 *    (killed), a row none of whose stage jobs is pending any more (its job was lost with Redis, or its chain
 *    broke on a dropped database connection) once its claim is `graceMs` old, and any claim older than
 *    `expiredMs` (the last resort);
 * 2. submits due `queued` rows as the first stage's job: removals always, `index` rows only when search can
 *    run and no provider is paused, and a single one to probe a provider whose pause ended
 *    (`indexRowsStartable`). Submitting is idempotent (job ids), so several relays and repeated
 *    passes never start a row twice; the claim in the first stage decides.
 * After a Redis flush or restart the table still holds every row, so nothing is lost.
 */

export const RELAY = {
  /** Pause between passes when nothing was due. */
  idleMs: 1_000,
  /** Rows submitted per pass. */
  batch: 1_000,
  /**
   * A row this relay submitted is not submitted again for this long while it waits its turn (each submission
   * of a pending job is a Redis round trip that only collapses); after it, a row still queued is submitted
   * again, since its job may have been lost (a Redis restart).
   */
  resubmitAfterMs: 15_000,
  orphanEveryMs: 10_000,
  /** A claim younger than this is never judged (its next stage may be on its way). */
  graceMs: 15_000,
  /** The last resort: a claim not refreshed for this long is an orphan whatever else says (spec: 10–15 min). */
  expiredMs: 10 * 60_000,
}

/** Returns the orphaned `processing` rows to `queued`; answers how many went back. */
export async function returnOrphans(transport: JobTransport, holder: string): Promise<number> {
  const rows = await claimedRows(em(), {
    graceMs: RELAY.graceMs,
    expiredMs: RELAY.expiredMs,
    deadMs: WORKER_LIVENESS.deadAfterMs,
  })
  let returned = 0
  for (const row of rows) {
    // BullMQ's jobs are visible from any process; in-process jobs only from the process that holds them.
    const mine = row.locked_by === holder
    const canSeeItsJobs = transport.kind === 'bullmq' || mine
    const orphan =
      row.expired ||
      (row.holder_gone && !mine) ||
      (canSeeItsJobs &&
        !(await chainPending(transport, { rowId: row.id, revision: row.revision, attempt: row.attempts })))
    if (!orphan) continue
    const outcome = await returnToQueue(em(), row)
    if (outcome === 'moved') continue
    returned++
    log().info(
      {
        rowId: row.id,
        outcome,
        why: row.expired ? 'expired' : row.holder_gone && !mine ? 'worker gone' : 'no job pending',
        lockedBy: row.locked_by,
      },
      'orphaned index row returned',
    )
  }
  return returned
}

/** When this process's relay last submitted each row as it was queued (`<row>-<attempt>-<due since>`). */
const submitted = new Map<string, number>()

/** Submits due rows as first-stage jobs (not those it submitted within `resubmitAfterMs`); answers how many were due. */
export async function relayDue(transport: JobTransport): Promise<number> {
  const indexRows = Math.min(RELAY.batch, await indexRowsStartable())
  const rows = [
    ...(await dueRows(em(), RELAY.batch, ['remove'])),
    ...(indexRows > 0 ? await dueRows(em(), indexRows, ['index']) : []),
  ]
  const now = Date.now()
  for (const [key, at] of submitted) if (now - at >= RELAY.resubmitAfterMs) submitted.delete(key)
  await Promise.all(
    rows.map((row) => {
      const payload = { rowId: row.id, revision: row.revision, attempt: row.attempts + 1 }
      const key = `${payload.rowId}-${payload.revision}-${payload.attempt}-${row.due_since}`
      if (submitted.has(key)) return undefined
      submitted.set(key, now)
      return submitFirstStage(transport, payload)
    }),
  )
  return rows.length
}

/** Runs the relay until stopped: orphans first, then due rows; at once when woken. */
export function startRelay(transport: JobTransport, holder: string): Loop {
  let lastOrphans = 0
  return startLoop(async () => {
    try {
      if (Date.now() - lastOrphans >= RELAY.orphanEveryMs) {
        lastOrphans = Date.now()
        await returnOrphans(transport, holder)
      }
      await relayDue(transport)
    } catch (err) {
      log().warn({ err }, 'index relay pass failed; trying again')
    }
    return RELAY.idleMs
  }, RELAY.idleMs)
}
