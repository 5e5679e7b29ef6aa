import { AsyncLocalStorage } from 'node:async_hooks'

/**
 * Bookkeeping writes that need not hold up the work they describe, but must be done before its answer leaves
 * (issue 28: on PostgreSQL `POST /rag/search` waited for the AI run record's write between embedding the query
 * and searching with it).
 *
 * `withDeferredWrites` runs a piece of work (an API call's handler) in a scope; `deferWrite` inside it starts a
 * write and lets the caller go on at once; the scope's end waits for every write started in it, so a caller
 * that reads right after the answer still finds the row. On PostgreSQL the write runs on another pooled
 * connection beside the work's next statements; on the embedded engine (one connection) it runs between them.
 * Outside a scope, or once the scope has ended (a streamed answer still under way), `deferWrite` simply waits
 * for the write, as a caller without this module would.
 */

interface Scope {
  pending: Promise<void>[]
  closed: boolean
}

const storage = new AsyncLocalStorage<Scope>()

/** Runs `work`; then waits for every write it deferred (whether `work` succeeded or threw). */
export async function withDeferredWrites<T>(work: () => Promise<T>): Promise<T> {
  const scope: Scope = { pending: [], closed: false }
  try {
    return await storage.run(scope, work)
  } finally {
    // A deferred write may defer another: wait until none is left.
    while (scope.pending.length) await Promise.allSettled(scope.pending.splice(0))
    scope.closed = true
  }
}

/**
 * Hands `write` (which must not reject: it logs its own failure) to the current scope and returns at once, or
 * waits for it where there is no open scope.
 */
export async function deferWrite(write: Promise<void>): Promise<void> {
  const scope = storage.getStore()
  if (!scope || scope.closed) return write
  scope.pending.push(write)
}
