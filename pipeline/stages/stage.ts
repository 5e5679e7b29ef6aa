import type { SearchSettings } from '#app/services/search/settings.server.ts'
import type { PausedProvider, QueueRow } from '#app/services/index-queue/store.server.ts'

/**
 * What every stage shares (decision 016). A stage takes an `index` row its claim holds (`processing` at
 * `attempt`) and the settings search runs with, does its part idempotently (running it twice changes nothing
 * more), and says whether the next stage runs (`next`) or the row is finished (`done`: indexed or superseded).
 * `remove` rows never reach a stage: the flow removes them itself (`removeFromSearch`).
 */
export type StageOutcome = 'next' | 'done'

export interface HeldRow extends QueueRow {
  /** The claim's attempt number (the row's `attempts` when it was claimed). */
  attempt: number
  /** The worker running it (its heartbeat id), written on the row whenever the claim is refreshed. */
  holder: string
}

export interface Stage<Name extends string = string> {
  name: Name
  /** The provider the stage calls, if any: while it is paused the stage does not start (decision 027). */
  provider?: PausedProvider
  run(row: HeldRow, settings: SearchSettings): Promise<StageOutcome>
}
