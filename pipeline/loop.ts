/**
 * A background loop of the worker (the relay, the reindex runner): runs `pass` until stopped, then waits the
 * milliseconds it answered before the next pass, unless woken. Passes catch and log their own failures; one
 * that throws all the same is run again after `onErrorMs`.
 */
export interface Loop {
  /** Runs the next pass now instead of after the wait. */
  wake(): void
  /** Stops after the pass under way. */
  stop(): Promise<void>
}

export function startLoop(pass: () => Promise<number>, onErrorMs: number): Loop {
  let running = true
  let wake: (() => void) | undefined
  const done = (async () => {
    while (running) {
      let waitMs = onErrorMs
      try {
        waitMs = await pass()
      } catch {
        // the pass logs why
      }
      if (!running) break
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, waitMs)
        timer.unref()
        wake = () => {
          clearTimeout(timer)
          resolve()
        }
      })
      wake = undefined
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
