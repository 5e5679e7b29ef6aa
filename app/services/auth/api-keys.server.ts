import type { z } from 'zod'
import type { KeyListItemSchema } from '#app/schemas/identity.ts'
import crypto from 'node:crypto'
import type { EntityManager } from '@mikro-orm/postgresql'
import { AppError } from '#app/lib/errors.server.ts'
import { recordAudit, type AuditActor, type ClientInfo } from '#app/services/audit/audit.server.ts'
import { isUuid } from '#domain/ids.ts'
import { em } from '#db/orm.ts'
import {
  insertApiKey,
  keyPrefixTaken,
  revokeKeyRow,
  selectActiveKey,
  selectUserKey,
  selectUserKeys,
  type ApiKeyRecord,
} from './store.server.ts'
import { cachedKey, flushKeyUses, noteKeyUse, rememberKey } from './key-cache.server.ts'
import { digestsEqual, randomToken, sha256 } from './tokens.server.ts'
import type { ActorUser, Role, Scope } from '#domain/identity.ts'

/**
 * API keys: `glk_<prefix>_<secret>`. The prefix is 8 lowercase hex characters of fixed width, so an underscore
 * inside the secret never breaks parsing. The scheme word `Bearer` is case-insensitive; the token is not.
 */
const TOKEN = /^glk_([0-9a-f]{8})_([A-Za-z0-9_-]{20,200})$/
const DUMMY_HASH = sha256('no-such-key')

export interface ParsedKey {
  prefix: string
  secret: string
}

/** Parses an Authorization header value; undefined when it is not a well-formed bearer API key. */
export function parseAuthorization(header: string): ParsedKey | undefined {
  const match = /^\s*(\S+)\s+(\S+)\s*$/.exec(header)
  if (!match || match[1]!.toLowerCase() !== 'bearer') return undefined
  const token = TOKEN.exec(match[2]!)
  return token ? { prefix: token[1]!, secret: token[2]! } : undefined
}

export interface IssuedKey {
  key: ApiKeyRecord
  token: string
}

/** Creates a key for a user; the plaintext token exists only in the return value. */
export async function issueApiKey(
  options: { userId: string; name: string; scopes: Scope[]; expiresAt?: Date | null },
  manager: EntityManager = em(),
): Promise<IssuedKey> {
  const secret = randomToken(32)
  // The prefix is unique (an index); retry on the rare collision of 32 random bits.
  for (let attempt = 0; ; attempt++) {
    const prefix = crypto.randomBytes(4).toString('hex')
    if (attempt < 5 && (await keyPrefixTaken(manager, prefix))) continue
    const key = await insertApiKey(manager, {
      userId: options.userId,
      name: options.name,
      prefix,
      secretHash: sha256(secret),
      scopes: [...new Set(options.scopes)],
      expiresAt: options.expiresAt ?? null,
    })
    return { key, token: `glk_${prefix}_${secret}` }
  }
}

/** An active key and its owner, as the auth gate needs them. */
export interface ActiveKey {
  id: string
  scopes: Scope[]
  user: ActorUser
}

/**
 * The active key behind a parsed token, with its user. Revoked and expired keys are filtered out at lookup;
 * the secret is compared in constant time, and an unknown prefix costs the same comparison.
 *
 * One plain statement (`selectActiveKey`), not ORM entities: this runs on every API call, and loading the
 * key and its user as entities cost about ten times as much (bench/api-overhead.bench.ts). On the embedded
 * database a verified key is then served from memory until a key or user changes, and the use is written
 * after the answer (key-cache.server.ts).
 */
export async function findActiveKey(parsed: ParsedKey): Promise<ActiveKey | null> {
  const presented = sha256(parsed.secret)
  let key = cachedKey(parsed.prefix)
  if (!key) {
    key = await selectActiveKey(em(), parsed.prefix)
    if (key) rememberKey(parsed.prefix, key)
  }
  const valid = digestsEqual(key?.secretHash ?? DUMMY_HASH, presented)
  if (!key || !valid) return null
  noteKeyUse(key.id)
  return { id: key.id, scopes: key.scopes, user: key.user }
}

/** The scopes a key may hold for its owner's role: a viewer's keys never write (spec: viewer agents). */
export function scopesForRole(role: Role): Scope[] {
  return role === 'viewer' ? ['read', 'validate'] : ['read', 'write', 'validate']
}

/** `GET /keys` item (the `KeyListItemSchema` of the API, inferred): never the secret or its hash. */
export type ApiKeyListItem = z.output<typeof KeyListItemSchema>

function toListItem(key: ApiKeyRecord): ApiKeyListItem {
  const { userId: _owner, ...item } = key
  return item
}

/** `GET /keys`: the keys the user issued, newest first, revoked ones included (their `revokedAt` is set). */
export async function listUserKeys(userId: string): Promise<{ keys: ApiKeyListItem[] }> {
  await flushKeyUses()
  return { keys: (await selectUserKeys(em(), userId)).map(toListItem) }
}

const keyTarget = (id: string) => ({ type: 'api_key', id })

/**
 * `POST /keys`: a signed-in user issues a personal key. A viewer may not ask for `write` (403): a key never
 * exceeds its owner's role. The token is in the answer only.
 */
export async function createPersonalKey(options: {
  user: { id: string; role: Role }
  name: string
  scopes: Scope[]
  actor: AuditActor
  client: ClientInfo
}): Promise<{ key: { id: string; name: string; prefix: string; scopes: Scope[] }; token: string }> {
  const allowed = scopesForRole(options.user.role)
  const refused = options.scopes.filter((scope) => !allowed.includes(scope))
  if (refused.length) {
    throw new AppError('forbidden', `Your role does not allow keys with the scope(s): ${refused.join(', ')}.`)
  }
  return em().transactional(async (tx) => {
    const { key, token } = await issueApiKey(
      { userId: options.user.id, name: options.name, scopes: options.scopes },
      tx,
    )
    await recordAudit(
      {
        action: 'key.issue',
        actor: options.actor,
        target: keyTarget(key.id),
        client: options.client,
        details: { ownerId: options.user.id, name: key.name, prefix: key.prefix, scopes: key.scopes },
      },
      tx,
    )
    return { key: { id: key.id, name: key.name, prefix: key.prefix, scopes: key.scopes }, token }
  })
}

/**
 * `DELETE /keys/{id}`: revokes one of the user's own keys. Another user's key, or an unknown id, is 404 (the
 * same answer, so ids of other people's keys cannot be probed). Revoking a revoked key changes nothing.
 */
export async function revokeUserKey(options: {
  userId: string
  keyId: string
  actor: AuditActor
  client: ClientInfo
}): Promise<void> {
  if (!isUuid(options.keyId)) throw new AppError('not_found', 'No such key.')
  await em().transactional(async (tx) => {
    const key = await selectUserKey(tx, options.userId, options.keyId)
    if (!key) throw new AppError('not_found', 'No such key.')
    if (key.revokedAt) return
    await revokeKeyRow(tx, key.id)
    await recordAudit(
      {
        action: 'key.revoke',
        actor: options.actor,
        target: keyTarget(key.id),
        client: options.client,
        details: { ownerId: options.userId, name: key.name, prefix: key.prefix },
      },
      tx,
    )
  })
}
