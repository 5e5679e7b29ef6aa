import type { EntityManager } from '@mikro-orm/postgresql'
import { em } from '#db/orm.ts'
import { countChanged, isoOrNull, parseJson, textArray } from '#db/sql.ts'
import type { ActorUser } from '#domain/identity.ts'

/**
 * The data access of single sign-on: the one `sso_config` row, `user_identities` (external identity → account),
 * `sso_identity_blocks` (identities of deleted accounts, as SHA-256) and `sso_used_states` (redeemed flows).
 * The rules are in the services next to it (settings.server.ts, flow.server.ts, proxy.server.ts;
 * docs/decisions/018-single-sign-on.md).
 */

export interface SsoConfigRow {
  /** The administrator's settings as stored (validated by the service on read). */
  settings: Record<string, unknown>
  clientSecretEncrypted: string | null
  lastClaimKeys: string[]
  lastLoginAt: string | null
  updatedBy: string | null
}

interface RawConfigRow {
  settings: unknown
  client_secret_encrypted: string | null
  last_claim_keys: string[] | null
  last_login_at: Date | string | null
  updated_by: string | null
}

/** The stored SSO row, or undefined before the first save. */
export async function selectSsoConfig(manager: EntityManager): Promise<SsoConfigRow | undefined> {
  const rows = await manager.execute<RawConfigRow[]>(
    `select settings, client_secret_encrypted, last_claim_keys, last_login_at, updated_by
       from sso_config where id = 1`,
  )
  const row = rows[0]
  if (!row) return undefined
  return {
    settings: parseJson<Record<string, unknown>>(row.settings) ?? {},
    clientSecretEncrypted: row.client_secret_encrypted,
    lastClaimKeys: row.last_claim_keys ?? [],
    lastLoginAt: isoOrNull(row.last_login_at),
    updatedBy: row.updated_by,
  }
}

/** Stores the settings and the (encrypted) secret, naming who saved. */
export async function upsertSsoSettings(
  manager: EntityManager,
  values: { settings: Record<string, unknown>; clientSecretEncrypted: string | null; updatedBy: string },
): Promise<void> {
  await manager.execute(
    `insert into sso_config (id, settings, client_secret_encrypted, updated_by, updated_at)
     values (1, ?::jsonb, ?, ?, now())
     on conflict (id) do update set settings = excluded.settings,
       client_secret_encrypted = excluded.client_secret_encrypted,
       updated_by = excluded.updated_by, updated_at = now()`,
    [JSON.stringify(values.settings), values.clientSecretEncrypted, values.updatedBy],
    'run',
  )
}

/** Records the claim names of the latest SSO login and its time (creates the row when never saved). */
export async function updateLastLogin(manager: EntityManager, claimKeys: readonly string[]): Promise<void> {
  await manager.execute(
    `insert into sso_config (id, last_claim_keys, last_login_at) values (1, ?::text[], now())
     on conflict (id) do update set last_claim_keys = excluded.last_claim_keys, last_login_at = now()`,
    [textArray(claimKeys)],
    'run',
  )
}

// ------------------------------------------------------------------------------------------ identities

/** The account linked to an external identity. */
export async function selectUserByIdentity(
  manager: EntityManager,
  provider: string,
  subject: string,
): Promise<ActorUser | undefined> {
  const rows = await manager.execute<
    (Omit<ActorUser, 'deactivatedAt'> & { deactivatedAt: Date | string | null })[]
  >(
    `select u.id, u.email, u.name, u.role, u.auth_type as "authType", u.deactivated_at as "deactivatedAt"
       from user_identities i join users u on u.id = i.user_id
      where i.provider = ? and i.subject = ?`,
    [provider, subject],
  )
  const row = rows[0]
  return row && { ...row, deactivatedAt: isoOrNull(row.deactivatedAt) }
}

/** Whether the account has any linked identity. */
export async function userHasIdentity(manager: EntityManager, userId: string): Promise<boolean> {
  const rows = await manager.execute('select 1 from user_identities where user_id = ? limit 1', [userId])
  return rows.length > 0
}

/** Links an identity to an account; a second link of the same identity fails on `unique (provider, subject)`. */
export async function insertIdentity(
  manager: EntityManager,
  identity: { userId: string; provider: string; subject: string },
): Promise<void> {
  await manager.execute(
    `insert into user_identities (id, user_id, provider, subject, created_at)
     values (gen_random_uuid(), ?, ?, ?, now())`,
    [identity.userId, identity.provider, identity.subject],
    'run',
  )
}

/** The identities linked to an account. */
export async function selectIdentities(
  manager: EntityManager,
  userId: string,
): Promise<{ provider: string; subject: string }[]> {
  return manager.execute<{ provider: string; subject: string }[]>(
    'select provider, subject from user_identities where user_id = ?',
    [userId],
  )
}

// ------------------------------------------------------------------------------------------- blocks

export async function insertIdentityBlock(manager: EntityManager, identityHash: string): Promise<void> {
  await manager.execute(
    'insert into sso_identity_blocks (identity_hash) values (?) on conflict (identity_hash) do nothing',
    [identityHash],
    'run',
  )
}

export async function identityBlockExists(manager: EntityManager, identityHash: string): Promise<boolean> {
  const rows = await manager.execute('select 1 from sso_identity_blocks where identity_hash = ?', [
    identityHash,
  ])
  return rows.length > 0
}

export async function deleteIdentityBlock(manager: EntityManager, identityHash: string): Promise<void> {
  await manager.execute('delete from sso_identity_blocks where identity_hash = ?', [identityHash], 'run')
}

/** Updates what a sign-in may change on an account: name, email, role. */
export async function updateUserFromIdentity(
  manager: EntityManager,
  userId: string,
  values: { name: string; email: string; role: string },
): Promise<void> {
  await manager.execute(
    'update users set name = ?, email = ?, role = ?, updated_at = now() where id = ?',
    [values.name, values.email, values.role, userId],
    'run',
  )
}

// --------------------------------------------------------------------------------------- used states

/**
 * Records a flow's state (its SHA-256) as used until `expiresAt`, in one statement, so of two callbacks with
 * the same state — in one process or several — exactly one gets true.
 */
export async function insertUsedState(
  manager: EntityManager,
  stateHash: string,
  expiresAt: Date,
): Promise<boolean> {
  const rows = await manager.execute(
    `insert into sso_used_states (state_hash, expires_at) values (?, ?::timestamptz)
     on conflict (state_hash) do nothing returning state_hash`,
    [stateHash, expiresAt.toISOString()],
  )
  return rows.length > 0
}

/** Removes used states whose flow has expired by `now` (the flow cookie is refused then anyway). */
export function deleteExpiredUsedStates(now: Date, manager: EntityManager = em()): Promise<number> {
  return countChanged(manager, 'delete from sso_used_states where expires_at <= ?::timestamptz', [
    now.toISOString(),
  ])
}
