import { describe, expect, it } from 'vitest'
import { deferWrite, withDeferredWrites } from './deferred-writes.server.ts'

/** A promise and the function that settles it. */
function gate(): { promise: Promise<void>; open: () => void } {
  let open!: () => void
  const promise = new Promise<void>((resolve) => (open = resolve))
  return { promise, open }
}

describe('deferred writes', () => {
  it('lets the work go on while a write runs, and ends the scope only after the write', async () => {
    const write = gate()
    const steps: string[] = []
    const scope = withDeferredWrites(async () => {
      await deferWrite(write.promise.then(() => void steps.push('write done')))
      steps.push('work went on')
      return 'answer'
    })
    let ended = false
    void scope.then(() => (ended = true))
    await new Promise((resolve) => setImmediate(resolve))
    expect(steps).toEqual(['work went on'])
    expect(ended).toBe(false)
    write.open()
    expect(await scope).toBe('answer')
    expect(steps).toEqual(['work went on', 'write done'])
  })

  it('waits for its writes when the work fails too, and for writes a write deferred', async () => {
    const steps: string[] = []
    await expect(
      withDeferredWrites(async () => {
        await deferWrite(
          (async () => {
            await new Promise((resolve) => setImmediate(resolve))
            await deferWrite(Promise.resolve().then(() => void steps.push('second')))
            steps.push('first')
          })(),
        )
        throw new Error('the work failed')
      }),
    ).rejects.toThrow('the work failed')
    expect(steps.sort()).toEqual(['first', 'second'])
  })

  it('waits for the write where no scope is open, or the scope has ended', async () => {
    const steps: string[] = []
    await deferWrite(Promise.resolve().then(() => void steps.push('outside')))
    expect(steps).toEqual(['outside'])
    // A continuation of the work that runs after the scope ended (a streamed answer still under way).
    const afterScope = gate()
    let streamed: Promise<void> | undefined
    await withDeferredWrites(async () => {
      streamed = afterScope.promise.then(() =>
        deferWrite(Promise.resolve().then(() => void steps.push('after the scope'))),
      )
    })
    afterScope.open()
    await streamed
    expect(steps).toEqual(['outside', 'after the scope'])
  })
})
