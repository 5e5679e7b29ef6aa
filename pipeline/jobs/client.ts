import { isRedisTransport, redis } from '../transport.ts'
import { BullmqTransport } from './bullmq.ts'
import { InProcessTransport } from './in-process.ts'
import type { JobTransport } from './job.ts'

/**
 * This process's job transport (docs/decisions/014-job-model.md): BullMQ over the shared Redis connection when
 * REDIS_URL is set, in-process otherwise. Chosen on first use and kept until `closeJobs()`.
 */
let current: JobTransport | undefined

/** The prefix of every BullMQ key of the service in Redis. */
export const QUEUE_PREFIX = 'glossary'

export function jobs(): JobTransport {
  current ??= isRedisTransport()
    ? new BullmqTransport(redis(), { prefix: QUEUE_PREFIX })
    : new InProcessTransport()
  return current
}

/**
 * Runs this process's jobs on `transport` instead (tests: a BullMQ transport with a prefix of its own, so
 * parallel runs never share keys). The transport it replaces must have been closed.
 */
export function setJobTransport(transport: JobTransport): void {
  current = transport
}

/** Lets running jobs finish and forgets the transport (shutdown, and tests that change REDIS_URL). */
export async function closeJobs(): Promise<void> {
  const transport = current
  current = undefined
  await transport?.close()
}
