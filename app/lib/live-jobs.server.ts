/**
 * Long jobs running in this process (imports now; reindex and sync apply later) and their live progress.
 *
 * A job's database row holds its final state; while it runs, its counters live here so progress can be told
 * without a database round trip. That matters on the embedded database: it has one connection, and a job that
 * is one transaction (an import) holds it until it commits, so a poll that needs the database waits until the
 * end. Progress is therefore also streamed in the response of the request that started the job
 * (`ndjsonResponse(jobs.watch(...))`), which was authenticated before the job began.
 */

interface Entry<T> {
  job: T
  listeners: Set<() => void>
}

export class LiveJobs<T extends { id: string }> {
  readonly #jobs = new Map<string, Entry<T>>()

  /**
   * Runs `work` as the live job `job` (which `work` mutates as it advances, awaiting `changed()` after each
   * step). The job is forgotten when `work` settles; by then its row must hold the final state. Answers what
   * `work` answers.
   */
  run<R>(job: T, work: (changed: () => Promise<void>) => Promise<R>): Promise<R> {
    const entry: Entry<T> = { job, listeners: new Set() }
    const notify = () => {
      for (const listener of entry.listeners) listener()
    }
    // The embedded database runs on this thread and its queries settle as promises, so a job made of queries
    // never lets the event loop reach its I/O phase: progress written to a socket would leave only at the
    // end. Each step therefore yields one turn of the loop after telling the watchers.
    const changed = async () => {
      notify()
      await new Promise<void>((resolve) => setImmediate(resolve))
    }
    this.#jobs.set(job.id, entry)
    return work(changed).finally(() => {
      this.#jobs.delete(job.id)
      notify()
    })
  }

  /** A copy of a running job's state, or undefined once it has finished (read its row then). */
  snapshot(id: string): T | undefined {
    const entry = this.#jobs.get(id)
    return entry ? { ...entry.job } : undefined
  }

  /**
   * The job's states as it advances: its current state, then one after each change (changes that happen
   * while the reader is busy are folded into the next one), and last `final()`, read once it has finished.
   */
  async *watch(id: string, final: () => Promise<T>): AsyncGenerator<T> {
    const entry = this.#jobs.get(id)
    if (entry) {
      let dirty = true
      let wake: (() => void) | undefined
      const listener = () => {
        dirty = true
        wake?.()
      }
      entry.listeners.add(listener)
      let last = ''
      try {
        while (this.#jobs.get(id) === entry) {
          if (dirty) {
            dirty = false
            const state = JSON.stringify(entry.job)
            // A change that changed nothing visible is not worth a line.
            if (state !== last) yield { ...entry.job }
            last = state
            continue
          }
          await new Promise<void>((resolve) => (wake = resolve))
          wake = undefined
        }
      } finally {
        entry.listeners.delete(listener)
      }
    }
    yield await final()
  }
}
