import { getConfig } from '#app/lib/config.server.ts'
import { rateLimitedError } from '#app/services/rate-limit/rate-limit.server.ts'
import type { Actor } from '#domain/identity.ts'

/**
 * How many exports run at once (docs/decisions/019-sharing.md, "Round two (issue 26): bounded exports"): at
 * most GLOSSARY_EXPORTS_PER_CALLER per caller and GLOSSARY_EXPORTS_PER_PROCESS in all; beyond them the download
 * is refused with 429 `rate_limited`. Every running export takes turns on the embedded database's one
 * connection and on the event loop, so each one adds to the wait of every other request; bounding their number
 * bounds that wait however many downloads are asked for (20 at once with one key held another client's
 * `GET /terms` for 24.8 s).
 *
 * Counted in this process's memory, not in the shared buckets of decision 005: what a slot protects is this
 * process's database connection and event loop (each web process has its own pool), and a slot is given back
 * when its download ends, however it ends, which a row in the database would not be when a process dies. With
 * several web processes each allows its own number.
 */

/** What a refused download is told to wait: about what one export of a few thousand terms takes, plus room. */
export const EXPORT_RETRY_AFTER_SECONDS = 5

const byCaller = new Map<string, number>()
let running = 0

/** Who an export counts against: the API key it came with, or the user of a session. */
export function exportCaller(actor: Actor): string {
  return actor.via === 'key' ? `key:${actor.keyId}` : `user:${actor.user.id}`
}

/** A running export's place; `release` gives it back (a second call does nothing). */
export interface ExportSlot {
  release(): void
}

/** Takes a slot for `caller`, or throws 429 `rate_limited` with Retry-After when the caller or the process is full. */
export function takeExportSlot(caller: string): ExportSlot {
  const { perCaller, perProcess } = getConfig().exportLimits
  const mine = byCaller.get(caller) ?? 0
  if (mine >= perCaller) {
    throw rateLimitedError(
      EXPORT_RETRY_AFTER_SECONDS,
      `At most ${perCaller} exports at a time per caller; try again when one has finished.`,
    )
  }
  if (running >= perProcess) {
    throw rateLimitedError(
      EXPORT_RETRY_AFTER_SECONDS,
      'The server is running as many exports as it allows at a time; try again shortly.',
    )
  }
  byCaller.set(caller, mine + 1)
  running++
  let released = false
  return {
    release() {
      if (released) return
      released = true
      running--
      const left = byCaller.get(caller)! - 1
      if (left > 0) byCaller.set(caller, left)
      else byCaller.delete(caller)
    },
  }
}

/** The exports running in this process now (a benchmark checks that every slot comes back). */
export function exportsRunning(): number {
  return running
}

/**
 * `chunks` holding `slot` until the reader is done with them: the slot is released when they end, when reading
 * them fails, or when the reader stops early (`return`, which a cancelled response stream calls). The reader
 * must do one of these; the endpoint reads the first chunk at once and cancels the body when the client goes.
 * An iterator object rather than a generator: a generator's `finally` would not run if `return` came before
 * the first `next`.
 */
export function holdingSlot<T>(chunks: AsyncIterable<T>, slot: ExportSlot): AsyncIterable<T> {
  return {
    [Symbol.asyncIterator](): AsyncIterator<T> {
      const source = chunks[Symbol.asyncIterator]()
      return {
        async next() {
          try {
            const next = await source.next()
            if (next.done) slot.release()
            return next
          } catch (error) {
            slot.release()
            throw error
          }
        },
        async return(value?: unknown) {
          slot.release()
          return (await source.return?.(value)) ?? { done: true, value: undefined }
        },
      }
    },
  }
}
