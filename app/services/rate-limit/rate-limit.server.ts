import type { EntityManager } from '@mikro-orm/postgresql'
import { AppError } from '#app/lib/errors.server.ts'
import { em } from '#db/orm.ts'
import { countRequest, MAX_WINDOW_SECONDS } from './store.server.ts'

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
  if (!(windowSeconds > 0 && windowSeconds <= MAX_WINDOW_SECONDS)) {
    throw new Error(`A rate-limit window lasts 1 to ${MAX_WINDOW_SECONDS} seconds, not ${windowSeconds}.`)
  }
  const { count, retryAfterSeconds } = await countRequest(manager, `${bucket}:${key}`, windowSeconds)
  return { allowed: count <= limit, count, limit, retryAfterSeconds }
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
  if (!result.allowed) throw rateLimitedError(result.retryAfterSeconds)
}

/**
 * The one shape of a 429: `rate_limited` with `Retry-After: <seconds>` and `details.retryAfterSeconds`, for the
 * shared buckets above and for limits counted elsewhere (the exports running at once, share/export-slots).
 */
export function rateLimitedError(
  retryAfterSeconds: number,
  message = 'Too many requests; try again later.',
): AppError {
  return new AppError('rate_limited', message, {
    headers: { 'Retry-After': String(retryAfterSeconds) },
    details: { retryAfterSeconds },
  })
}
