import { afterAll, describe, expect, it } from 'vitest'
import { parseConfig, setConfig } from '#app/lib/config.server.ts'
import { closeQueue, pingQueue, redis } from './transport.ts'
import { liveWorkers, startWorker } from './worker.ts'
import { useTestDb } from '#tests/setup/db.ts'
import { testEnv } from '#tests/setup/test-env.ts'

useTestDb()

afterAll(async () => {
  await closeQueue()
  setConfig(parseConfig(testEnv()))
})

describe('worker', () => {
  it('without REDIS_URL runs in-process, reports a heartbeat and stops cleanly', async () => {
    const worker = await startWorker()
    expect(worker.transport).toBe('in-process')
    expect((await liveWorkers()).map((w) => w.id)).toContain(worker.id)
    await worker.stop()
    expect((await liveWorkers()).map((w) => w.id)).not.toContain(worker.id)
  })

  it('with REDIS_URL uses the BullMQ transport on the real Redis', async () => {
    setConfig(parseConfig(testEnv({ REDIS_URL: process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379/15' })))
    expect(await pingQueue()).toBe(true)
    expect(await redis().ping()).toBe('PONG')
    const worker = await startWorker()
    expect(worker.transport).toBe('bullmq')
    expect((await liveWorkers()).find((w) => w.id === worker.id)?.transport).toBe('bullmq')
    await worker.stop()
  })

  it('refuses to start when Redis is configured but unreachable', async () => {
    await closeQueue()
    setConfig(parseConfig(testEnv({ REDIS_URL: 'redis://127.0.0.1:1/0' })))
    await expect(startWorker()).rejects.toThrow(/cannot reach Redis/)
    await closeQueue()
  })
})
