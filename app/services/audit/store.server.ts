import type { z } from 'zod'
import type { AuditListSchema } from '#app/schemas/identity.ts'
import type { EntityManager } from '@mikro-orm/postgresql'
import { countChanged, iso, pageTotal, parseJson, where } from '#db/sql.ts'
import { em } from '#db/orm.ts'

/**
 * The data access of the audit log: every SQL statement on `audit_log` and its row mapper. What may be
 * written (the actions, the scrubbing of secrets) is decided in audit.server.ts.
 */

export interface AuditRowInput {
  action: string
  actorUserId: string | null
  actorLabel: string | null
  targetType: string | null
  targetId: string | null
  ip: string | null
  userAgent: string | null
  details: Record<string, unknown>
}

/**
 * Inserts one record at once (not a deferred flush). `at` is left to the column default, the database clock,
 * so records from several processes order truly.
 */
export async function insertAuditRow(manager: EntityManager, row: AuditRowInput): Promise<void> {
  await manager.execute(
    `insert into audit_log (id, action, actor_user_id, actor_label, target_type, target_id, ip, user_agent, details)
     values (gen_random_uuid(), ?, ?, ?, ?, ?, ?, ?, ?::jsonb)`,
    [
      row.action,
      row.actorUserId,
      row.actorLabel,
      row.targetType,
      row.targetId,
      row.ip,
      row.userAgent,
      JSON.stringify(row.details),
    ],
    'run',
  )
}

/** An item of the `AuditListSchema` of the API, inferred: the answer and its documentation cannot differ. */
export type AuditItemDto = z.output<typeof AuditListSchema>['items'][number]

interface AuditRow {
  id: string
  at: Date | string
  action: string
  actor_user_id: string | null
  actor_label: string | null
  target_type: string | null
  target_id: string | null
  ip: string | null
  user_agent: string | null
  details: unknown
}

function toAuditItemDto(row: AuditRow): AuditItemDto {
  return {
    id: row.id,
    at: iso(row.at),
    action: row.action,
    actorId: row.actor_user_id,
    actorLabel: row.actor_label,
    targetType: row.target_type,
    targetId: row.target_id,
    ip: row.ip,
    userAgent: row.user_agent,
    details: parseJson<Record<string, unknown>>(row.details),
  }
}

export interface AuditFilter {
  action?: string
  actorId?: string
  /** Inclusive. */
  from?: Date
  /** Exclusive. */
  to?: Date
}

/** One page of records, newest first, and how many match in all. */
export async function selectAuditPage(
  manager: EntityManager,
  filter: AuditFilter,
  limit: number,
  offset: number,
): Promise<{ items: AuditItemDto[]; total: number }> {
  const filtered = where(
    filter.action && ['action = ?', filter.action],
    filter.actorId && ['actor_user_id = ?', filter.actorId],
    filter.from && ['at >= ?::timestamptz', filter.from.toISOString()],
    filter.to && ['at < ?::timestamptz', filter.to.toISOString()],
  )
  const rows = await manager.execute<AuditRow[]>(
    `select id, at, action, actor_user_id, actor_label, target_type, target_id, ip, user_agent, details
       from audit_log ${filtered.sql}
      order by at desc, id desc limit ? offset ?`,
    [...filtered.params, limit, offset],
  )
  const total = await pageTotal(
    { rows, offset, limit },
    {
      manager,
      from: `audit_log ${filtered.sql}`,
      params: filtered.params,
    },
  )
  return { items: rows.map(toAuditItemDto), total }
}

/**
 * Deletes the records written before `date`; returns how many. For the worker's cleanup, which passes the
 * retention cut-off (the record of who did what is kept for the configured number of days).
 */
export function deleteAuditRowsOlderThan(date: Date, manager: EntityManager = em()): Promise<number> {
  return countChanged(manager, 'delete from audit_log where at < ?::timestamptz', [date.toISOString()])
}
