import type { EntityManager } from '@mikro-orm/postgresql'
import { countChanged, iso, isoOrNull, textArray, uuidArray } from '#db/sql.ts'
import { em } from '#db/orm.ts'
import type { ActorUser, Role, Scope } from '#domain/identity.ts'

/**
 * The data access of sign-in: every SQL statement on `sessions` and `api_keys`, the advisory locks the
 * identity services take, and the row mappers. The rules (token formats, constant-time checks, who may hold
 * which scope, audit records) are in the services next to it; the `users` table is in
 * `app/services/users/store.server.ts`.
 */

// ---------------------------------------------------------------------------------------------- locks

/**
 * Transaction-scoped Postgres advisory locks. They serialize a check-then-write across every web process (the
 * lock lives in the database, not in process memory) and are released at commit or rollback. Take them only on
 * a transaction's EntityManager, before the check they protect: under READ COMMITTED each later statement sees
 * what the previous lock holder committed.
 */

/** Serializes first-admin creation (`POST /setup`, `glossary seed-admin`): one admin from N concurrent calls. */
export async function lockSetup(tx: EntityManager): Promise<void> {
  await tx.execute(`select pg_advisory_xact_lock(hashtext('glossary:setup'))`)
}

/**
 * Serializes every change that can lower the number of admins (account deletion, role change), so two admins
 * demoting or deleting each other at once cannot leave none.
 */
export async function lockAdmins(tx: EntityManager): Promise<void> {
  await tx.execute(`select pg_advisory_xact_lock(hashtext('glossary:admins'))`)
}

// ------------------------------------------------------------------------------------------- sessions

/** The owner's columns the auth gate reads with a session or a key (`u` is the joined `users` row). */
const ACTOR_USER_COLUMNS =
  'u.id as user_id, u.email, u.name, u.role, u.auth_type, u.deactivated_at as user_deactivated_at'

interface ActorUserRow {
  user_id: string
  email: string
  name: string
  role: Role
  auth_type: string
  user_deactivated_at: Date | string | null
}

function actorUser(row: ActorUserRow): ActorUser {
  return {
    id: row.user_id,
    email: row.email,
    name: row.name,
    role: row.role,
    authType: row.auth_type,
    deactivatedAt: isoOrNull(row.user_deactivated_at),
  }
}

export interface NewSession {
  tokenHash: string
  userId: string
  expiresAt: Date
  ip: string | null
  userAgent: string | null
}

/** Inserts a session; returns its id. */
export async function insertSession(manager: EntityManager, session: NewSession): Promise<string> {
  const rows = await manager.execute<{ id: string }[]>(
    `insert into sessions (id, token_hash, user_id, created_at, expires_at, ip, user_agent)
     values (gen_random_uuid(), ?, ?, now(), ?::timestamptz, ?, ?) returning id`,
    [session.tokenHash, session.userId, session.expiresAt.toISOString(), session.ip, session.userAgent],
  )
  return rows[0]!.id
}

/** A live session and its user, as the auth gate needs them. */
export interface LiveSession {
  id: string
  user: ActorUser
}

/** The session with this token hash that expires after `now`, with its user; undefined otherwise. */
export async function selectLiveSession(
  manager: EntityManager,
  tokenHash: string,
  now: Date,
): Promise<LiveSession | undefined> {
  const rows = await manager.execute<({ id: string } & ActorUserRow)[]>(
    `select s.id, ${ACTOR_USER_COLUMNS}
       from sessions s join users u on u.id = s.user_id
      where s.token_hash = ? and s.expires_at > ?::timestamptz`,
    [tokenHash, now.toISOString()],
  )
  const row = rows[0]
  return row && { id: row.id, user: actorUser(row) }
}

export async function deleteSessionRow(manager: EntityManager, sessionId: string): Promise<void> {
  await manager.execute('delete from sessions where id = ?', [sessionId], 'run')
}

export async function updateSessionExpiry(
  manager: EntityManager,
  sessionId: string,
  expiresAt: Date,
): Promise<void> {
  await manager.execute(
    'update sessions set expires_at = ?::timestamptz where id = ?',
    [expiresAt.toISOString(), sessionId],
    'run',
  )
}

/** Deletes every session of a user; returns how many there were. */
export function deleteUserSessions(manager: EntityManager, userId: string): Promise<number> {
  return countChanged(manager, 'delete from sessions where user_id = ?', [userId])
}

/**
 * Deletes the sessions that expired at or before `now`; returns how many. For the worker's hourly cleanup:
 * an expired session already counts as none at sign-in, so this only keeps the table small.
 */
export function deleteExpiredSessions(now: Date, manager: EntityManager = em()): Promise<number> {
  return countChanged(manager, 'delete from sessions where expires_at <= ?::timestamptz', [now.toISOString()])
}

// ------------------------------------------------------------------------------------------- API keys

/** An API key as the services handle it: never its secret hash. */
export interface ApiKeyRecord {
  id: string
  userId: string
  name: string
  prefix: string
  scopes: Scope[]
  createdAt: string
  lastUsedAt: string | null
  revokedAt: string | null
}

interface ApiKeyRow {
  id: string
  user_id: string
  name: string
  prefix: string
  scopes: Scope[]
  created_at: Date | string
  last_used_at: Date | string | null
  revoked_at: Date | string | null
}

const KEY_COLUMNS = 'id, user_id, name, prefix, scopes, created_at, last_used_at, revoked_at'

function toApiKey(row: ApiKeyRow): ApiKeyRecord {
  return {
    id: row.id,
    userId: row.user_id,
    name: row.name,
    prefix: row.prefix,
    scopes: row.scopes,
    createdAt: iso(row.created_at),
    lastUsedAt: isoOrNull(row.last_used_at),
    revokedAt: isoOrNull(row.revoked_at),
  }
}

/** Whether any key (revoked ones included) already has this prefix. */
export async function keyPrefixTaken(manager: EntityManager, prefix: string): Promise<boolean> {
  const rows = await manager.execute('select 1 from api_keys where prefix = ?', [prefix])
  return rows.length > 0
}

export interface NewApiKey {
  userId: string
  name: string
  prefix: string
  secretHash: string
  scopes: Scope[]
  expiresAt: Date | null
}

export async function insertApiKey(manager: EntityManager, key: NewApiKey): Promise<ApiKeyRecord> {
  const rows = await manager.execute<ApiKeyRow[]>(
    `insert into api_keys (id, user_id, name, prefix, secret_hash, scopes, created_at, expires_at)
     values (gen_random_uuid(), ?, ?, ?, ?, ?::text[], now(), ?::timestamptz) returning ${KEY_COLUMNS}`,
    [
      key.userId,
      key.name,
      key.prefix,
      key.secretHash,
      textArray(key.scopes),
      key.expiresAt?.toISOString() ?? null,
    ],
  )
  return toApiKey(rows[0]!)
}

/** The active key with this prefix, its secret hash and its owner, as the auth gate needs them. */
export interface ActiveKeyRow {
  id: string
  secretHash: string
  scopes: Scope[]
  user: ActorUser
  /** Milliseconds since the epoch, or null for a key that never expires. */
  expiresAt: number | null
}

/** The key with this prefix, unless revoked or expired, with its owner (one joined select). */
export async function selectActiveKey(
  manager: EntityManager,
  prefix: string,
): Promise<ActiveKeyRow | undefined> {
  const rows = await manager.execute<
    ({ id: string; secret_hash: string; scopes: Scope[]; expires_at: Date | string | null } & ActorUserRow)[]
  >(
    `select k.id, k.secret_hash, k.scopes, k.expires_at, ${ACTOR_USER_COLUMNS}
       from api_keys k join users u on u.id = k.user_id
      where k.prefix = ? and k.revoked_at is null and (k.expires_at is null or k.expires_at > now())`,
    [prefix],
  )
  const row = rows[0]
  return (
    row && {
      id: row.id,
      secretHash: row.secret_hash,
      scopes: row.scopes,
      user: actorUser(row),
      expiresAt: row.expires_at === null ? null : new Date(row.expires_at).getTime(),
    }
  )
}

/**
 * Records uses of keys (spec: each use updates `last_used_at`): one statement for many keys, each set to the
 * time of its latest use and never moved backwards.
 */
export async function recordKeyUses(
  manager: EntityManager,
  uses: readonly (readonly [keyId: string, at: Date])[],
): Promise<void> {
  await manager.execute(
    `update api_keys k set last_used_at = greatest(k.last_used_at, u.at)
       from unnest(?::uuid[], ?::timestamptz[]) as u(id, at)
      where k.id = u.id`,
    [uuidArray(uses.map(([id]) => id)), textArray(uses.map(([, at]) => at.toISOString()))],
    'run',
  )
}

/** A user's keys, newest first, revoked ones included. */
export async function selectUserKeys(manager: EntityManager, userId: string): Promise<ApiKeyRecord[]> {
  const rows = await manager.execute<ApiKeyRow[]>(
    `select ${KEY_COLUMNS} from api_keys where user_id = ? order by created_at desc, id asc`,
    [userId],
  )
  return rows.map(toApiKey)
}

/** The key `keyId` if `userId` owns it. */
export async function selectUserKey(
  manager: EntityManager,
  userId: string,
  keyId: string,
): Promise<ApiKeyRecord | undefined> {
  const rows = await manager.execute<ApiKeyRow[]>(
    `select ${KEY_COLUMNS} from api_keys where id = ? and user_id = ?`,
    [keyId, userId],
  )
  return rows[0] && toApiKey(rows[0])
}

export async function revokeKeyRow(manager: EntityManager, keyId: string): Promise<void> {
  await manager.execute('update api_keys set revoked_at = now() where id = ?', [keyId], 'run')
}

/** Revokes every active key of a user; returns how many were active. */
export function revokeUserKeyRows(manager: EntityManager, userId: string): Promise<number> {
  return countChanged(
    manager,
    'update api_keys set revoked_at = now() where user_id = ? and revoked_at is null',
    [userId],
  )
}

/**
 * Takes `write` away from a user's active keys, and revokes those left with no scope (a key never exceeds
 * what its owner's role allows).
 */
export async function removeWriteScope(manager: EntityManager, userId: string): Promise<void> {
  await manager.execute(
    `update api_keys set scopes = array_remove(scopes, 'write') where user_id = ? and revoked_at is null`,
    [userId],
    'run',
  )
  await manager.execute(
    `update api_keys set revoked_at = now()
      where user_id = ? and revoked_at is null and cardinality(scopes) = 0`,
    [userId],
    'run',
  )
}

/** Deletes every key of a user; returns how many there were. */
export function deleteUserKeys(manager: EntityManager, userId: string): Promise<number> {
  return countChanged(manager, 'delete from api_keys where user_id = ?', [userId])
}

/** The names and prefixes of the keys among `ids` that still exist (one statement for any number of ids). */
export async function selectKeyNames(
  manager: EntityManager,
  ids: readonly string[],
): Promise<{ id: string; name: string; prefix: string }[]> {
  if (ids.length === 0) return []
  return manager.execute<{ id: string; name: string; prefix: string }[]>(
    'select id, name, prefix from api_keys where id = any(?::uuid[])',
    [uuidArray(ids)],
  )
}
