import { getConfig } from '#app/lib/config.server.ts'
import { indexHealth, type IndexHealth } from '#app/services/index-queue/health.server.ts'
import { getDb } from '#db/orm.ts'
import { pendingMigrations, releaseMismatch } from '#db/migrator.ts'
import { pingQueue } from '#pipeline/transport.ts'

export interface ReadinessReport {
  /**
   * This web process can serve: the database answers, no migration is pending, the database is at this process's
   * release (spec "Versioning"), Redis answers when configured.
   */
  ready: boolean
  checks: {
    database: string
    migrations: string
    release: string
    queue: string
    workers: string
    index: string
  }
  /**
   * The background pipeline as operators see it (decision 027): live workers, the index queue (the oldest due
   * row's wait), paused providers and the problems among them. A dead worker does not make the web unready —
   * pages, the API and search still answer — so it is reported here, not by the status code.
   */
  index?: IndexHealth
}

/** `/readyz`: whether this web can serve (the status), and what an operator should know about the rest. */
export async function checkReadiness(): Promise<ReadinessReport> {
  const checks = {
    database: 'ok',
    migrations: 'ok',
    release: 'ok',
    queue: 'not configured (in-process)',
    workers: 'unknown',
    index: 'unknown',
  }
  let ready = true
  let index: IndexHealth | undefined
  try {
    await getDb().em.getConnection().execute('select 1')
    const pending = await pendingMigrations()
    const mismatch = await releaseMismatch()
    if (mismatch) {
      checks.release = mismatch
      ready = false
    }
    if (pending.length) {
      checks.migrations = `${pending.length} pending`
      ready = false
    } else {
      index = await indexHealth()
      checks.workers = index.workers.length ? `${index.workers.length} live` : 'none live'
      checks.index = indexSummary(index)
    }
  } catch {
    checks.database = 'unreachable'
    checks.migrations = 'unknown'
    checks.release = 'unknown'
    ready = false
  }
  if (getConfig().redisUrl) {
    checks.queue = (await pingQueue()) ? 'ok' : 'unreachable'
    if (checks.queue !== 'ok') ready = false
  }
  return { ready, checks, ...(index ? { index } : {}) }
}

function indexSummary(index: IndexHealth): string {
  const { queue } = index
  const parts: string[] = []
  if (index.problems.includes('no_live_worker')) parts.push('no live worker')
  if (index.run)
    parts.push(
      `full reindex ${index.run.phase}: ${index.run.sourcesDone} of ${index.run.sourcesTotal} sources`,
    )
  if (queue.oldestDueSeconds !== null) parts.push(`oldest due row waiting ${queue.oldestDueSeconds} s`)
  for (const p of index.paused) parts.push(`${p.provider} provider paused until ${p.until}`)
  if (queue.failed) parts.push(`${queue.failed} failed`)
  return parts.length ? parts.join('; ') : 'ok'
}
