import type { EntityManager } from '@mikro-orm/postgresql'
import { selectKeyNames } from '#app/services/auth/store.server.ts'
import { selectUserNames } from '#app/services/users/store.server.ts'
import { em } from '#db/orm.ts'
import type { Actor } from '#domain/identity.ts'
import { isUuid } from '#domain/ids.ts'
import { insertAuditRow, selectAuditPage, type AuditFilter, type AuditItemDto } from './store.server.ts'

/**
 * The audit log: one row per security-relevant event. Write with `recordAudit` (pass the transaction's
 * EntityManager to make the record part of the change it describes); read with `listAudit` (GET /admin/audit).
 */

/** Every action written so far; a feature adds its own here (the read filter accepts any string). */
export const AUDIT_ACTIONS = [
  'setup',
  'admin.seed',
  'auth.login',
  'auth.login_failed',
  'auth.logout',
  'auth.register',
  'account.update',
  'account.delete',
  'key.issue',
  'key.revoke',
  'agent.create',
  'agent.keys_rotate',
  'agent.keys_revoke',
  'user.role_change',
  'user.deactivate',
  'user.reactivate',
  'settings.password_login',
  'settings.validation',
  'settings.sso',
  'settings.search',
  'settings.ai_provider',
  'auth.sso_login',
  'account.sso_refresh',
  'sync.applied',
  'mcp.tool_call',
] as const
export type AuditAction = (typeof AUDIT_ACTIONS)[number]

/** Who acted: an account (its id and, as the label, its email) or the system (`userId` null, e.g. `cli`). */
export interface AuditActor {
  userId: string | null
  label: string
}

/** The audit log's view of a caller: its account, and the key when it came with one. */
export function auditActorOf(actor: Actor | null): AuditActor {
  if (!actor) return { userId: null, label: 'anonymous' }
  return {
    userId: actor.user.id,
    label: actor.via === 'key' ? `${actor.user.email} (key ${actor.keyId})` : actor.user.email,
  }
}

/** Where a request came from; every service that audits takes it from the HTTP layer. */
export interface ClientInfo {
  ip: string
  userAgent: string | null
}

export interface AuditEntry {
  action: AuditAction
  actor: AuditActor | null
  target?: { type: string; id: string | null }
  client?: ClientInfo
  details?: Record<string, unknown>
}

/** Keys that must never reach the log, whatever a caller passes. */
const SECRET_KEY = /password|secret|token|hash|authorization|cookie/i

function scrub(value: unknown, depth = 0): unknown {
  if (depth > 5 || value === null || typeof value !== 'object') return value
  if (Array.isArray(value)) return value.map((item) => scrub(item, depth + 1))
  return Object.fromEntries(
    Object.entries(value as Record<string, unknown>)
      .filter(([key]) => !SECRET_KEY.test(key))
      .map(([key, item]) => [key, scrub(item, depth + 1)]),
  )
}

/**
 * Writes one audit record at once (an INSERT, not a deferred flush), on `manager`: inside `em.transactional`
 * pass the transaction's EntityManager so the record commits or rolls back with the change.
 */
export async function recordAudit(entry: AuditEntry, manager: EntityManager = em()): Promise<void> {
  await insertAuditRow(manager, {
    action: entry.action,
    actorUserId: entry.actor?.userId ?? null,
    actorLabel: entry.actor?.label.slice(0, 320) ?? null,
    targetType: entry.target?.type ?? null,
    targetId: entry.target?.id ?? null,
    ip: entry.client?.ip || null,
    userAgent: entry.client?.userAgent?.slice(0, 500) ?? null,
    details: scrub(entry.details ?? {}) as Record<string, unknown>,
  })
}

export const AUDIT_PAGE_SIZE = 50

export interface AuditQuery extends AuditFilter {
  page: number
}

/** Audit records, newest first, 50 per page; `from` is inclusive and `to` exclusive. */
export async function listAudit(
  query: AuditQuery,
): Promise<{ items: AuditItemDto[]; total: number; page: number }> {
  const { page, ...filter } = query
  const { items, total } = await selectAuditPage(em(), filter, AUDIT_PAGE_SIZE, (page - 1) * AUDIT_PAGE_SIZE)
  return { items, total, page }
}

/** Who and what a page of audit records names, by id: accounts and keys that still exist. */
export interface AuditParties {
  users: Record<string, { name: string; email: string }>
  keys: Record<string, { name: string; prefix: string }>
}

/**
 * The names behind the ids of some audit records (the /admin/audit page shows names, not UUIDs): one query
 * for the accounts (actors and user targets), one for the keys. An id missing from the answer was deleted.
 */
export async function auditParties(
  items: readonly AuditItemDto[],
  /** Accounts to name besides those of the records (the page's actor filter). */
  alsoUserIds: readonly string[] = [],
): Promise<AuditParties> {
  const userIds = new Set<string>(alsoUserIds)
  const keyIds = new Set<string>()
  for (const item of items) {
    if (item.actorId) userIds.add(item.actorId)
    if (item.targetType === 'user' && item.targetId) userIds.add(item.targetId)
    if (item.targetType === 'api_key' && item.targetId) keyIds.add(item.targetId)
  }
  const users = await selectUserNames(em(), [...userIds].filter(isUuid))
  const keys = await selectKeyNames(em(), [...keyIds].filter(isUuid))
  return {
    users: Object.fromEntries(users.map((user) => [user.id, { name: user.name, email: user.email }])),
    keys: Object.fromEntries(keys.map((key) => [key.id, { name: key.name, prefix: key.prefix }])),
  }
}
