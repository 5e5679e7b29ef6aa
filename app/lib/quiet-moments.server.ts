/**
 * Requests in flight in this process, so that background work that must run on the web thread (a write to
 * the embedded database runs its statement on it) can wait for a moment when no request is being answered,
 * instead of stalling the one that arrives while it runs. The web server marks each request
 * (app/server/http.server.ts); a process that serves none (the worker, the command line) is always quiet.
 */
let inFlight = 0
let waiters: (() => void)[] = []

/** Marks a request as begun; call the returned function when its answer is sent or abandoned (twice is once). */
export function markRequest(): () => void {
  inFlight++
  let ended = false
  return () => {
    if (ended) return
    ended = true
    inFlight--
    // After the answer: the callbacks run once its bytes are handed to the socket.
    if (inFlight === 0 && waiters.length) setImmediate(wakeWaiters)
  }
}

/** Whether a request is being answered now. */
export function requestsInFlight(): boolean {
  return inFlight > 0
}

function wakeWaiters(): void {
  if (inFlight > 0) return
  const woken = waiters
  waiters = []
  for (const wake of woken) wake()
}

/**
 * Resolves at the next moment no request is in flight (at once when none is), or after `maxWaitMs` when
 * requests keep overlapping, so the work is late at most that long.
 */
export function whenQuiet(maxWaitMs: number): Promise<void> {
  if (inFlight === 0) return Promise.resolve()
  return new Promise((resolve) => {
    const timer = setTimeout(wake, maxWaitMs).unref()
    function wake() {
      clearTimeout(timer)
      waiters = waiters.filter((w) => w !== wake)
      resolve()
    }
    waiters.push(wake)
  })
}
