import { log } from '#app/lib/logger.server.ts'
import { whenQuiet } from '#app/lib/quiet-moments.server.ts'
import { em, observesCommittedChanges, onCommittedChange } from '#db/orm.ts'
import { recordKeyUses, type ActiveKeyRow } from './store.server.ts'

/**
 * What the API-key check keeps between requests, so a call with a key costs no SQL on the embedded database
 * (docs/decisions/004-identity.md, "The key check on the hot path"):
 *
 * - Verified keys by prefix, only while committed changes are observed (`observesCommittedChanges`: the
 *   embedded database, whose only writer is this process). A trigger notifies `credentials_changed` when a key
 *   or a user changes, and the whole cache is dropped at that commit, so a revoked key, a changed role or a
 *   deleted user counts from the very next request. Expiry is checked against the clock on every use. Only
 *   keys that were found are kept; an unknown prefix always asks the database.
 * - Uses: `last_used_at` is written at most once every ten seconds, with the time of the latest use, at the
 *   next moment no request is in flight (quiet-moments.server.ts; at most a second later). Readers of the
 *   column flush first (`flushKeyUses`), so in this process they see every use; the shutdown flushes too. On
 *   the embedded database the write runs on the web thread: once a second it put 2–4 ms stalls into the
 *   lookup benchmark's tail, and every ten seconds, started by its timer alone, it still stalled the request
 *   that arrived during it for 1.7–6.6 ms. Another process on PostgreSQL sees a use at most eleven seconds
 *   late.
 */

/** A verified key as the auth gate needs it; `secretHash` is still compared on every use. */
export type CachedKey = ActiveKeyRow

/** Bounded so a flood of valid keys cannot grow memory; past it the cache starts over. */
const MAX_CACHED_KEYS = 10_000
const USE_FLUSH_MS = 10_000
/** How long a due write waits for a moment without requests before it runs anyway. */
const QUIET_WAIT_MS = 1_000

const verified = new Map<string, CachedKey>()
onCommittedChange('credentials_changed', () => verified.clear())

/** The cached key of `prefix` when it is still usable now; undefined when the database must be asked. */
export function cachedKey(prefix: string, now = Date.now()): CachedKey | undefined {
  const key = verified.get(prefix)
  if (key && key.expiresAt !== null && key.expiresAt <= now) {
    verified.delete(prefix)
    return undefined
  }
  return key
}

/** Keeps a key the database just returned, when changes to it would be observed. */
export function rememberKey(prefix: string, key: CachedKey): void {
  if (!observesCommittedChanges()) return
  if (verified.size >= MAX_CACHED_KEYS) verified.clear()
  verified.set(prefix, key)
}

const pendingUses = new Map<string, Date>()
let flushTimer: NodeJS.Timeout | undefined
let flushing: Promise<void> = Promise.resolve()

/** Records a use of a key; the write follows within `USE_FLUSH_MS` (+ `QUIET_WAIT_MS`), off requests' paths. */
export function noteKeyUse(keyId: string, at = new Date()): void {
  pendingUses.set(keyId, at)
  flushTimer ??= setTimeout(() => {
    whenQuiet(QUIET_WAIT_MS)
      .then(flushKeyUses)
      .catch((err: unknown) => log().warn({ err }, 'could not record API key uses'))
  }, USE_FLUSH_MS).unref()
}

/**
 * Writes the pending uses: one statement for all keys, never moving `last_used_at` backwards. Flushes run one
 * after another; a failed one keeps its uses for the next.
 */
export function flushKeyUses(): Promise<void> {
  clearTimeout(flushTimer)
  flushTimer = undefined
  const previous = flushing
  const run = (async () => {
    await previous.catch(() => undefined)
    if (pendingUses.size === 0) return
    const uses = [...pendingUses]
    pendingUses.clear()
    try {
      await recordKeyUses(em(), uses)
    } catch (error) {
      for (const [id, at] of uses) if (!pendingUses.has(id)) pendingUses.set(id, at)
      throw error
    }
  })()
  flushing = run
  return run
}
