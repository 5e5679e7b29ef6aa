import crypto from 'node:crypto'
import { Redis } from 'ioredis'
import { afterAll, describe, expect, it } from 'vitest'
import { parseConfig, setConfig } from '#app/lib/config.server.ts'
import { getImportJob } from '#app/services/import/import-jobs.server.ts'
import { runImport } from '#app/services/import/import.server.ts'
import { em } from '#db/orm.ts'
import { createUser } from '#tests/factories.ts'
import { useTestDb } from '#tests/setup/db.ts'
import { testEnv } from '#tests/setup/test-env.ts'
import { BullmqTransport } from './jobs/bullmq.ts'
import { closeJobs, jobs, setJobTransport } from './jobs/client.ts'
import { closeQueue, pingQueue, redis } from './transport.ts'
import { liveWorkers } from '#app/services/index-queue/health.server.ts'
import { startWorker } from './worker.ts'

useTestDb()

const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379/15'
/** This run's Redis keys: parallel runs never share a queue, and the keys are deleted afterwards. */
const PREFIX = `glossary-test-${process.pid}-${crypto.randomBytes(4).toString('hex')}`

afterAll(async () => {
  await closeJobs()
  const cleaner = new Redis(REDIS_URL)
  const keys = await cleaner.keys(`${PREFIX}:*`)
  if (keys.length) await cleaner.del(...keys)
  await cleaner.quit()
  await closeQueue()
  setConfig(parseConfig(testEnv()))
})

/** A JSON import of `names`, applied by whatever transport this process has, answered once it finished. */
async function importNames(names: string[]) {
  const { user } = await createUser({ role: 'editor' })
  const result = await runImport({
    input: {
      format: 'json',
      rows: names.map((name) => ({ name })),
      emptyCells: 'keep',
      dryRun: false,
      wait: true,
    },
    actorId: user.id,
  })
  if (result.kind !== 'job') throw new Error('a real run answers a job')
  return result.job
}

describe('worker', () => {
  it('without REDIS_URL beats in-process, and jobs run in the process that submits them', async () => {
    const worker = await startWorker()
    expect(worker.transport).toBe('in-process')
    expect((await liveWorkers()).map((w) => w.id)).toContain(worker.id)
    const job = await importNames(['Local One', 'Local Two'])
    expect(job).toMatchObject({ status: 'succeeded', created: 2 })
    await worker.stop()
    expect((await liveWorkers()).map((w) => w.id)).not.toContain(worker.id)
    await closeJobs()
  })

  it('with REDIS_URL consumes the jobs from BullMQ on the real Redis: an import submitted there is applied', async () => {
    setConfig(parseConfig(testEnv({ REDIS_URL })))
    expect(await pingQueue()).toBe(true)
    expect(jobs().kind).toBe('bullmq')
    await closeJobs()
    setJobTransport(new BullmqTransport(redis(), { prefix: PREFIX }))
    const worker = await startWorker()
    expect(worker.transport).toBe('bullmq')
    expect((await liveWorkers()).find((w) => w.id === worker.id)?.transport).toBe('bullmq')
    const job = await importNames(['Via Redis'])
    expect(job).toMatchObject({ status: 'succeeded', created: 1, processed: 1 })
    // The job went through Redis: its record is kept there under this run's prefix.
    expect(await redis().exists(`${PREFIX}:import-apply:import-apply.${job.id}`)).toBe(1)
    const rows = await em().execute<{ input: unknown }[]>('select input from import_jobs where id = ?', [
      job.id,
    ])
    expect(rows[0]!.input).toBeNull()
    expect((await getImportJob({ jobId: job.id })).rows).toMatchObject([
      { action: 'created', slug: 'via-redis' },
    ])
    await worker.stop()
    await closeJobs()
  })

  it('refuses to start when Redis is configured but unreachable', async () => {
    await closeQueue()
    setConfig(parseConfig(testEnv({ REDIS_URL: 'redis://127.0.0.1:1/0' })))
    await expect(startWorker()).rejects.toThrow(/cannot reach Redis/)
    await closeJobs()
    await closeQueue()
  })
})
