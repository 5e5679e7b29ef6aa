/** Who may do what: the vocabulary of identity, declared once (no imports; every layer may import it). */

/** Roles, in increasing order of power (the order is the rule: a higher role can do what a lower one can). */
export const ROLES = ['viewer', 'editor', 'admin'] as const
export type Role = (typeof ROLES)[number]

/** What an API key may be used for (the spec's scope table). */
export const SCOPES = ['read', 'write', 'validate'] as const
export type Scope = (typeof SCOPES)[number]

/** `password` for ID/password accounts, `sso` for accounts created by an identity provider, `agent` for API-only. */
export const AUTH_TYPES = ['password', 'sso', 'agent'] as const
export type AuthType = (typeof AUTH_TYPES)[number]

/** Whether `role` is at least `minRole` (the order of ROLES is the rule). */
export function hasRole(user: { role: Role }, minRole: Role): boolean {
  return ROLES.indexOf(user.role) >= ROLES.indexOf(minRole)
}

/** The signed-in person or agent behind a request, as the auth gate hands it to services and pages. */
export interface ActorUser {
  id: string
  email: string
  name: string
  role: Role
  authType: string
  /**
   * When an admin deactivated the account (ISO 8601), null while active. The auth gate (`identify`) treats a
   * deactivated account's session, key or proxy identity as nobody (decision 026).
   */
  deactivatedAt: string | null
}

/** Who is calling and how: a cookie session, or an API key with its scopes. */
export type Actor =
  /** A cookie session, or (`sessionId` null) an identity restored from trusted oauth2-proxy headers. */
  | { via: 'session'; user: ActorUser; sessionId: string | null }
  | { via: 'key'; user: ActorUser; keyId: string; scopes: Scope[] }
