import { UniqueConstraintViolationException } from '@mikro-orm/core'
import { getConfig } from '#app/lib/config.server.ts'
import type { ProxyCheck } from '#app/schemas/sso.ts'
import type { ClientInfo } from '#app/services/audit/audit.server.ts'
import { em } from '#db/orm.ts'
import type { ActorUser } from '#domain/identity.ts'
import { PROXY_HEADERS, PROXY_PROVIDER } from '#domain/sso.ts'
import {
  accountForIdentity,
  identityHash,
  mapClaims,
  SsoFailure,
  type MappedIdentity,
} from './accounts.server.ts'
import { loadSsoState, proxyTrusted, type SsoState } from './settings.server.ts'
import { identityBlockExists, selectUserByIdentity, updateLastLogin } from './store.server.ts'

/**
 * oauth2-proxy mode (spec authentication rule 12, decision 018): the identity comes from the headers the proxy
 * sets on every request. Trusted only when the capability is on and the mode is active (`proxyTrusted`).
 */

/** What the proxy headers of one request say (read by the auth gate; services never see the request). */
export interface ProxyHeaderValues {
  email: string | null
  user: string | null
  name: string | null
  groups: string[]
}

/** Reads the proxy headers through a getter (`headers.get`). */
export function readProxyHeaders(get: (name: string) => string | null): ProxyHeaderValues {
  const value = (name: string) => get(name)?.trim() || null
  return {
    email: value(PROXY_HEADERS.email),
    user: value(PROXY_HEADERS.user),
    name: value(PROXY_HEADERS.preferredUsername),
    groups: (get(PROXY_HEADERS.groups) ?? '')
      .split(',')
      .map((g) => g.trim())
      .filter(Boolean),
  }
}

/**
 * What the proxy headers of one request say and whether they are trusted now: `GET /sso/proxy-check` and the
 * proxy section of `/admin/sso` both answer this.
 */
export async function checkProxy(headers: ProxyHeaderValues): Promise<ProxyCheck> {
  const mode = (await loadSsoState()).settings.mode
  return {
    ssoMode: mode,
    proxyAvailable: getConfig().oauth2ProxyEnabled,
    trusted: proxyTrusted(mode),
    detected: headers.email !== null,
    headerNames: PROXY_HEADERS,
    identity: headers,
  }
}

/** The SSO state when proxy headers are trusted now, else undefined (no query when the capability is off). */
export async function trustedProxyState(): Promise<SsoState | undefined> {
  if (!proxyTrusted('oauth2-proxy')) return undefined
  const state = await loadSsoState()
  return proxyTrusted(state.settings.mode) ? state : undefined
}

/** The identity the headers describe (subject: the user header, else the email). */
export function proxyIdentity(headers: ProxyHeaderValues): MappedIdentity {
  return mapClaims(
    { sub: headers.user ?? headers.email, email: headers.email, name: headers.name, groups: headers.groups },
    { nameClaims: ['name'], groupClaims: ['groups'] },
    PROXY_PROVIDER,
  )
}

function headerNames(headers: ProxyHeaderValues): string[] {
  const present: string[] = []
  if (headers.email) present.push(PROXY_HEADERS.email)
  if (headers.user) present.push(PROXY_HEADERS.user)
  if (headers.groups.length) present.push(PROXY_HEADERS.groups)
  if (headers.name) present.push(PROXY_HEADERS.preferredUsername)
  return present.sort()
}

async function signIn(
  headers: ProxyHeaderValues,
  state: SsoState,
  options: { liftBlock: boolean; refreshUserId?: string; client: ClientInfo },
): Promise<ActorUser> {
  await updateLastLogin(em(), headerNames(headers))
  const identity = proxyIdentity(headers)
  try {
    return (
      await em().transactional((tx) =>
        accountForIdentity(tx, identity, state.settings, { ...options, audit: true }),
      )
    ).user
  } catch (error) {
    // Two first requests of the same person at once: the other one linked the identity; use it.
    if (error instanceof UniqueConstraintViolationException) {
      const linked = await selectUserByIdentity(em(), identity.provider, identity.subject)
      if (linked) return linked
    }
    throw error
  }
}

/**
 * The account of a proxied request, or null when the headers identify nobody who may sign in (not allowed,
 * blocked after deletion, no auto-creation, email taken). A known identity costs one query; the account is
 * created on its first request.
 */
export async function userFromProxy(
  headers: ProxyHeaderValues,
  state: SsoState,
  client: ClientInfo,
): Promise<ActorUser | null> {
  let identity: MappedIdentity
  try {
    identity = proxyIdentity(headers)
  } catch {
    return null
  }
  const { allowedGroups } = state.settings
  if (allowedGroups.length && !identity.groups.some((g) => allowedGroups.includes(g))) return null
  const linked = await selectUserByIdentity(em(), identity.provider, identity.subject)
  if (linked) return linked
  try {
    return await signIn(headers, state, { liftBlock: false, client })
  } catch (error) {
    if (error instanceof SsoFailure) return null
    throw error
  }
}

/** The login screen's "create a new account with the company account": lifts the deletion block. */
export async function signUpFromProxy(
  headers: ProxyHeaderValues,
  state: SsoState,
  client: ClientInfo,
): Promise<ActorUser> {
  return signIn(headers, state, { liftBlock: true, client })
}

/** `POST /account/sso-refresh` in proxy mode: applies the current headers to the signed-in account. */
export async function refreshFromProxy(
  userId: string,
  headers: ProxyHeaderValues,
  state: SsoState,
  client: ClientInfo,
): Promise<ActorUser> {
  return signIn(headers, state, { liftBlock: false, refreshUserId: userId, client })
}

/** Whether the headers name an identity whose account was deleted (the login page offers a new account). */
export async function proxyIdentityBlocked(headers: ProxyHeaderValues): Promise<boolean> {
  try {
    const identity = proxyIdentity(headers)
    return identityBlockExists(em(), identityHash(identity.provider, identity.subject))
  } catch {
    return false
  }
}
