import crypto from 'node:crypto'
import { Queue } from 'bullmq'
import { Redis } from 'ioredis'
import { afterAll, describe, expect, it } from 'vitest'
import { z } from 'zod'
import { BullmqTransport } from './bullmq.ts'
import { InProcessTransport } from './in-process.ts'
import { PermanentJobError, defineJob, type JobTransport } from './job.ts'

/**
 * The same job definitions, run by both transports: in this process, and through the machine's real Redis
 * with BullMQ (a submitting transport and a consuming one on separate connections, so a job that was not
 * carried by Redis is not run). Each run uses a key prefix of its own and deletes its keys afterwards.
 */

const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379/15'
const PREFIX = `glossary-test-${process.pid}-${crypto.randomBytes(4).toString('hex')}`
const connections: Redis[] = []
const connect = () => {
  const connection = new Redis(REDIS_URL, { maxRetriesPerRequest: null })
  connections.push(connection)
  return connection
}

afterAll(async () => {
  const cleaner = connect()
  const keys = await cleaner.keys(`${PREFIX}:*`)
  if (keys.length) await cleaner.del(...keys)
  await Promise.all(connections.map((c) => c.quit()))
})

/** A gate a handler waits at until the test opens it. */
function gate() {
  let open!: () => void
  const opened = new Promise<void>((resolve) => (open = resolve))
  return { opened, open }
}

/** Job definitions whose handlers record what they saw; names are unique per transport so queues never mix. */
function definitions(suffix: string) {
  const seen: { name: string; id: string; attempt: number; payload: unknown }[] = []
  const gates = new Map<string, ReturnType<typeof gate>>()
  const record = (name: string) => (payload: unknown, context: { id: string; attempt: number }) =>
    void seen.push({ name, id: context.id, attempt: context.attempt, payload })
  const Payload = z.object({ termId: z.string().trim().min(1) })
  const echo = defineJob<typeof Payload, { step: number }>({
    name: `test-echo-${suffix}`,
    schema: Payload,
    key: (p) => p.termId,
    backoffMs: 1,
    async handle(payload, context) {
      record(echo.name)(payload, context)
      await context.progress({ step: 1 })
      await gates.get(payload.termId)?.opened
    },
  })
  /** A job that throws what `failure` answers for an attempt (nothing: it succeeds). */
  const failing = (name: string, failure: (attempt: number) => Error | undefined) => {
    const definition = defineJob({
      name,
      schema: Payload,
      key: (p) => p.termId,
      attempts: 3,
      backoffMs: 1,
      async handle(payload, context) {
        record(name)(payload, context)
        const error = failure(context.attempt)
        if (error) throw error
      },
    })
    return definition
  }
  const flaky = failing(`test-flaky-${suffix}`, (attempt) =>
    attempt === 1 ? new Error('provider unavailable') : undefined,
  )
  const broken = failing(`test-broken-${suffix}`, () => new PermanentJobError('bad input'))
  return { seen, gates, echo, flaky, broken, all: [echo, flaky, broken] }
}

interface Harness {
  submitter: JobTransport
  jobs: ReturnType<typeof definitions>
  close(): Promise<void>
}

const transports: [string, () => Harness][] = [
  [
    'in-process',
    () => {
      const transport = new InProcessTransport()
      return { submitter: transport, jobs: definitions('local'), close: () => transport.close() }
    },
  ],
  [
    'BullMQ on the real Redis',
    () => {
      const jobs = definitions('bullmq')
      const submitter = new BullmqTransport(connect(), { prefix: PREFIX })
      const consumer = new BullmqTransport(connect(), { prefix: PREFIX })
      consumer.consume(jobs.all)
      return {
        submitter,
        jobs,
        close: async () => {
          await consumer.close()
          await submitter.close()
        },
      }
    },
  ],
]

describe.each(transports)('%s transport', (_name, make) => {
  const harness = make()
  const { submitter, jobs } = harness
  afterAll(() => harness.close())

  it('runs a job with its parsed payload under its deterministic id, once however often it is submitted', async () => {
    const hold = gate()
    jobs.gates.set('t1', hold)
    const id = await submitter.submit(jobs.echo, { termId: ' t1 ' })
    expect(id).toBe(`${jobs.echo.name}.t1`)
    // Submitted again while it is pending: the same job.
    expect(await submitter.submit(jobs.echo, { termId: 't1' })).toBe(id)
    expect(await submitter.isPending(jobs.echo, id)).toBe(true)
    // Its progress is readable while it runs (from Redis, for BullMQ).
    let progress: { step: number } | undefined
    while (!progress) progress = await submitter.progress(jobs.echo, id)
    expect(progress).toEqual({ step: 1 })
    hold.open()
    await submitter.waitFor(jobs.echo, id)
    expect(await submitter.isPending(jobs.echo, id)).toBe(false)
    expect(await submitter.progress(jobs.echo, id)).toBeUndefined()
    expect(jobs.seen.filter((s) => s.name === jobs.echo.name)).toEqual([
      { name: jobs.echo.name, id, attempt: 1, payload: { termId: 't1' } },
    ])
  })

  it('retries a failed job with backoff until it succeeds', async () => {
    const id = await submitter.submit(jobs.flaky, { termId: 'f1' })
    await submitter.waitFor(jobs.flaky, id)
    expect(jobs.seen.filter((s) => s.name === jobs.flaky.name).map((s) => s.attempt)).toEqual([1, 2])
  })

  it('does not retry a permanent failure', async () => {
    const id = await submitter.submit(jobs.broken, { termId: 'b1' })
    await submitter.waitFor(jobs.broken, id)
    expect(jobs.seen.filter((s) => s.name === jobs.broken.name)).toHaveLength(1)
    expect(await submitter.isPending(jobs.broken, id)).toBe(false)
  })

  it('refuses a payload its schema rejects before queueing it', async () => {
    await expect(submitter.submit(jobs.echo, { termId: '  ' })).rejects.toThrow()
    await expect(submitter.submit(jobs.echo, { termId: 'a:b' })).rejects.toThrow(/may not contain ":"/)
  })
})

describe('BullMQ worker', () => {
  it('re-parses what it takes from Redis: a payload its schema rejects fails at once, without a retry', async () => {
    const jobs = definitions('raw')
    const consumer = new BullmqTransport(connect(), { prefix: PREFIX })
    consumer.consume(jobs.all)
    // Written to the queue directly, as another version of the service (or a hand) might.
    const queue = new Queue(jobs.echo.name, { connection: connect(), prefix: PREFIX })
    const job = await queue.add(jobs.echo.name, { termId: 42 }, { jobId: 'raw-1', attempts: 3 })
    while (!['completed', 'failed'].includes(await job.getState())) {
      await new Promise((resolve) => setTimeout(resolve, 20))
    }
    const failed = (await queue.getJob('raw-1'))!
    expect(await failed.getState()).toBe('failed')
    expect(failed.attemptsMade).toBe(1)
    expect(failed.failedReason).toMatch(/Bad payload for job "test-echo-raw"/)
    expect(jobs.seen).toEqual([])
    await queue.close()
    await consumer.close()
  })
})
