import { describe, expect, it } from 'vitest'
import { markRequest } from '#app/lib/quiet-moments.server.ts'
import { letRequestsIn } from './reindex-runner.ts'

/**
 * Between two slices of a full reindex on the embedded engine (decisions 028 and 036): the runner waits while
 * requests are in flight, at most as long as the slice took, and goes on at once when none is.
 */
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

describe('letRequestsIn', () => {
  it('goes on at once when no request is in flight, even right after one was answered', async () => {
    markRequest()()
    expect(await letRequestsIn(40)).toEqual({ pausedMs: 0 })
  })

  it('waits for a request that is read only after the slice (the slice held the event loop)', async () => {
    let ended = () => {}
    setImmediate(() => (ended = markRequest()))
    setTimeout(() => ended(), 20)
    // A bound far past the test's timeout: the wait ends because the request did.
    const { pausedMs } = await letRequestsIn(10 * 60_000)
    expect(pausedMs).toBeGreaterThanOrEqual(15)
  })

  it('waits at most as long as the slice took for a request that goes on longer', async () => {
    const ended = markRequest()
    const { pausedMs } = await letRequestsIn(40)
    expect(pausedMs).toBeGreaterThanOrEqual(30)
    ended()
    await sleep(0)
    expect(await letRequestsIn(40)).toEqual({ pausedMs: 0 })
  })
})
