import { em } from '#db/orm.ts'
import { bindIndexJobs } from '#pipeline/index-jobs.ts'
import { InProcessTransport } from '#pipeline/jobs/in-process.ts'
import { runReindexStep } from '#pipeline/reindex-runner.ts'
import { relayDue } from '#pipeline/relay.ts'

/** The worker id the tests' stage runs write on the rows they hold. */
export const TEST_HOLDER = 'test-worker'

/**
 * Runs a building full reindex run to its end (or until it waits), as a worker's runner does; answers whether
 * it moved.
 */
export async function runReindex(holder = TEST_HOLDER): Promise<boolean> {
  let moved = false
  while ((await runReindexStep(holder)) === 'progress') moved = true
  return moved
}

/**
 * Runs every due row of the index queue through the flow in this process, as a worker's relay and in-process
 * jobs do, and a full reindex run as the worker's runner does, until none is left (a row waiting out a retry's backoff or a provider's pause is waited for, up to
 * about two seconds).
 */
export async function drainIndexQueue(): Promise<void> {
  const transport = new InProcessTransport()
  bindIndexJobs({ transport, holder: TEST_HOLDER })
  try {
    for (let i = 0; i < 100; i++) {
      const due = await relayDue(transport)
      await transport.drained()
      const moved = await runReindex()
      if (due > 0 || moved) continue
      const [{ n }] = await em().execute<{ n: string }[]>(
        `select count(*) as n from rag_index_queue where status = 'queued'`,
      )
      if (Number(n) === 0) return
      await new Promise((resolve) => setTimeout(resolve, 20))
    }
    throw new Error('the queue did not drain')
  } finally {
    await transport.close()
    bindIndexJobs(undefined)
  }
}
