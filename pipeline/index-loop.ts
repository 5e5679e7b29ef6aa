import { log } from '#app/lib/logger.server.ts'
import { claimDue, returnStale } from '#app/services/index-queue/store.server.ts'
import { loadSearchSettings } from '#app/services/search/config.server.ts'
import { em } from '#db/orm.ts'
import { canIndex, runRow } from './flow.ts'
import { relayQueued } from './index-jobs.ts'
import type { JobTransport } from './jobs/job.ts'

/**
 * The loops that move the index queue (decision 016). Without Redis, `claimLoop` takes due rows itself
 * (`FOR UPDATE SKIP LOCKED`, a few at a time, each in a short transaction) and runs them through the flow in
 * this process: that is the embedded default of `glossary start`. With Redis, `relayLoop` hands due rows to
 * BullMQ, whose workers run the same stages. Both return stale `processing` rows to `queued` on start and
 * every minute.
 */

/** A claim older than this is taken for dead (spec: 10 to 15 minutes). */
export const STALE_MS = 10 * 60_000

export interface LoopOptions {
  /** Pause when there is nothing to do. */
  idleMs?: number
  /** Rows per claim. */
  batch?: number
}

export interface Loop {
  /** Runs one pass now instead of waiting (tests, and after a reindex). */
  wake(): void
  stop(): Promise<void>
}

async function indexActions(): Promise<('index' | 'remove')[]> {
  try {
    return canIndex(await loadSearchSettings()) ? ['index', 'remove'] : ['remove']
  } catch {
    return ['remove']
  }
}

function loop(name: string, pass: () => Promise<boolean>, idleMs: number): Loop {
  let running = true
  let wake: (() => void) | undefined
  let lastStale = 0
  const done = (async () => {
    while (running) {
      let busy = false
      try {
        if (Date.now() - lastStale > 60_000) {
          lastStale = Date.now()
          const returned = await returnStale(em(), STALE_MS)
          if (returned) log().info({ returned }, 'stale index rows returned to queued')
        }
        busy = await pass()
      } catch (err) {
        log().warn({ err, loop: name }, 'index loop pass failed')
      }
      if (!running) break
      if (!busy) {
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, idleMs)
          timer.unref()
          wake = () => {
            clearTimeout(timer)
            resolve()
          }
        })
        wake = undefined
      } else {
        await new Promise<void>((resolve) => setImmediate(resolve))
      }
    }
  })()
  return {
    wake: () => wake?.(),
    async stop() {
      running = false
      wake?.()
      await done
    },
  }
}

/** The in-process transport of the index flow: claims due rows and runs them here. */
export function claimLoop(options: LoopOptions = {}): Loop {
  const batch = options.batch ?? 4
  return loop(
    'claim',
    async () => {
      const actions = await indexActions()
      const rows = await em().transactional((tx) => claimDue(tx, batch, actions))
      for (const row of rows) await runRow({ rowId: row.id, revision: row.revision, attempt: row.attempts })
      return rows.length > 0
    },
    options.idleMs ?? 1000,
  )
}

/** The BullMQ transport's relay: submits due rows as chunk jobs every `idleMs`. */
export function relayLoop(transport: JobTransport, options: LoopOptions = {}): Loop {
  return loop(
    'relay',
    async () => {
      await relayQueued(transport, await indexActions())
      return false
    },
    options.idleMs ?? 2000,
  )
}
