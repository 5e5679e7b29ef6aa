import type { User } from '#db/entities/user.entity.ts'
import { findActiveKey, parseAuthorization } from './api-keys.server.ts'
import { findSession, readSessionToken } from './sessions.server.ts'
import type { Actor, ActorUser, Role } from '#domain/identity.ts'

export function toActorUser(user: User): ActorUser {
  return { id: user.id, email: user.email, name: user.name, role: user.role as Role, authType: user.authType }
}

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
  return { via: 'session', user: toActorUser(session.user), sessionId: session.id }
}
