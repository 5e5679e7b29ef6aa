import { claimDue } from '#app/services/index-queue/store.server.ts'
import { em } from '#db/orm.ts'
import { runRow } from '#pipeline/flow.ts'

/**
 * Runs every due row of the index queue through the flow in this process, as the claim loop does, until none
 * is left (a row waiting out a retry's backoff is waited for).
 */
export async function drainIndexQueue(): Promise<void> {
  for (let i = 0; i < 100; i++) {
    const rows = await em().transactional((tx) => claimDue(tx, 20, ['index', 'remove']))
    if (rows.length === 0) {
      const [{ n }] = await em().execute<{ n: string }[]>(
        `select count(*) as n from rag_index_queue where status = 'queued'`,
      )
      if (Number(n) === 0) return
      await new Promise((resolve) => setTimeout(resolve, 20))
      continue
    }
    for (const row of rows) await runRow({ rowId: row.id, revision: row.revision, attempt: row.attempts })
  }
  throw new Error('the queue did not drain')
}
