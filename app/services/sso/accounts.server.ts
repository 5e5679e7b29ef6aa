import type { EntityManager } from '@mikro-orm/postgresql'
import { AppError } from '#app/lib/errors.server.ts'
import { recordAudit, type ClientInfo } from '#app/services/audit/audit.server.ts'
import { lockSetup } from '#app/services/auth/store.server.ts'
import { sha256 } from '#app/services/auth/tokens.server.ts'
import { anyUserExists, insertUser, selectUserByEmail } from '#app/services/users/store.server.ts'
import { userTarget } from '#app/services/users/users.server.ts'
import type { ActorUser, Role } from '#domain/identity.ts'
import type { SsoFailureCode } from '#domain/sso.ts'
import type { SsoSettings } from './settings.server.ts'
import {
  deleteIdentityBlock,
  identityBlockExists,
  insertIdentity,
  insertIdentityBlock,
  selectIdentities,
  selectUserByIdentity,
  updateUserFromIdentity,
} from './store.server.ts'

/**
 * From an external identity to an account (decision 018), for both the direct modes and oauth2-proxy: group
 * rules, linking through `user_identities`, creation with the admin-group and first-admin policies, the
 * identity block of deleted accounts (spec accounts rule 5).
 */

/**
 * A failed sign-in. A page sends the browser to `/login?sso=<ssoCode>` (`app/pages/sso-failure.server.ts`); the
 * API (sso-refresh in proxy mode) answers it like any AppError: 409 `identity_mismatch`, else 403 `forbidden`.
 */
export class SsoFailure extends AppError {
  constructor(
    readonly ssoCode: SsoFailureCode,
    message: string,
  ) {
    super(ssoCode === 'identity_mismatch' ? 'identity_mismatch' : 'forbidden', message)
    this.name = 'SsoFailure'
  }
}

/** An identity after claim mapping. */
export interface MappedIdentity {
  provider: string
  subject: string
  email: string
  name: string
  groups: string[]
}

const EMAIL = /^[^\s@]+@[^\s@]+$/

function claimStrings(value: unknown): string[] {
  if (Array.isArray(value))
    return value.filter((v) => typeof v === 'string' || typeof v === 'number').map(String)
  if (typeof value === 'string') return value.split(/[,\s]+/).filter(Boolean)
  return []
}

/** Maps claims (ID token, userinfo or proxy headers) to an identity, or fails with `no_subject`/`no_email`. */
export function mapClaims(
  claims: Record<string, unknown>,
  settings: Pick<SsoSettings, 'nameClaims' | 'groupClaims'>,
  provider: string,
): MappedIdentity {
  const sub = claims.sub
  const subject = typeof sub === 'string' ? sub.trim() : typeof sub === 'number' ? String(sub) : ''
  if (!subject) throw new SsoFailure('no_subject', 'The provider sent no subject (sub).')
  const email = typeof claims.email === 'string' ? claims.email.trim().toLowerCase() : ''
  if (!EMAIL.test(email) || email.length > 320)
    throw new SsoFailure('no_email', 'The provider sent no email.')
  let name = email
  for (const claim of settings.nameClaims) {
    const value = claims[claim]
    if (typeof value === 'string' && value.trim()) {
      name = value.trim().slice(0, 200)
      break
    }
  }
  const groups = [...new Set(settings.groupClaims.flatMap((claim) => claimStrings(claims[claim])))]
  return { provider, subject: subject.slice(0, 500), email, name, groups }
}

/** The stored form of an identity in the block list: SHA-256 of provider and subject. */
export function identityHash(provider: string, subject: string): string {
  return sha256(`${provider}\n${subject}`)
}

const intersects = (a: readonly string[], b: readonly string[]) => a.some((item) => b.includes(item))

export interface SignInOptions {
  /** sso-refresh: the identity must be the one linked to this account (else `identity_mismatch`). */
  refreshUserId?: string
  /** A direct OIDC/OAuth 2.0 login or the login screen's "new account" choice lifts the block; proxy headers do not. */
  liftBlock: boolean
  client: ClientInfo
  /** `auth.sso_login` is written for sign-ins, not for each proxied request. */
  audit: boolean
}

/** Finds, updates or creates the account of an identity, inside the caller's transaction. */
export async function accountForIdentity(
  tx: EntityManager,
  identity: MappedIdentity,
  settings: Pick<SsoSettings, 'allowedGroups' | 'adminGroups' | 'autoCreate'>,
  options: SignInOptions,
): Promise<{ user: ActorUser; created: boolean }> {
  if (settings.allowedGroups.length && !intersects(identity.groups, settings.allowedGroups)) {
    throw new SsoFailure('not_allowed', 'The account is in none of the allowed groups.')
  }
  const adminByGroup = settings.adminGroups.length > 0 && intersects(identity.groups, settings.adminGroups)
  const linked = await selectUserByIdentity(tx, identity.provider, identity.subject)
  if (options.refreshUserId !== undefined && linked?.id !== options.refreshUserId) {
    throw new SsoFailure('identity_mismatch', 'Another company account than the one linked was used.')
  }
  let result: { user: ActorUser; created: boolean }
  if (linked) {
    // The provider has proven who this is, so saying why is no hint to anyone else (decision 026).
    if (linked.deactivatedAt !== null) {
      throw new SsoFailure('deactivated', 'This glossary account is deactivated.')
    }
    let email = linked.email
    if (identity.email !== linked.email) {
      const other = await selectUserByEmail(tx, identity.email)
      if (!other) email = identity.email
    }
    const role: Role = adminByGroup ? 'admin' : linked.role
    await updateUserFromIdentity(tx, linked.id, { name: identity.name, email, role })
    result = { user: { ...linked, name: identity.name, email, role }, created: false }
  } else {
    const hash = identityHash(identity.provider, identity.subject)
    if (await identityBlockExists(tx, hash)) {
      if (!options.liftBlock) {
        throw new SsoFailure(
          'no_account',
          'This company account was deleted; choose to create a new account.',
        )
      }
      await deleteIdentityBlock(tx, hash)
    }
    if (!settings.autoCreate)
      throw new SsoFailure('no_account', 'No account is linked to this company account.')
    if (await selectUserByEmail(tx, identity.email)) {
      throw new SsoFailure(
        'email_conflict',
        'The email belongs to an account not linked to this company account.',
      )
    }
    await lockSetup(tx) // the first-admin policy: exactly one first account, as in setup
    const first = !(await anyUserExists(tx))
    const created = await insertUser(tx, {
      email: identity.email,
      name: identity.name,
      role: adminByGroup || first ? 'admin' : 'viewer',
      authType: 'sso',
      passwordHash: null,
    })
    await insertIdentity(tx, { userId: created.id, provider: identity.provider, subject: identity.subject })
    result = { user: created, created: true }
  }
  if (options.audit) {
    await recordAudit(
      {
        action: options.refreshUserId ? 'account.sso_refresh' : 'auth.sso_login',
        actor: { userId: result.user.id, label: result.user.email },
        target: userTarget(result.user.id),
        client: options.client,
        details: { provider: identity.provider, created: result.created, role: result.user.role },
      },
      tx,
    )
  }
  return result
}

/** The account-deletion step of spec accounts rule 5: keep the SHA-256 of every linked identity. */
export async function blockIdentitiesOf(tx: EntityManager, userId: string): Promise<number> {
  const identities = await selectIdentities(tx, userId)
  for (const identity of identities) {
    await insertIdentityBlock(tx, identityHash(identity.provider, identity.subject))
  }
  return identities.length
}
