import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { InProcessTransport } from './in-process.ts'
import { defineJob } from './job.ts'

/** A job whose steps the test releases one at a time (a release is never lost), reporting `{ step }` after each. */
function steppedJob(steps: number) {
  let permits = 0
  let wake: (() => void) | undefined
  const started: string[] = []
  const Payload = z.object({ id: z.string() })
  const definition = defineJob<typeof Payload, { step: number }>({
    name: 'test-stepped',
    schema: Payload,
    key: (p) => p.id,
    async handle(payload, context) {
      started.push(payload.id)
      await context.progress({ step: 0 })
      for (let i = 1; i <= steps; i++) {
        while (permits === 0) await new Promise<void>((resolve) => (wake = resolve))
        permits--
        await context.progress({ step: i })
      }
    },
  })
  const next = () => {
    permits++
    wake?.()
  }
  return { definition, started, next }
}

const turns = async (n: number) => {
  for (let i = 0; i < n; i++) await new Promise((resolve) => setImmediate(resolve))
}

describe('in-process transport', () => {
  it('streams each progress state as the job advances and ends when it has finished', async () => {
    const transport = new InProcessTransport()
    const { definition, next } = steppedJob(3)
    const id = await transport.submit(definition, { id: 'j1' })
    const seen: number[] = []
    for await (const state of transport.watch(definition, id)) {
      seen.push(state.step)
      // Advance only after each state was read, so every step is seen.
      setImmediate(next)
    }
    expect(seen).toEqual([0, 1, 2, 3])
    expect(await transport.isPending(definition, id)).toBe(false)
  })

  it('folds states a slow reader missed into the latest, and a finished job yields nothing', async () => {
    const transport = new InProcessTransport()
    const { definition, next } = steppedJob(3)
    const id = await transport.submit(definition, { id: 'j1' })
    const iterator = transport.watch(definition, id)[Symbol.asyncIterator]()
    expect((await iterator.next()).value).toEqual({ step: 0 })
    // Two steps happen before the reader asks again (each report also yields a turn of the event loop).
    next()
    await turns(2)
    next()
    await turns(2)
    expect((await iterator.next()).value).toEqual({ step: 2 })
    next()
    await transport.waitFor(definition, id)
    expect((await iterator.next()).done).toBe(true)
    const after = []
    for await (const state of transport.watch(definition, id)) after.push(state)
    expect(after).toEqual([])
  })

  it('answers copies of the progress (a reader cannot change the running job)', async () => {
    const transport = new InProcessTransport()
    const { definition, next } = steppedJob(1)
    const id = await transport.submit(definition, { id: 'j1' })
    await turns(1)
    const copy = (await transport.progress(definition, id))!
    copy.step = 99
    expect(await transport.progress(definition, id)).toEqual({ step: 0 })
    next()
    await transport.waitFor(definition, id)
  })

  it('runs jobs of one name one at a time, and on close drops the waiting ones and lets the running one end', async () => {
    const transport = new InProcessTransport()
    const { definition, started, next } = steppedJob(1)
    const first = await transport.submit(definition, { id: 'a' })
    const second = await transport.submit(definition, { id: 'b' })
    await turns(2)
    expect(started).toEqual(['a'])
    expect(await transport.isPending(definition, second)).toBe(true)
    const closed = transport.close()
    expect(await transport.isPending(definition, second)).toBe(false)
    next()
    await closed
    expect(await transport.isPending(definition, first)).toBe(false)
    expect(started).toEqual(['a'])
    await expect(transport.submit(definition, { id: 'c' })).rejects.toThrow(/closed/)
  })
})
