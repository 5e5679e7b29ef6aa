import type { EntityManager } from '@mikro-orm/postgresql'
import { containsPattern, iso, isoOrNull, pageTotal, uuidArray, where, windowTotal } from '#db/sql.ts'
import type { AuthType, Role } from '#domain/identity.ts'

/**
 * The data access of accounts: every SQL statement on `users` and its row mapper. The rules (who may change a
 * role, the last admin, what a deletion removes, audit records) are in the services next to it; sessions and
 * API keys are in `app/services/auth/store.server.ts`.
 */

/** An account as the services handle it. The password hash is only read when asked for. */
export interface UserRecord {
  id: string
  email: string
  name: string
  role: Role
  authType: AuthType
  createdAt: string
  /** When an admin deactivated the account (ISO 8601); null while it is active. */
  deactivatedAt: string | null
}

interface UserRow {
  id: string
  email: string
  name: string
  role: Role
  auth_type: AuthType
  created_at: Date | string
  deactivated_at: Date | string | null
  password_hash?: string | null
}

const COLUMNS = 'id, email, name, role, auth_type, created_at, deactivated_at'

function toUser(row: UserRow): UserRecord {
  return {
    id: row.id,
    email: row.email,
    name: row.name,
    role: row.role,
    authType: row.auth_type,
    createdAt: iso(row.created_at),
    deactivatedAt: isoOrNull(row.deactivated_at),
  }
}

function withPasswordHash(row: UserRow): UserRecord & { passwordHash: string | null } {
  return { ...toUser(row), passwordHash: row.password_hash ?? null }
}

export interface NewUser {
  /** Lowercase (a check constraint refuses anything else). */
  email: string
  name: string
  role: Role
  authType: AuthType
  passwordHash: string | null
}

/** Inserts an account. A taken email fails with `UniqueConstraintViolationException` (`users_email_lower_unique`). */
export async function insertUser(manager: EntityManager, user: NewUser): Promise<UserRecord> {
  const rows = await manager.execute<UserRow[]>(
    `insert into users (id, email, name, role, auth_type, password_hash, created_at, updated_at)
     values (gen_random_uuid(), ?, ?, ?, ?, ?, now(), now()) returning ${COLUMNS}`,
    [user.email, user.name, user.role, user.authType, user.passwordHash],
  )
  return toUser(rows[0]!)
}

/** The account with this id (a UUID: the caller checks), with its password hash. */
export async function selectUser(
  manager: EntityManager,
  id: string,
): Promise<(UserRecord & { passwordHash: string | null }) | undefined> {
  const rows = await manager.execute<UserRow[]>(`select ${COLUMNS}, password_hash from users where id = ?`, [
    id,
  ])
  return rows[0] && withPasswordHash(rows[0])
}

/** The account with this email, whatever its case (the `users_email_lower_unique` index), with its password hash. */
export async function selectUserByEmail(
  manager: EntityManager,
  email: string,
): Promise<(UserRecord & { passwordHash: string | null }) | undefined> {
  const rows = await manager.execute<UserRow[]>(
    `select ${COLUMNS}, password_hash from users where lower(email) = ?`,
    [email.trim().toLowerCase()],
  )
  return rows[0] && withPasswordHash(rows[0])
}

/** Whether any account exists. */
export async function anyUserExists(manager: EntityManager): Promise<boolean> {
  const rows = await manager.execute('select 1 from users limit 1')
  return rows.length > 0
}

/** How many active admins there are besides `userId` (a deactivated admin cannot act, so it does not count). */
export async function countOtherAdmins(manager: EntityManager, userId: string): Promise<number> {
  const rows = await manager.execute<{ n: number }[]>(
    `select count(*)::int as n from users where role = 'admin' and deactivated_at is null and id <> ?`,
    [userId],
  )
  return Number(rows[0]?.n ?? 0)
}

export async function updateUserName(manager: EntityManager, id: string, name: string): Promise<void> {
  await manager.execute('update users set name = ?, updated_at = now() where id = ?', [name, id], 'run')
}

export async function updateUserRole(manager: EntityManager, id: string, role: Role): Promise<void> {
  await manager.execute('update users set role = ?, updated_at = now() where id = ?', [role, id], 'run')
}

/** Deactivates (`deactivated` true: from now) or reactivates an account; returns the new `deactivatedAt`. */
export async function updateUserDeactivated(
  manager: EntityManager,
  id: string,
  deactivated: boolean,
): Promise<string | null> {
  const rows = await manager.execute<{ deactivated_at: Date | string | null }[]>(
    `update users set deactivated_at = ${deactivated ? 'now()' : 'null'}, updated_at = now()
      where id = ? returning deactivated_at`,
    [id],
  )
  return isoOrNull(rows[0]?.deactivated_at ?? null)
}

/** The names and emails of the accounts among `ids` that still exist (one statement for any number of ids). */
export async function selectUserNames(
  manager: EntityManager,
  ids: readonly string[],
): Promise<{ id: string; name: string; email: string; authType: AuthType }[]> {
  if (ids.length === 0) return []
  const rows = await manager.execute<{ id: string; name: string; email: string; auth_type: AuthType }[]>(
    'select id, name, email, auth_type from users where id = any(?::uuid[])',
    [uuidArray(ids)],
  )
  return rows.map((row) => ({ id: row.id, name: row.name, email: row.email, authType: row.auth_type }))
}

export async function deleteUserRow(manager: EntityManager, id: string): Promise<void> {
  await manager.execute('delete from users where id = ?', [id], 'run')
}

export interface UserFilter {
  /** Text in the email or the name (LIKE wildcards taken literally). */
  q?: string
  role?: Role
  authType?: AuthType
}

/** One page of accounts ordered by email, and how many match in all. */
export async function selectUserPage(
  manager: EntityManager,
  filter: UserFilter,
  limit: number,
  offset: number,
): Promise<{ items: UserRecord[]; total: number }> {
  const pattern = filter.q && containsPattern(filter.q)
  const filtered = where(
    filter.role && ['role = ?', filter.role],
    filter.authType && ['auth_type = ?', filter.authType],
    pattern && ['(email ilike ? or name ilike ?)', pattern, pattern],
  )
  const rows = await manager.execute<(UserRow & { total?: string })[]>(
    `select ${COLUMNS}${windowTotal(pattern)} from users ${filtered.sql}
      order by email asc limit ? offset ?`,
    [...filtered.params, limit, offset],
  )
  const total = await pageTotal(
    { rows, offset, limit },
    {
      manager,
      from: `users ${filtered.sql}`,
      params: filtered.params,
    },
  )
  return { items: rows.map(toUser), total }
}
