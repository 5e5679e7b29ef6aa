import { expect } from 'vitest'
import { until, type GlossaryProcess, type ScratchDatabase } from './cluster.ts'

/**
 * What every case of the fault matrix ends with (issue 28): the index queue settles within a stated bound with
 * every row `ready` at its source's current revision (nothing lost, nothing failed, nothing indexed over a
 * newer revision), no row was embedded by two runs at once, and the webs answered throughout.
 */

/** Waits until no row is queued or processing; answers how long it took. Fails after `boundMs`. */
export async function settleWithin(database: ScratchDatabase, boundMs: number): Promise<number> {
  const started = performance.now()
  await until(
    async () => {
      const [row] = await database.sql<{ n: string }>(
        `select count(*) as n from rag_index_queue where status in ('queued', 'processing')`,
      )
      return Number(row!.n) === 0
    },
    { timeoutMs: boundMs, intervalMs: 250, what: `the index queue to settle within ${boundMs} ms` },
  )
  return Math.round(performance.now() - started)
}

/**
 * Every live term is indexed at its current revision and only at it; no row failed; the newest row of each
 * term is `ready` at the term's revision.
 */
export async function expectIndexedAtCurrentRevision(database: ScratchDatabase): Promise<void> {
  const failed = await database.sql<{ source_id: string; error: string }>(
    `select source_id, error from rag_index_queue where status = 'failed'`,
  )
  expect(failed).toEqual([])
  const wrong = await database.sql<{ id: string; name: string }>(
    `select t.id, t.name from terms t
      where t.deleted_at is null and t.status <> 'merged'
        and (not exists (select 1 from term_chunks c where c.term_id = t.id)
             or exists (select 1 from term_chunks c where c.term_id = t.id and c.revision <> t.revision)
             or not exists (select 1 from rag_index_queue q where q.source_id = t.id and q.status = 'ready'
                              and q.revision = t.revision))`,
  )
  expect(wrong).toEqual([])
}

/**
 * No queue row was embedded by two provider calls at once: the `ai_runs` of one row (its trace id) never
 * overlap. A run its worker never finished (killed) counts as an instant at its start.
 */
export async function expectNoRowRunTwiceAtOnce(database: ScratchDatabase): Promise<void> {
  const overlapping = await database.sql<{ trace_id: string }>(
    `select distinct a.trace_id from ai_runs a join ai_runs b on a.trace_id = b.trace_id and a.id < b.id
      where a.purpose = 'index' and b.purpose = 'index'
        and a.started_at < coalesce(b.finished_at, b.started_at)
        and b.started_at < coalesce(a.finished_at, a.started_at)`,
  )
  expect(overlapping).toEqual([])
}

/**
 * Asks each web for a page of terms every 200 ms until stopped, through the API with `token` and, given a
 * session `cookie`, as the term list page too; `stop()` answers the failed answers (status or network error)
 * per web. A web that is being restarted on purpose is left out by the caller.
 */
export function watchWebs(
  webs: GlossaryProcess[],
  token: string,
  cookie?: string,
): { stop(): Promise<string[]> } {
  let running = true
  const failures: string[] = []
  const ask = async (web: GlossaryProcess, what: string, request: () => Promise<Response>) => {
    try {
      const res = await request()
      await res.arrayBuffer()
      if (res.status !== 200) failures.push(`${web.name}: ${what} ${res.status}`)
    } catch (error) {
      failures.push(`${web.name}: ${what} ${(error as Error).message}`)
    }
  }
  const loops = webs.map(async (web) => {
    while (running) {
      await ask(web, 'GET /api/v1/terms', () => web.api('/terms?pageSize=1', { token }))
      if (cookie) await ask(web, 'GET /terms', () => fetch(`${web.url}/terms`, { headers: { cookie } }))
      await new Promise((resolve) => setTimeout(resolve, 200))
    }
  })
  return {
    async stop() {
      running = false
      await Promise.all(loops)
      return failures
    },
  }
}

/** Rows of the queue in `status` now. */
export async function rowsIn(database: ScratchDatabase, status: string): Promise<number> {
  const [row] = await database.sql<{ n: string }>(
    `select count(*) as n from rag_index_queue where status = $1`,
    [status],
  )
  return Number(row!.n)
}
