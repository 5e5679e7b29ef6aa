import type { EntityManager } from '@mikro-orm/postgresql'
import { countChanged } from '#db/sql.ts'
import { em } from '#db/orm.ts'

/**
 * The data access of the shared rate limits: the statements on `rate_limit_buckets` (one fixed-window counter
 * per `<bucket>:<key>`). The limits and the 429 answer are in rate-limit.server.ts.
 */

/**
 * The longest window any limit may use. The table stores when a window started, not how long it lasts, so a
 * bucket whose window started longer ago than this has surely ended: that is what "expired" means below.
 */
export const MAX_WINDOW_SECONDS = 86_400

const COUNT_REQUEST = `
insert into rate_limit_buckets as b (key, window_start, count) values (?, now(), 1)
on conflict (key) do update set
  window_start = case when b.window_start <= now() - make_interval(secs => ?) then now() else b.window_start end,
  count = case when b.window_start <= now() - make_interval(secs => ?) then 1 else b.count + 1 end
returning count,
  greatest(1, ceil(extract(epoch from (window_start + make_interval(secs => ?) - now()))))::int as retry_after`

/**
 * Counts one request into the bucket `key`, starting a new window when the current one is over. One atomic
 * `insert … on conflict … do update … returning`, so two processes never see the same count; the database
 * clock decides windows, so processes with drifting clocks still agree.
 */
export async function countRequest(
  manager: EntityManager,
  key: string,
  windowSeconds: number,
): Promise<{ count: number; retryAfterSeconds: number }> {
  const rows = await manager.execute<{ count: number; retry_after: number }[]>(COUNT_REQUEST, [
    key,
    windowSeconds,
    windowSeconds,
    windowSeconds,
  ])
  const row = rows[0]!
  return { count: Number(row.count), retryAfterSeconds: Number(row.retry_after) }
}

/**
 * Deletes the buckets whose window has surely ended by `now` (started `MAX_WINDOW_SECONDS` or more before);
 * returns how many. For the worker's hourly cleanup: correctness never depends on it (an old bucket restarts
 * its window on the next request), it only keeps the table small.
 */
export function deleteExpiredRateLimitBuckets(now: Date, manager: EntityManager = em()): Promise<number> {
  return countChanged(
    manager,
    'delete from rate_limit_buckets where window_start <= ?::timestamptz - make_interval(secs => ?)',
    [now.toISOString(), MAX_WINDOW_SECONDS],
  )
}
