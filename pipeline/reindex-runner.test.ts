import { afterEach, describe, expect, it } from 'vitest'
import { markRequest } from '#app/lib/quiet-moments.server.ts'
import { letRequestsIn, RUNNER } from './reindex-runner.ts'

/**
 * Between two slices of a full reindex on the embedded engine (decision 028): a pause as long as the slice only
 * while the service is in use, so an idle service reindexes without waiting.
 */
const ACTIVE_WITHIN_MS = RUNNER.activeWithinMs
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

describe('letRequestsIn', () => {
  afterEach(() => {
    RUNNER.activeWithinMs = ACTIVE_WITHIN_MS
  })

  it('goes on at once when no request began lately', async () => {
    RUNNER.activeWithinMs = 30
    await sleep(40)
    expect(await letRequestsIn(40)).toEqual({ pausedMs: 0 })
  })

  it('pauses as long as the slice took after a recent request, even one already answered', async () => {
    RUNNER.activeWithinMs = 60_000
    markRequest()()
    expect(await letRequestsIn(40)).toEqual({ pausedMs: 40 })
  })

  it('pauses for a request that is read only after the slice (the slice held the event loop)', async () => {
    RUNNER.activeWithinMs = 30
    await sleep(40)
    let ended = () => {}
    setImmediate(() => (ended = markRequest()))
    expect(await letRequestsIn(40)).toEqual({ pausedMs: 40 })
    ended()
  })

  it('pauses while a request is in flight, however long ago it began; not once it ended long ago', async () => {
    RUNNER.activeWithinMs = 30
    const ended = markRequest()
    await sleep(40)
    expect(await letRequestsIn(40)).toEqual({ pausedMs: 40 })
    ended()
    await sleep(40)
    expect(await letRequestsIn(40)).toEqual({ pausedMs: 0 })
  })
})
