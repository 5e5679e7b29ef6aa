import { z } from 'zod'
import { claimOne, dueRows } from '#app/services/index-queue/store.server.ts'
import { em } from '#db/orm.ts'
import { defineJob, type AnyJobDefinition, type JobTransport } from './jobs/job.ts'
import { runStage, type StagePayload } from './flow.ts'
import type { StageName } from './stages/stage.ts'

/**
 * The BullMQ side of the index flow: one job per stage, payload `{ rowId, revision, attempt }` (ids only),
 * job id `<stage>.<row>-<revision>-<attempt>`, so a relayed duplicate collapses into the pending job and a
 * new revision or a retry is a new job. A stage's job submits the next stage's job after its own commit.
 * Retries are the queue table's (flow.ts), so each job runs once.
 */

const PayloadSchema = z
  .object({ rowId: z.uuid(), revision: z.number().int().min(1), attempt: z.number().int().min(1) })
  .strict()

const definitions = new Map<StageName, AnyJobDefinition>()

function stageJob(
  stage: StageName,
  handle: (payload: StagePayload, transport: JobTransport) => Promise<void>,
) {
  return defineJob({
    name: `index-${stage}`,
    schema: PayloadSchema,
    key: (p) => `${p.rowId}-${p.revision}-${p.attempt}`,
    attempts: 1,
    concurrency: stage === 'embed' ? 4 : 2,
    handle: (payload) => handle(payload, transportOf()),
  })
}

let transportOf: () => JobTransport = () => {
  throw new Error('index jobs: no transport bound')
}

/** Binds the transport the stages submit their successors to (the worker's). */
export function bindIndexTransport(transport: JobTransport): void {
  transportOf = () => transport
}

async function continueWith(
  next: StageName | undefined,
  payload: StagePayload,
  transport: JobTransport,
): Promise<void> {
  if (next) await transport.submit(definitions.get(next)!, payload)
}

for (const stage of ['chunk', 'embed', 'upsert', 'rerank-check'] as const) {
  definitions.set(
    stage,
    stageJob(stage, async (payload, transport) => {
      if (stage === 'chunk') {
        // The first stage takes the row: queued → processing at this attempt, or nothing (already taken).
        const claimed = await em().transactional((tx) =>
          claimOne(tx, payload.rowId, payload.revision, payload.attempt - 1),
        )
        if (!claimed) return
      }
      await continueWith(await runStage(stage, payload), payload, transport)
    }),
  )
}

/** The four stage jobs, for the registry. */
export const INDEX_JOBS: readonly AnyJobDefinition[] = [...definitions.values()]

/** Rows per relay pass. */
const RELAY_BATCH = 1000

/**
 * Submits every due queued row to BullMQ as its chunk job (on worker start and then periodically): after a
 * Redis flush or restart the queue table still holds the work, so nothing is lost; pending duplicates
 * collapse by job id. `actions` is `['remove']` while search cannot index. Answers how many were submitted.
 */
export async function relayQueued(
  transport: JobTransport,
  actions: readonly ('index' | 'remove')[],
): Promise<number> {
  const rows = await dueRows(em(), RELAY_BATCH, actions)
  await Promise.all(
    rows.map((row) =>
      transport.submit(definitions.get('chunk')!, {
        rowId: row.id,
        revision: row.revision,
        attempt: row.attempts + 1,
      }),
    ),
  )
  return rows.length
}
