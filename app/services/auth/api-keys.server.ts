import crypto from 'node:crypto'
import type { EntityManager } from '@mikro-orm/postgresql'
import type { Scope } from '#app/lib/auth-gate.server.ts'
import { em } from '#db/orm.ts'
import { ApiKey } from '#db/entities/api-key.entity.ts'
import { User } from '#db/entities/user.entity.ts'
import { digestsEqual, randomToken, sha256 } from './tokens.server.ts'

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
  key: ApiKey
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
    if (attempt < 5 && (await manager.count(ApiKey, { prefix }))) continue
    const key = manager.create(ApiKey, {
      user: manager.getReference(User, options.userId),
      name: options.name,
      prefix,
      secretHash: sha256(secret),
      scopes: [...new Set(options.scopes)],
      expiresAt: options.expiresAt ?? null,
    })
    await manager.flush()
    return { key, token: `glk_${prefix}_${secret}` }
  }
}

/**
 * The active key behind a parsed token, with its user. Revoked and expired keys are filtered out at lookup;
 * the secret is compared in constant time, and an unknown prefix costs the same comparison.
 */
export async function findActiveKey(parsed: ParsedKey): Promise<ApiKey | null> {
  const manager = em()
  const now = new Date()
  const key = await manager.findOne(
    ApiKey,
    { prefix: parsed.prefix, revokedAt: null, $or: [{ expiresAt: null }, { expiresAt: { $gt: now } }] },
    { populate: ['user'] },
  )
  const presented = sha256(parsed.secret)
  const valid = digestsEqual(key?.secretHash ?? DUMMY_HASH, presented)
  if (!key || !valid) return null
  // Each use updates last_used_at (spec); a plain UPDATE avoids loading the entity into a unit of work.
  await manager.nativeUpdate(ApiKey, { id: key.id }, { lastUsedAt: now })
  key.lastUsedAt = now
  return key
}
