import type { z } from 'zod'
import type { UserListItemSchema, UserSchema } from '#app/schemas/identity.ts'
import { isUuid } from '#domain/ids.ts'
import type { EntityManager } from '@mikro-orm/postgresql'
import { AppError } from '#app/lib/errors.server.ts'
import { em } from '#db/orm.ts'
import {
  recordAudit,
  type AuditAction,
  type AuditActor,
  type ClientInfo,
} from '#app/services/audit/audit.server.ts'
import { deleteUserSessions, lockAdmins, removeWriteScope } from '#app/services/auth/store.server.ts'
import {
  countOtherAdmins,
  selectUser,
  selectUserPage,
  updateUserDeactivated,
  updateUserName,
  updateUserRole,
  type UserRecord,
} from './store.server.ts'
import type { AuthType, Role } from '#domain/identity.ts'

/** The `UserSchema` of the API, inferred: the answer and its documentation cannot differ. */
export type UserDto = z.output<typeof UserSchema>

export function toUserDto(user: UserRecord): UserDto {
  return { id: user.id, email: user.email, name: user.name, role: user.role, authType: user.authType }
}

export const userTarget = (id: string) => ({ type: 'user', id })

/** Throws 403 unless another admin remains besides `userId`. Call inside a transaction holding `lockAdmins`. */
export async function assertNotLastAdmin(tx: EntityManager, userId: string, message: string): Promise<void> {
  if ((await countOtherAdmins(tx, userId)) === 0) throw new AppError('forbidden', message)
}

/** `PATCH /account`: the signed-in user changes their display name (email and role never change here). */
export async function updateAccountName(options: {
  userId: string
  name: string
  client: ClientInfo
}): Promise<UserDto> {
  return em().transactional(async (tx) => {
    const found = await selectUser(tx, options.userId)
    if (!found) throw new AppError('not_found', 'This account no longer exists.')
    const user = { ...found, name: options.name }
    if (found.name !== user.name) {
      await updateUserName(tx, user.id, user.name)
      await recordAudit(
        {
          action: 'account.update',
          actor: { userId: user.id, label: user.email },
          target: userTarget(user.id),
          client: options.client,
          details: { fields: ['name'] },
        },
        tx,
      )
    }
    return toUserDto(user)
  })
}

export const USERS_PAGE_SIZE = 50

/** The `UserListItemSchema` of the API, inferred. */
export type UserListItem = z.output<typeof UserListItemSchema>

function toUserListItem(user: UserRecord): UserListItem {
  return {
    ...toUserDto(user),
    createdAt: user.createdAt,
    active: user.deactivatedAt === null,
    deactivatedAt: user.deactivatedAt,
  }
}

/** `GET /admin/users`: accounts ordered by email, 50 per page, filtered by text, role and kind. */
export async function listUsers(query: {
  q?: string
  role?: Role
  authType?: AuthType
  page: number
}): Promise<{ items: UserListItem[]; total: number; page: number }> {
  const { items, total } = await selectUserPage(
    em(),
    { q: query.q, role: query.role, authType: query.authType },
    USERS_PAGE_SIZE,
    (query.page - 1) * USERS_PAGE_SIZE,
  )
  return {
    items: items.map(toUserListItem),
    total,
    page: query.page,
  }
}

/**
 * `PATCH /admin/users/{id}`: an admin changes a role, deactivates or reactivates an account, or both at once,
 * in one transaction. Role rules: the last active admin is never demoted, an agent never becomes admin, and a
 * demotion to viewer takes `write` away from the account's active keys (a key never exceeds what its owner's
 * role allows; a key left with no scope is revoked). Deactivation (decision 026): never oneself, never the
 * last active admin; it ends every session of the account at once, and while it lasts the auth gate refuses
 * the account's keys and sign-in. Its keys are kept (they work again after reactivation), its content stays.
 * A member that changes nothing writes nothing.
 */
export async function updateUser(options: {
  userId: string
  role?: Role
  active?: boolean
  actor: AuditActor
  client: ClientInfo
}): Promise<UserListItem> {
  if (!isUuid(options.userId)) throw new AppError('not_found', 'No such user.')
  return em().transactional(async (tx) => {
    await lockAdmins(tx)
    const found = await selectUser(tx, options.userId)
    if (!found) throw new AppError('not_found', 'No such user.')
    const { passwordHash: _hash, ...user } = found
    const audit = (action: AuditAction, details: Record<string, unknown>) =>
      recordAudit(
        { action, actor: options.actor, target: userTarget(user.id), client: options.client, details },
        tx,
      )
    const deactivate = options.active === false && user.deactivatedAt === null
    const reactivate = options.active === true && user.deactivatedAt !== null
    if (deactivate && user.id === options.actor.userId) {
      throw new AppError('forbidden', 'You cannot deactivate your own account; ask another admin.')
    }
    const from = user.role
    const to = options.role ?? from
    if (to !== from) {
      if (to === 'admin' && user.authType === 'agent') {
        throw new AppError('forbidden', 'An agent account can never be an admin.')
      }
      if (from === 'admin')
        await assertNotLastAdmin(tx, user.id, 'The last admin cannot lose the admin role.')
      await updateUserRole(tx, user.id, to)
      if (to === 'viewer') await removeWriteScope(tx, user.id)
      await audit('user.role_change', { email: user.email, from, to })
      user.role = to
    }
    if (deactivate) {
      if (user.role === 'admin') {
        await assertNotLastAdmin(tx, user.id, 'The last active admin cannot be deactivated.')
      }
      user.deactivatedAt = await updateUserDeactivated(tx, user.id, true)
      const sessionsEnded = await deleteUserSessions(tx, user.id)
      await audit('user.deactivate', { email: user.email, sessionsEnded })
    } else if (reactivate) {
      user.deactivatedAt = await updateUserDeactivated(tx, user.id, false)
      await audit('user.reactivate', { email: user.email })
    }
    return toUserListItem(user)
  })
}
