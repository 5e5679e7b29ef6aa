import { Queue, UnrecoverableError, Worker, type Job, type JobState } from 'bullmq'
import type { Redis } from 'ioredis'
import { log } from '#app/lib/logger.server.ts'
import {
  PermanentJobError,
  jobIdOf,
  type AnyJobDefinition,
  type JobDefinition,
  type JobTransport,
} from './job.ts'

/**
 * The transport with REDIS_URL: one BullMQ queue per job name; `consume` starts a BullMQ worker for each
 * definition in this process (`glossary worker`, any number of them, or `glossary start`). The worker re-parses
 * every payload with its schema before the handler sees it (a bad one is never retried), and progress goes
 * through `job.updateProgress`, so any process can read it from Redis.
 */

/** Pending states: the job will still run (or is running). Completed and failed jobs are not pending. */
const PENDING: readonly (JobState | 'unknown')[] = [
  'waiting',
  'active',
  'delayed',
  'prioritized',
  'waiting-children',
]

/** How often a reader asks Redis about a job it watches or waits for. */
const POLL_MS = 250

/**
 * Finished jobs are kept for a while so that a duplicate submitted just after one finished still collapses
 * into it (BullMQ refuses an id it still holds), and so that operators can look at recent failures.
 */
const KEEP_COMPLETED = { age: 3600, count: 10_000 }
const KEEP_FAILED = { age: 7 * 24 * 3600 }

export class BullmqTransport implements JobTransport {
  readonly kind = 'bullmq'
  readonly #connection: Redis
  readonly #prefix: string
  readonly #queues = new Map<string, Queue>()
  readonly #workers: Worker[] = []

  /** `prefix` namespaces every Redis key of the queues (tests use one per run so runs never collide). */
  constructor(connection: Redis, options: { prefix: string }) {
    this.#connection = connection
    this.#prefix = options.prefix
  }

  async submit<P, S extends object>(definition: JobDefinition<P, S>, payload: P): Promise<string> {
    const parsed = definition.schema.parse(payload)
    const id = jobIdOf(definition, parsed)
    await this.#queue(definition).add(definition.name, parsed, {
      jobId: id,
      attempts: definition.attempts,
      backoff: { type: 'exponential', delay: definition.backoffMs },
      removeOnComplete: definition.keepFinished ? KEEP_COMPLETED : true,
      removeOnFail: definition.keepFinished ? KEEP_FAILED : true,
    })
    return id
  }

  /** Runs the definitions' jobs in this process until `close()`. Each name may be consumed once. */
  consume(definitions: readonly AnyJobDefinition[]): void {
    for (const definition of definitions) {
      if (this.#workers.some((w) => w.name === definition.name)) {
        throw new Error(`Job "${definition.name}" is consumed twice.`)
      }
      const worker = new Worker(definition.name, (job: Job) => this.#process(definition, job), {
        connection: this.#connection,
        prefix: this.#prefix,
        concurrency: definition.concurrency,
      })
      worker.on('error', (err) => log().warn({ err, job: definition.name }, 'job worker error'))
      worker.on('failed', (job, err) =>
        log().error({ err, jobId: job?.id, attempt: job?.attemptsMade }, 'job failed'),
      )
      this.#workers.push(worker)
    }
  }

  async isPending(definition: AnyJobDefinition, id: string): Promise<boolean> {
    return (await this.#pendingJob(definition, id)) !== undefined
  }

  async progress<P, S extends object>(definition: JobDefinition<P, S>, id: string): Promise<S | undefined> {
    const job = await this.#pendingJob(definition, id)
    // A job that reported nothing has BullMQ's default progress, the number 0; progress states are objects.
    return job && typeof job.progress === 'object' && job.progress !== null ? (job.progress as S) : undefined
  }

  async *watch<P, S extends object>(definition: JobDefinition<P, S>, id: string): AsyncGenerator<S> {
    let last = ''
    for (;;) {
      const job = await this.#pendingJob(definition, id)
      if (!job) return
      const state =
        typeof job.progress === 'object' && job.progress !== null ? JSON.stringify(job.progress) : ''
      if (state && state !== last) yield JSON.parse(state) as S
      last = state
      await new Promise((resolve) => setTimeout(resolve, POLL_MS))
    }
  }

  async waitFor(definition: AnyJobDefinition, id: string): Promise<void> {
    while (await this.isPending(definition, id)) await new Promise((resolve) => setTimeout(resolve, POLL_MS))
  }

  /** Lets running jobs finish, then closes the workers and queues (the connection belongs to its owner). */
  async close(): Promise<void> {
    await Promise.all(this.#workers.splice(0).map((w) => w.close()))
    await Promise.all([...this.#queues.values()].map((q) => q.close()))
    this.#queues.clear()
  }

  #queue(definition: AnyJobDefinition): Queue {
    let queue = this.#queues.get(definition.name)
    if (!queue) {
      queue = new Queue(definition.name, { connection: this.#connection, prefix: this.#prefix })
      this.#queues.set(definition.name, queue)
    }
    return queue
  }

  async #pendingJob(definition: AnyJobDefinition, id: string): Promise<Job | undefined> {
    const job = await this.#queue(definition).getJob(id)
    return job && PENDING.includes(await job.getState()) ? job : undefined
  }

  /** One run of one job: the payload re-parsed, then the handler (documenso `jobs/client/bullmq.ts` `processJob`). */
  async #process(definition: AnyJobDefinition, job: Job): Promise<void> {
    const parsed = definition.schema.safeParse(job.data)
    if (!parsed.success) {
      throw new UnrecoverableError(`Bad payload for job "${definition.name}": ${parsed.error.message}`)
    }
    try {
      await definition.handle(parsed.data, {
        id: job.id!,
        attempt: job.attemptsMade + 1,
        progress: (state: object) => job.updateProgress(state),
      })
    } catch (err) {
      if (err instanceof PermanentJobError) throw new UnrecoverableError(err.message)
      throw err
    }
  }
}
