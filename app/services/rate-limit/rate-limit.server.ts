import type { EntityManager } from '@mikro-orm/postgresql'
import { AppError } from '#app/lib/errors.server.ts'
import { em } from '#db/orm.ts'

/**
 * Shared rate limits (docs/decisions/005-rate-limits.md): fixed-window counters in `rate_limit_buckets`, so
 * every web process counts into the same bucket. One atomic `insert … on conflict … do update … returning`
 * per request both starts a new window and counts, so two processes can never both see the same count. The
 * database clock decides windows, so processes with drifting clocks still agree.
 */

export interface RateLimitResult {
  allowed: boolean
  /** Requests counted in the current window, this one included. */
  count: number
  limit: number
  /** Whole seconds until the window resets (at least 1). */
  retryAfterSeconds: number
}

const UPSERT = `
insert into rate_limit_buckets as b (key, window_start, count) values (?, now(), 1)
on conflict (key) do update set
  window_start = case when b.window_start <= now() - make_interval(secs => ?) then now() else b.window_start end,
  count = case when b.window_start <= now() - make_interval(secs => ?) then 1 else b.count + 1 end
returning count,
  greatest(1, ceil(extract(epoch from (window_start + make_interval(secs => ?) - now()))))::int as retry_after`

/**
 * Counts one request against `bucket`/`key` (for example `login:ip`, `203.0.113.7`) and says whether it is
 * within `limit` requests per `windowSeconds`. Reusable by any feature (chat uses `chat:user`).
 */
export async function consumeRateLimit(
  bucket: string,
  key: string,
  limit: number,
  windowSeconds: number,
  manager: EntityManager = em(),
): Promise<RateLimitResult> {
  const rows = await manager.execute<{ count: number; retry_after: number }[]>(UPSERT, [
    `${bucket}:${key}`,
    windowSeconds,
    windowSeconds,
    windowSeconds,
  ])
  const row = rows[0]!
  const count = Number(row.count)
  return { allowed: count <= limit, count, limit, retryAfterSeconds: Number(row.retry_after) }
}

/** Like `consumeRateLimit`, but throws 429 `rate_limited` with `Retry-After` when over the limit. */
export async function enforceRateLimit(
  bucket: string,
  key: string,
  limit: number,
  windowSeconds: number,
  manager?: EntityManager,
): Promise<void> {
  const result = await consumeRateLimit(bucket, key, limit, windowSeconds, manager)
  if (!result.allowed) {
    throw new AppError('rate_limited', 'Too many requests; try again later.', {
      headers: { 'Retry-After': String(result.retryAfterSeconds) },
      details: { retryAfterSeconds: result.retryAfterSeconds },
    })
  }
}

/**
 * Deletes buckets whose window ended more than `olderThanSeconds` ago. For the worker's hourly cleanup;
 * correctness never depends on it (an old bucket restarts its window on the next request).
 */
export async function purgeRateLimitBuckets(
  olderThanSeconds = 86_400,
  manager: EntityManager = em(),
): Promise<number> {
  const rows = await manager.execute<{ n: number }[]>(
    `with gone as (delete from rate_limit_buckets where window_start < now() - make_interval(secs => ?) returning 1)
     select count(*)::int as n from gone`,
    [olderThanSeconds],
  )
  return Number(rows[0]?.n ?? 0)
}
