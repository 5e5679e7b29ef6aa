import type { z } from 'zod'
import type { UserListItemSchema, UserSchema } from '#app/schemas/identity.ts'
import { isUuid } from '#domain/ids.ts'
import type { EntityManager } from '@mikro-orm/postgresql'
import { AppError } from '#app/lib/errors.server.ts'
import { em } from '#db/orm.ts'
import { recordAudit, type AuditActor, type ClientInfo } from '#app/services/audit/audit.server.ts'
import { lockAdmins, removeWriteScope } from '#app/services/auth/store.server.ts'
import {
  countOtherAdmins,
  selectUser,
  selectUserPage,
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
    items: items.map((user) => ({ ...toUserDto(user), createdAt: user.createdAt })),
    total,
    page: query.page,
  }
}

/**
 * `PATCH /admin/users/{id}`: an admin changes a role. The last admin is never demoted, an agent never becomes
 * admin, and a demotion to viewer takes `write` away from the account's active keys (a key never exceeds
 * what its owner's role allows; a key left with no scope is revoked).
 */
export async function changeUserRole(options: {
  userId: string
  role: Role
  actor: AuditActor
  client: ClientInfo
}): Promise<UserDto> {
  if (!isUuid(options.userId)) throw new AppError('not_found', 'No such user.')
  return em().transactional(async (tx) => {
    await lockAdmins(tx)
    const found = await selectUser(tx, options.userId)
    if (!found) throw new AppError('not_found', 'No such user.')
    const from = found.role
    if (from === options.role) return toUserDto(found)
    const user = { ...found, role: options.role }
    if (options.role === 'admin' && user.authType === 'agent') {
      throw new AppError('forbidden', 'An agent account can never be an admin.')
    }
    if (from === 'admin') {
      await assertNotLastAdmin(tx, user.id, 'The last admin cannot lose the admin role.')
    }
    await updateUserRole(tx, user.id, user.role)
    if (user.role === 'viewer') await removeWriteScope(tx, user.id)
    await recordAudit(
      {
        action: 'user.role_change',
        actor: options.actor,
        target: userTarget(user.id),
        client: options.client,
        details: { email: user.email, from, to: options.role },
      },
      tx,
    )
    return toUserDto(user)
  })
}
