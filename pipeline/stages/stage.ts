import type { SearchSettings } from '#app/services/search/config.server.ts'
import type { QueueRow } from '#app/services/index-queue/store.server.ts'

/**
 * What every stage shares (decision 016). A stage takes a queue row its claim holds (`processing` at
 * `attempt`) and the settings, does its part idempotently (running it twice changes nothing more), and says
 * whether the next stage runs (`next`) or the row is finished (`done`: indexed, removed or superseded).
 */
export type StageOutcome = 'next' | 'done'

export interface HeldRow extends QueueRow {
  /** The claim's attempt number (the row's `attempts` when it was claimed). */
  attempt: number
}

export interface Stage {
  name: StageName
  run(row: HeldRow, settings: SearchSettings): Promise<StageOutcome>
}

export const STAGE_NAMES = ['chunk', 'embed', 'upsert', 'rerank-check'] as const
export type StageName = (typeof STAGE_NAMES)[number]
