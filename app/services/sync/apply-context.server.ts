import type { EntityManager } from '@mikro-orm/postgresql'
import type { SyncItemType } from '#sync/bundle-schema.ts'

/**
 * What applying one bundle shares between the orchestration (import.server.ts), the per-item rules
 * (apply-items.server.ts) and the writers of each type (apply-writers.server.ts): the report's vocabulary and
 * the state of the bundle being applied.
 */

/** What happens to one item (rules a–e); `kept_local_edit` is rule d with `--keep-local-edits`. */
export const ITEM_ACTIONS = [
  'create',
  'update',
  'delete',
  'unchanged',
  'kept_local_edit',
  'conflict',
] as const
export type ItemAction = (typeof ITEM_ACTIONS)[number]

/** One line of the report: an item of the bundle (or a mapped item a full bundle deletes). */
export interface PlanEntry {
  type: SyncItemType
  originId: string
  /** The local item it is, or becomes; null when it is skipped before it has one. */
  localId: string | null
  title: string
  action: ItemAction
  /** Why: a conflict's cause, a local edit overwritten or kept. */
  reason?: string
  /** An updated term's fields: the local content before, the origin's after (with a line diff for text). */
  changes?: { field: string; before: unknown; after: unknown }[]
}

/** Who applies (the account, null for the command line, and how the audit log and history name them). */
export interface SyncActor {
  id: string | null
  label: string
}

/** The state of one bundle being applied, inside the import's one transaction. */
export interface ApplyContext {
  tx: EntityManager
  origin: { id: string; name: string }
  keepLocalEdits: boolean
  actor: SyncActor
  /** The glossary version the transaction took first (`bumpGlossaryVersion`), stamped on changed terms. */
  version: number
  /** The bundle's images: origin attachment id → local attachment id. */
  images: Map<string, string>
  /** Origin term id → the origin id of the term it is merged into, for the merged terms of this bundle. */
  mergedInto: Map<string, string>
  /** Origin term ids this bundle skipped (conflicts): what needs them is skipped too. */
  skippedTerms: Set<string>
  /** Set when a term was written or deleted: the matchers hear of it after commit. */
  termsChanged: boolean
  report(entry: PlanEntry): void
}
