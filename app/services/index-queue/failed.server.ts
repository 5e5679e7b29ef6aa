import type { IndexSourceType } from '#db/entities/index-queue.entity.ts'
import { em } from '#db/orm.ts'
import { isoOrNull } from '#db/sql.ts'
import type { IndexQueueAction } from '#domain/content.ts'
import { reviveFailedRows, selectFailedRows } from './store.server.ts'

/**
 * The failed rows of the index queue as an administrator sees them (issue 12, the index status page): what
 * failed, why (the row's short, secret-free message, decision 016) and a retry. A retry is the same move as a
 * full reindex makes for failed rows (`reviveFailedRows`: failed → queued, spec: "failed → full reindex after the connection is fixed → queued"): back to `queued` with its attempts reset.
 */

export interface FailedIndexRow {
  id: string
  sourceType: IndexSourceType
  sourceId: string
  /** The source's name or title now; null when the source no longer exists. */
  title: string | null
  slug: string | null
  revision: number
  action: IndexQueueAction
  attempts: number
  message: string | null
  failedAt: string | null
  /** Newer work of the same source is queued or under way. */
  pending: boolean
}

/** At most this many failed rows are listed; the page says how many there are in all. */
export const FAILED_ROWS_SHOWN = 100

/** The newest failed row of each source, newest failure first, and how many sources have one. */
export async function listFailedIndexRows(): Promise<{ items: FailedIndexRow[]; total: number }> {
  const { rows, total } = await selectFailedRows(em(), FAILED_ROWS_SHOWN)
  return {
    total,
    items: rows.map((r) => ({
      id: r.id,
      sourceType: r.source_type,
      sourceId: r.source_id,
      title: r.title,
      slug: r.slug,
      revision: r.revision,
      action: r.action,
      attempts: r.attempts,
      message: r.error,
      failedAt: isoOrNull(r.finished_at),
      pending: r.pending,
    })),
  }
}

/** How many sources have a failed row (the count `listFailedIndexRows` answers as `total`), for the home page. */
export async function countFailedIndexRows(): Promise<number> {
  return (await selectFailedRows(em(), 0)).total
}

/**
 * Puts failed rows back to `queued`: the given ones, or every failed row when `ids` is omitted. Answers how
 * many rows went back (a row whose source has newer queued work is removed instead: that work indexes it).
 */
export async function retryFailedIndexRows(options: { ids?: readonly string[] } = {}): Promise<{
  requeued: number
}> {
  const requeued = await em().transactional((tx) => reviveFailedRows(tx, options.ids))
  return { requeued }
}
