import { describe, expect, it } from 'vitest'
import { markRequest, requestsInFlight, whenQuiet } from './quiet-moments.server.ts'

describe('whenQuiet', () => {
  it('resolves at once when no request is in flight', async () => {
    let resolved = false
    const waiting = whenQuiet(60_000).then(() => (resolved = true))
    await Promise.resolve()
    expect(resolved).toBe(true)
    await waiting
  })

  it('waits until the last request in flight has ended', async () => {
    const first = markRequest()
    const second = markRequest()
    const order: string[] = []
    const waiting = whenQuiet(60_000).then(() => order.push('quiet'))
    first()
    first() // ending one request twice counts once
    await new Promise((resolve) => setImmediate(resolve))
    order.push('first ended')
    second()
    await waiting
    expect(order).toEqual(['first ended', 'quiet'])
  })

  it('gives up waiting after maxWaitMs while requests keep overlapping', async () => {
    const end = markRequest()
    let resolved = false
    await whenQuiet(20).then(() => (resolved = true))
    expect(resolved).toBe(true)
    end()
    // A later wait is not woken twice nor left behind: the earlier waiter was removed.
    await whenQuiet(60_000)
  })
})

describe('requestsInFlight', () => {
  it('says whether a request is being answered, however long ago it began', async () => {
    expect(requestsInFlight()).toBe(false)
    const ended = markRequest()
    expect(requestsInFlight()).toBe(true)
    await new Promise((resolve) => setTimeout(resolve, 30))
    expect(requestsInFlight()).toBe(true)
    ended()
    expect(requestsInFlight()).toBe(false)
  })
})
