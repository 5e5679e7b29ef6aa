import { afterEach, describe, expect, it } from 'vitest'
import { withDeferredWrites } from '#app/lib/deferred-writes.server.ts'
import { ProviderError } from '#app/services/ai/provider.server.ts'
import { recordCall, RUNNING_ROW } from '#app/services/ai/recorder.server.ts'
import { em } from '#db/orm.ts'
import { useTestDb } from '#tests/setup/db.ts'

useTestDb()

/**
 * The AI run recorder's writes (issue 28): a call that ends before `RUNNING_ROW.afterMs` is written once,
 * finished; a longer one is `running` while under way and finished after; inside an API call the write is
 * deferred to the end of the call, never lost.
 */

interface RunRow {
  id: string
  trace_id: string
  status: string
  failure_class: string | null
  http_status: number | null
  latency_ms: number | null
  items: number
  finished_at: unknown
  /** finished_at >= started_at */
  ordered: boolean | null
}

/** The rows of one trace (each test has its own). */
const runs = (traceId: string) =>
  em().execute<RunRow[]>(
    `select id, trace_id, status, failure_class, http_status, latency_ms, items, finished_at,
            finished_at >= started_at as ordered
       from ai_runs where trace_id = ? order by started_at`,
    [traceId],
  )

const meta = {
  task: 'embedding',
  provider: 'alpha_compatible',
  model: 'm',
  items: 3,
  purpose: 'search',
} as const

afterEach(() => {
  RUNNING_ROW.afterMs = 1000
})

describe('the AI run recorder', () => {
  it('writes a quick call once, finished, with its latency and trace', async () => {
    const result = await recordCall({ ...meta, traceId: 'trace-quick' }, async () => {
      await new Promise((resolve) => setTimeout(resolve, 20))
      return { vectors: [] }
    })
    expect(result).toEqual({ vectors: [] })
    const [row, ...others] = await runs('trace-quick')
    expect(others).toEqual([])
    expect(row).toMatchObject({ trace_id: 'trace-quick', status: 'succeeded', items: 3, failure_class: null })
    expect(row!.latency_ms).toBeGreaterThanOrEqual(19)
    expect(row!.ordered).toBe(true)
  })

  it('writes a failed quick call once, with its class, and rethrows the error unchanged', async () => {
    const error = new ProviderError('rate_limited', 'slow down', 429)
    await expect(
      recordCall({ ...meta, traceId: 'trace-failed' }, async () => {
        throw error
      }),
    ).rejects.toBe(error)
    const rows = await runs('trace-failed')
    expect(rows).toHaveLength(1)
    expect(rows[0]).toMatchObject({ status: 'failed', failure_class: 'rate_limited', http_status: 429 })
  })

  it('shows a call that lasts as running while under way, then finishes the same row', async () => {
    RUNNING_ROW.afterMs = 0
    let answer!: (value: { vectors: never[] }) => void
    const call = recordCall(
      { ...meta, traceId: 'trace-long' },
      () => new Promise<{ vectors: never[] }>((resolve) => (answer = resolve)),
    )
    let rows = await runs('trace-long')
    for (let i = 0; i < 200 && rows.length === 0; i++) {
      await new Promise((resolve) => setTimeout(resolve, 10))
      rows = await runs('trace-long')
    }
    expect(rows).toHaveLength(1)
    expect(rows[0]).toMatchObject({ status: 'running', finished_at: null })
    answer({ vectors: [] })
    await call
    const finished = await runs('trace-long')
    expect(finished).toHaveLength(1)
    expect(finished[0]).toMatchObject({ id: rows[0]!.id, status: 'succeeded' })
  })

  it('inside an API call, has the row written when the call ends', async () => {
    await withDeferredWrites(async () => {
      await recordCall({ ...meta, traceId: 'trace-api' }, async () => ({ vectors: [] }))
    })
    expect(await runs('trace-api')).toMatchObject([{ status: 'succeeded' }])
  })
})
