import { getConfig } from '#app/lib/config.server.ts'
import { log } from '#app/lib/logger.server.ts'
import { deleteAiRunsOlderThan } from '#app/services/ai/runs.server.ts'
import { deleteUnreferencedAttachments } from '#app/services/attachments/attachments.server.ts'
import { deleteAuditRowsOlderThan } from '#app/services/audit/store.server.ts'
import { deleteExpiredSessions } from '#app/services/auth/store.server.ts'
import { deleteExpiredRateLimitBuckets } from '#app/services/rate-limit/store.server.ts'
import { releaseLease, takeLease } from '#app/services/index-queue/lease.server.ts'
import { pruneWorkers } from '#app/services/index-queue/store.server.ts'
import { deleteExpiredUsedStates } from '#app/services/sso/store.server.ts'
import { em } from '#db/orm.ts'
import { WORKER_LIVENESS } from '#app/services/index-queue/health.server.ts'

/**
 * The hourly cleanup of the worker (spec part 5, item 7): expired sessions, rate-limit buckets and used SSO
 * flow states (decision 018), AI run records older than GLOSSARY_AI_RUN_RETENTION_DAYS, audit rows older than
 * GLOSSARY_AUDIT_RETENTION_DAYS, attachments no revision references older than
 * GLOSSARY_ATTACHMENT_RETENTION_DAYS, and the heartbeat rows of workers gone for a day (killed ones never
 * delete their own; orphaned index rows are the relay's, every few seconds). Several workers
 * agree through a lease (`lease.cleanup` in app_setting) that one of them runs it at a time. It logs what it
 * removed.
 */

export const CLEANUP_EVERY_MS = 60 * 60_000
const LEASE_MS = 10 * 60_000
const DAY_MS = 24 * 60 * 60_000

export interface CleanupReport {
  sessions: number
  rateLimitBuckets: number
  ssoUsedStates: number
  aiRuns: number
  auditRows: number
  attachments: number
  deadWorkers: number
}

/** One cleanup pass, or null when another worker holds the lease. */
export async function runCleanup(holder: string, now = new Date()): Promise<CleanupReport | null> {
  if (!(await takeLease(em(), 'cleanup', holder, LEASE_MS))) return null
  try {
    const days = getConfig().retentionDays
    const report: CleanupReport = {
      sessions: await deleteExpiredSessions(now),
      rateLimitBuckets: await deleteExpiredRateLimitBuckets(now),
      ssoUsedStates: await deleteExpiredUsedStates(now),
      aiRuns: await deleteAiRunsOlderThan(new Date(now.getTime() - days.aiRuns * DAY_MS)),
      auditRows: await deleteAuditRowsOlderThan(new Date(now.getTime() - days.audit * DAY_MS)),
      attachments: await deleteUnreferencedAttachments(new Date(now.getTime() - days.attachments * DAY_MS)),
      deadWorkers: await pruneWorkers(em(), WORKER_LIVENESS.forgetAfterMs),
    }
    log().info({ removed: report }, 'cleanup done')
    return report
  } finally {
    await releaseLease(em(), 'cleanup', holder)
  }
}

/** Runs the cleanup now and every hour until stopped. */
export function scheduleCleanup(holder: string): { stop(): void } {
  const pass = () => {
    runCleanup(holder).catch((err) => log().warn({ err }, 'cleanup failed'))
  }
  const first = setTimeout(pass, 5_000)
  first.unref()
  const timer = setInterval(pass, CLEANUP_EVERY_MS)
  timer.unref()
  return {
    stop() {
      clearTimeout(first)
      clearInterval(timer)
    },
  }
}
