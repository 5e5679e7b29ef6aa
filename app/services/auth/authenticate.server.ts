import { findActiveKey, parseAuthorization } from './api-keys.server.ts'
import { findSession, readSessionToken } from './sessions.server.ts'
import type { Actor } from '#domain/identity.ts'

/** Resolves `Authorization: Bearer glk_…` to an actor, or null for a malformed, unknown, revoked or expired key. */
export async function authenticateApiKey(authorization: string): Promise<Actor | null> {
  const parsed = parseAuthorization(authorization)
  if (!parsed) return null
  const key = await findActiveKey(parsed)
  if (!key) return null
  return { via: 'key', user: key.user, keyId: key.id, scopes: key.scopes }
}

/** Resolves the `glossary_session` cookie (of a `Cookie` header) to an actor, or null. */
export async function authenticateSession(cookieHeader: string | null): Promise<Actor | null> {
  const token = readSessionToken(cookieHeader)
  if (!token) return null
  const session = await findSession(token)
  if (!session) return null
  return { via: 'session', user: session.user, sessionId: session.id }
}
