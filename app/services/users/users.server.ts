import type { z } from 'zod'
import type { UserSchema } from '#app/schemas/identity.ts'
import { isUuid } from '#domain/ids.ts'
import type { EntityManager } from '@mikro-orm/postgresql'
import { sql } from '@mikro-orm/core'
import { AppError } from '#app/lib/errors.server.ts'
import { User } from '#db/entities/user.entity.ts'
import { em } from '#db/orm.ts'
import { containsPattern } from '#db/sql.ts'
import { recordAudit, type AuditActor, type ClientInfo } from '#app/services/audit/audit.server.ts'
import { lockAdmins } from '#app/services/auth/locks.server.ts'
import type { AuthType, Role } from '#domain/identity.ts'

/** The `UserSchema` of the API, inferred: the answer and its documentation cannot differ. */
export type UserDto = z.output<typeof UserSchema>

export function toUserDto(user: User): UserDto {
  return { id: user.id, email: user.email, name: user.name, role: user.role, authType: user.authType }
}

export const userTarget = (id: string) => ({ type: 'user', id })

/**
 * The account with this email, whatever its case, through the `users_email_lower_unique` index. With
 * `withPassword` the (lazy, hidden) password hash is loaded too.
 */
export async function findUserByEmail(
  email: string,
  options: { withPassword?: boolean } = {},
  manager: EntityManager = em(),
): Promise<User | null> {
  return manager.findOne(
    User,
    { [sql`lower(email)`]: email.trim().toLowerCase() },
    options.withPassword ? { populate: ['passwordHash'] } : {},
  )
}

/** Throws 403 unless another admin remains besides `userId`. Call inside a transaction holding `lockAdmins`. */
export async function assertNotLastAdmin(tx: EntityManager, userId: string, message: string): Promise<void> {
  const others = await tx.count(User, { role: 'admin', id: { $ne: userId } })
  if (others === 0) throw new AppError('forbidden', message)
}

/** `PATCH /account`: the signed-in user changes their display name (email and role never change here). */
export async function updateAccountName(options: {
  userId: string
  name: string
  client: ClientInfo
}): Promise<UserDto> {
  return em().transactional(async (tx) => {
    const user = await tx.findOne(User, { id: options.userId })
    if (!user) throw new AppError('not_found', 'This account no longer exists.')
    const before = user.name
    user.name = options.name
    await tx.flush()
    if (before !== user.name) {
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

export interface UserListItem extends UserDto {
  createdAt: string
}

/** `GET /admin/users`: accounts ordered by email, 50 per page, filtered by text, role and kind. */
export async function listUsers(query: {
  q?: string
  role?: Role
  authType?: AuthType
  page: number
}): Promise<{ items: UserListItem[]; total: number; page: number }> {
  const where: Record<string, unknown> = {}
  if (query.role) where.role = query.role
  if (query.authType) where.authType = query.authType
  if (query.q) {
    const pattern = containsPattern(query.q)
    where.$or = [{ email: { $ilike: pattern } }, { name: { $ilike: pattern } }]
  }
  const [rows, total] = await em().findAndCount(User, where, {
    orderBy: { email: 'asc' },
    limit: USERS_PAGE_SIZE,
    offset: (query.page - 1) * USERS_PAGE_SIZE,
  })
  return {
    items: rows.map((user) => ({ ...toUserDto(user), createdAt: user.createdAt.toISOString() })),
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
    const user = await tx.findOne(User, { id: options.userId })
    if (!user) throw new AppError('not_found', 'No such user.')
    const from = user.role
    if (from === options.role) return toUserDto(user)
    if (options.role === 'admin' && user.authType === 'agent') {
      throw new AppError('forbidden', 'An agent account can never be an admin.')
    }
    if (from === 'admin') {
      await assertNotLastAdmin(tx, user.id, 'The last admin cannot lose the admin role.')
    }
    user.role = options.role
    await tx.flush()
    if (options.role === 'viewer') {
      await tx.execute(
        `update api_keys set scopes = array_remove(scopes, 'write') where user_id = ? and revoked_at is null`,
        [user.id],
      )
      await tx.execute(
        `update api_keys set revoked_at = now()
         where user_id = ? and revoked_at is null and cardinality(scopes) = 0`,
        [user.id],
      )
    }
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
