import { z } from 'zod'
import { defineJob, jobIdOf, type AnyJobDefinition, type JobTransport } from './jobs/job.ts'
import { FLOW, runStage, type StageName, type StagePayload } from './flow.ts'

/**
 * The index flow's stages as jobs, one definition per stage of `FLOW` (decision 027), on either transport:
 * payload `{ rowId, revision, attempt }` (ids only), key `<row>-<revision>-<attempt>` — a relayed duplicate
 * collapses into the pending job, and a new revision or a new claim is a new job. A stage's job submits the
 * next stage's job before it ends, so a row's chain is never without a pending job while it is `processing`.
 * Finished jobs are not kept (`keepFinished: false`): the queue table says what is done, and a kept id would
 * swallow the same work submitted again. Retries are the table's (flow.ts), so each job runs once.
 */

const PayloadSchema = z
  .object({ rowId: z.uuid(), revision: z.number().int().min(1), attempt: z.number().int().min(1) })
  .strict()

/** Who runs the stages in this process: the transport the next stage goes to, and the worker's id. */
interface Binding {
  transport: JobTransport
  holder: string
}

let binding: Binding | undefined

/** Binds the stages of this process to its worker (its transport and heartbeat id); `startWorker` does. */
export function bindIndexJobs(next: Binding | undefined): void {
  binding = next
}

function bound(): Binding {
  if (!binding) throw new Error('index jobs: no worker bound in this process')
  return binding
}

const definitions = new Map<StageName, AnyJobDefinition>(
  FLOW.map((stage) => [
    stage.name,
    defineJob({
      name: `index-${stage.name}`,
      schema: PayloadSchema,
      key: (p) => `${p.rowId}-${p.revision}-${p.attempt}`,
      attempts: 1,
      keepFinished: false,
      // The provider call is the slow part: more rows may wait on it at once.
      concurrency: stage.provider === 'embedding' ? 4 : 2,
      handle: async (payload: StagePayload) => {
        const { transport, holder } = bound()
        const next = await runStage(stage.name, payload, holder)
        if (next) await transport.submit(definitions.get(next)!, payload)
      },
    }),
  ]),
)

/** The stage jobs, for the registry. */
export const INDEX_JOBS: readonly AnyJobDefinition[] = [...definitions.values()]

/** Starts a claim's chain: the first stage's job. */
export function submitFirstStage(transport: JobTransport, payload: StagePayload): Promise<string> {
  return transport.submit(definitions.get(FLOW[0].name)!, payload)
}

/** Whether any stage job of this claim is queued or running on `transport` (the chain is alive). */
export async function chainPending(transport: JobTransport, payload: StagePayload): Promise<boolean> {
  for (const definition of INDEX_JOBS) {
    if (await transport.isPending(definition, jobIdOf(definition, payload))) return true
  }
  return false
}
