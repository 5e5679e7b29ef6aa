import { getConfig } from '#app/lib/config.server.ts'
import { getDb } from '#db/orm.ts'
import { pendingMigrations } from '#db/migrator.ts'
import { pingQueue } from '#pipeline/transport.ts'

export interface ReadinessReport {
  ready: boolean
  checks: { database: string; migrations: string; queue: string }
}

/** `/readyz`: the database answers, no migration is pending, and Redis answers when it is configured. */
export async function checkReadiness(): Promise<ReadinessReport> {
  const checks = { database: 'ok', migrations: 'ok', queue: 'not configured (in-process)' }
  let ready = true
  try {
    await getDb().em.getConnection().execute('select 1')
    const pending = await pendingMigrations()
    if (pending.length) {
      checks.migrations = `${pending.length} pending`
      ready = false
    }
  } catch {
    checks.database = 'unreachable'
    checks.migrations = 'unknown'
    ready = false
  }
  if (getConfig().redisUrl) {
    checks.queue = (await pingQueue()) ? 'ok' : 'unreachable'
    if (checks.queue !== 'ok') ready = false
  }
  return { ready, checks }
}
