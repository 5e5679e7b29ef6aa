import { log } from '#app/lib/logger.server.ts'
import {
  PermanentJobError,
  jobIdOf,
  type AnyJobDefinition,
  type JobDefinition,
  type JobTransport,
} from './job.ts'

/**
 * The transport without Redis (the embedded default, or PostgreSQL without REDIS_URL): a job runs in the
 * process that submits it, as soon as one of its definition's `concurrency` slots is free, with the same
 * retries and backoff as BullMQ. Nothing of it is durable, by design: a job's table is its record (an
 * import's `import_jobs` row says how it ended, or that its process died), so there is no second copy to keep
 * in step. Progress lives in memory, which is what lets it be told on the embedded database while a job's one
 * transaction holds the only connection.
 */

interface Entry {
  definition: AnyJobDefinition
  payload: unknown
  attempt: number
  state: unknown
  hasState: boolean
  listeners: Set<() => void>
  done: Promise<void>
  settle: () => void
}

export class InProcessTransport implements JobTransport {
  readonly kind = 'in-process'
  readonly #jobs = new Map<string, Entry>()
  readonly #waiting = new Map<string, string[]>()
  readonly #running = new Map<string, number>()
  readonly #retries = new Map<string, NodeJS.Timeout>()
  #closed = false

  async submit<P, S extends object>(definition: JobDefinition<P, S>, payload: P): Promise<string> {
    if (this.#closed) throw new Error('The job transport is closed.')
    const parsed = definition.schema.parse(payload)
    const id = jobIdOf(definition, parsed)
    if (this.#jobs.has(id)) return id
    let settle!: () => void
    const done = new Promise<void>((resolve) => (settle = resolve))
    this.#jobs.set(id, {
      definition,
      payload: parsed,
      attempt: 0,
      state: undefined,
      hasState: false,
      listeners: new Set(),
      done,
      settle,
    })
    this.#enqueue(id)
    return id
  }

  /** Every job runs in the process that submits it: nothing to start. */
  consume(): void {}

  /** Resolves once no job is pending (tests drain the index queue with it). */
  async drained(): Promise<void> {
    while (this.#jobs.size) await Promise.all([...this.#jobs.values()].map((e) => e.done))
  }

  async isPending(_definition: AnyJobDefinition, id: string): Promise<boolean> {
    return this.#jobs.has(id)
  }

  async progress<P, S extends object>(_definition: JobDefinition<P, S>, id: string): Promise<S | undefined> {
    const entry = this.#jobs.get(id)
    return entry?.hasState ? structuredClone(entry.state as S) : undefined
  }

  /**
   * Each progress state as it comes; states reported while the reader is busy fold into the latest one, and
   * a state equal to the one before is not repeated. Ends when the job is no longer pending.
   */
  async *watch<P, S extends object>(_definition: JobDefinition<P, S>, id: string): AsyncGenerator<S> {
    const entry = this.#jobs.get(id)
    if (!entry) return
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
          if (!entry.hasState) continue
          const state = JSON.stringify(entry.state)
          if (state !== last) yield JSON.parse(state) as S
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

  async waitFor(_definition: AnyJobDefinition, id: string): Promise<void> {
    await this.#jobs.get(id)?.done
  }

  /** Drops the jobs still waiting (for a slot or a retry) and waits for the running ones to finish. */
  async close(): Promise<void> {
    this.#closed = true
    for (const [id, timer] of this.#retries) {
      clearTimeout(timer)
      this.#forget(id)
    }
    for (const ids of this.#waiting.values()) for (const id of ids.splice(0)) this.#forget(id)
    await Promise.all([...this.#jobs.values()].map((e) => e.done))
  }

  #enqueue(id: string): void {
    const name = this.#jobs.get(id)!.definition.name
    const waiting = this.#waiting.get(name) ?? []
    this.#waiting.set(name, waiting)
    waiting.push(id)
    this.#pump(name)
  }

  #pump(name: string): void {
    const waiting = this.#waiting.get(name) ?? []
    while (waiting.length) {
      const id = waiting[0]!
      const entry = this.#jobs.get(id)!
      const running = this.#running.get(name) ?? 0
      if (running >= entry.definition.concurrency) return
      waiting.shift()
      this.#running.set(name, running + 1)
      void this.#run(id, entry).finally(() => {
        this.#running.set(name, (this.#running.get(name) ?? 1) - 1)
        this.#pump(name)
      })
    }
  }

  async #run(id: string, entry: Entry): Promise<void> {
    const { definition } = entry
    entry.attempt++
    const notify = () => {
      for (const listener of entry.listeners) listener()
    }
    try {
      await definition.handle(entry.payload, {
        id,
        attempt: entry.attempt,
        progress: async (state) => {
          entry.state = state
          entry.hasState = true
          notify()
          // The embedded database runs on this thread and its queries settle as promises, so a job made of
          // queries never lets the event loop reach its I/O phase: progress written to a socket would leave
          // only at the end. Each report therefore yields one turn of the loop after telling the watchers.
          await new Promise<void>((resolve) => setImmediate(resolve))
        },
      })
    } catch (err) {
      const retry = !(err instanceof PermanentJobError) && entry.attempt < definition.attempts
      if (retry && !this.#closed) {
        const delay = definition.backoffMs * 2 ** (entry.attempt - 1)
        log().warn({ err, jobId: id, attempt: entry.attempt, delay }, 'job failed; retrying')
        this.#retries.set(
          id,
          setTimeout(() => {
            this.#retries.delete(id)
            this.#enqueue(id)
          }, delay),
        )
        return
      }
      log().error({ err, jobId: id, attempt: entry.attempt }, 'job failed')
    }
    this.#forget(id)
  }

  /** The job is no longer pending: watchers end and waiters resume. */
  #forget(id: string): void {
    const entry = this.#jobs.get(id)
    if (!entry) return
    this.#jobs.delete(id)
    for (const listener of entry.listeners) listener()
    entry.settle()
  }
}
