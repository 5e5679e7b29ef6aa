import type { z } from 'zod'

/**
 * The one job model (docs/decisions/014-job-model.md): a job is a named unit of work with a zod payload that
 * carries ids only, a deterministic id derived from that payload, and a handler. Transports run it: BullMQ
 * over Redis when REDIS_URL is set (`bullmq.ts`), in this process otherwise (`in-process.ts`); `client.ts`
 * picks one per process. The durable truth of a job's work is its own table (`import_jobs`, and the index
 * queue later), never the transport: a transport can lose a job, the table cannot.
 */

/** What a handler may do besides its work: know its id and attempt, and report progress readers can see. */
export interface JobContext<Progress extends object> {
  id: string
  /** 1 on the first run, then 2, 3 … on retries. */
  attempt: number
  /** Publishes the job's latest progress (a JSON object) (the transport keeps only the latest; readers poll or watch it). */
  progress(state: Progress): Promise<void>
}

export interface JobDefinition<Payload = unknown, Progress extends object = object> {
  /** Kebab-case, unique; also the BullMQ queue name (BullMQ forbids `:` in names and ids). */
  name: string
  schema: z.ZodType<Payload>
  /** The payload's identity: the same key is the same job, so submitting it again collapses into one. */
  key(payload: Payload): string
  handle(payload: Payload, context: JobContext<Progress>): Promise<void>
  /** Runs of one job before it fails for good (1 = no retry). */
  attempts: number
  /** Delay before the first retry; it doubles for each further one. */
  backoffMs: number
  /** Jobs of this name run at once in one process. */
  concurrency: number
  /**
   * Whether the transport keeps a finished job for a while (BullMQ: an hour, failures a week), so a duplicate
   * submitted just after it finished still collapses into it. Off for work whose table says whether it is
   * done (the index stages): a kept id would silently drop the same work submitted again (issue 28).
   */
  keepFinished: boolean
}

/** A job that cannot succeed by being run again (bad input): no retry, whatever `attempts` says. */
export class PermanentJobError extends Error {
  override name = 'PermanentJobError'
}

/** Defines a job; retries default to 3 runs, 1 s apart and doubling, one job at a time per process. */
export function defineJob<Schema extends z.ZodType<object>, Progress extends object = never>(definition: {
  name: string
  schema: Schema
  key(payload: z.output<Schema>): string
  handle(payload: z.output<Schema>, context: JobContext<Progress>): Promise<void>
  attempts?: number
  backoffMs?: number
  concurrency?: number
  keepFinished?: boolean
}): JobDefinition<z.output<Schema>, Progress> {
  if (!/^[a-z][a-z0-9-]*$/.test(definition.name)) throw new Error(`Bad job name "${definition.name}".`)
  return {
    attempts: 3,
    backoffMs: 1000,
    concurrency: 1,
    keepFinished: true,
    ...definition,
    // A schema whose output is the payload type, whatever its input type.
    schema: definition.schema as unknown as z.ZodType<z.output<Schema>>,
  }
}

/** The job's id: its name and its key (`import-apply.3f2c…`), the same for the same work. */
export function jobIdOf<P, S extends object>(definition: JobDefinition<P, S>, payload: P): string {
  const key = definition.key(payload)
  if (key.includes(':')) throw new Error(`A job key may not contain ":" (${definition.name}: ${key}).`)
  return `${definition.name}.${key}`
}

// Definitions are stored and passed around without their payload and progress types.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyJobDefinition = JobDefinition<any, any>

/**
 * A transport runs jobs. Both transports answer the same questions, so callers (import today; the index
 * pipeline, sync and reindex next) never know which one runs.
 */
export interface JobTransport {
  readonly kind: 'bullmq' | 'in-process'
  /** Validates the payload and queues the job; answers its id. A job with that id still queued or running is not queued twice. */
  submit<P, S extends object>(definition: JobDefinition<P, S>, payload: P): Promise<string>
  /** Whether the job is queued, running or waiting to retry. */
  isPending(definition: AnyJobDefinition, id: string): Promise<boolean>
  /** The latest progress of a running job; undefined when it has not reported any or is not running. */
  progress<P, S extends object>(definition: JobDefinition<P, S>, id: string): Promise<S | undefined>
  /** The job's progress states while it is pending, ending when it is not (a finished job yields nothing). */
  watch<P, S extends object>(definition: JobDefinition<P, S>, id: string): AsyncIterable<S>
  /** Resolves once the job is no longer pending (whether it succeeded or failed). */
  waitFor(definition: AnyJobDefinition, id: string): Promise<void>
  /**
   * Runs the definitions' jobs in this process from now on. BullMQ starts a worker per definition; the
   * in-process transport runs every job in the process that submits it, so there is nothing to start.
   */
  consume(definitions: readonly AnyJobDefinition[]): void
  /** Stops taking jobs and lets the running ones finish. */
  close(): Promise<void>
}
