import { describe, expect, it } from 'vitest'
import type { StandIn } from '#tests/provider-stand-in.ts'
import { configureSearch, createApiKey, expectJson, setupAdmin, until, useCluster } from './cluster.ts'
import {
  expectIndexedAtCurrentRevision,
  expectNoRowRunTwiceAtOnce,
  rowsIn,
  settleWithin,
  watchWebs,
} from './index-invariants.ts'

/**
 * The embedding provider's outage, on the production shape (issue 28, decision 027): while a reindex waits on
 * it, the provider answers 500, then 429 with `Retry-After`, then hangs past the call's time limit, then
 * recovers — an outage of `OUTAGE_S` seconds in all, four times what used to fail rows for good (~35 s). The
 * pipeline pauses the provider instead of spending the rows' attempts: no row fails, the provider is called
 * about once per pause (not ~35 times a second), `Retry-After` spaces the calls, `/readyz` reports the pause,
 * the web answers throughout, and once the provider is back the queue settles within `SETTLE_MS`.
 */

const PHASE_S = { serverError: 50, rateLimited: 35, hanging: 55 }
const OUTAGE_S = PHASE_S.serverError + PHASE_S.rateLimited + PHASE_S.hanging
const RETRY_AFTER_S = 10
/** After recovery: at most one full pause (60 s) plus the relay's second, with room for a loaded machine. */
const SETTLE_MS = 120_000
const TERMS = 30

const cluster = useCluster({ webs: 1, workers: 2 })

const embedCalls = (provider: StandIn) =>
  provider.requests.filter((r) => r.path.endsWith('/embeddings')).length
const sleep = (s: number) => new Promise((resolve) => setTimeout(resolve, s * 1000))

describe('an embedding provider outage', { timeout: (OUTAGE_S + 240) * 1000 }, () => {
  it('500, then 429, then hanging, then back: nothing fails, calls are paused, the queue settles after', async () => {
    const web = cluster.webs[0]!
    const admin = await setupAdmin(web)
    const { token } = await createApiKey(web, admin)
    const provider = await cluster.provider()
    await configureSearch(web, admin, provider)
    provider.failAll(500)
    const watch = watchWebs([web], token)
    for (let i = 0; i < TERMS; i++) {
      await expectJson(
        await web.api('/terms', {
          method: 'POST',
          token,
          body: { name: `Outage Term ${i}`, definition: `Saved while the provider is down, number ${i}.` },
        }),
        201,
      )
    }

    // 500s: the provider is paused (5 s doubling up to a minute), so it is called a handful of times.
    await until(
      async () => {
        const body = (await (await fetch(`${web.url}/readyz`)).json()) as { index?: { problems: string[] } }
        return body.index?.problems.includes('provider_paused')
      },
      { timeoutMs: 30_000, what: '/readyz to report the paused provider' },
    )
    await sleep(PHASE_S.serverError)
    const afterServerErrors = embedCalls(provider)

    // 429 with Retry-After: calls come no faster than the provider asked.
    provider.failAll(429, { 'Retry-After': String(RETRY_AFTER_S) })
    await sleep(PHASE_S.rateLimited)
    const afterRateLimited = embedCalls(provider)

    // Hanging past the 30 s time limit of a call.
    provider.failAll(null)
    provider.delayMs = 40_000
    await sleep(PHASE_S.hanging)
    const afterHanging = embedCalls(provider)
    expect(await rowsIn(cluster.database, 'failed')).toBe(0)

    provider.delayMs = 0
    const ms = await settleWithin(cluster.database, SETTLE_MS)
    console.info(
      `outage of ${OUTAGE_S} s: embedding calls during 500s ${afterServerErrors}, during 429s ` +
        `${afterRateLimited - afterServerErrors}, while hanging ${afterHanging - afterRateLimited}; ` +
        `settled ${ms} ms after recovery`,
    )
    // Two workers, each with up to four embed jobs in flight when a pause begins; then about one call per pause.
    expect(afterServerErrors).toBeLessThanOrEqual(8 + PHASE_S.serverError / 5)
    expect(afterRateLimited - afterServerErrors).toBeLessThanOrEqual(8 + PHASE_S.rateLimited / RETRY_AFTER_S)
    await expectIndexedAtCurrentRevision(cluster.database)
    await expectNoRowRunTwiceAtOnce(cluster.database)
    expect(await watch.stop()).toEqual([])
    // Every row waited without spending its attempts: each was claimed for good once.
    const attempts = await cluster.database.sql<{ attempts: number }>(
      `select distinct attempts from rag_index_queue where status = 'ready'`,
    )
    expect(attempts.map((r) => r.attempts)).toEqual([1])
  })
})
