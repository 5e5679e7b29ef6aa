import type { EntityManager } from '@mikro-orm/postgresql'
import { UniqueConstraintViolationException } from '@mikro-orm/core'
import { getConfig } from '#app/lib/config.server.ts'
import { AppError } from '#app/lib/errors.server.ts'
import type { SignUpInput } from '#app/schemas/identity.ts'
import { recordAudit, type AuditActor, type ClientInfo } from '#app/services/audit/audit.server.ts'
import { enforceRateLimit } from '#app/services/rate-limit/rate-limit.server.ts'
import { assertPasswordLoginEnabled } from '#app/services/settings/settings.server.ts'
import { anyUserExists, insertUser, selectUserByEmail } from '#app/services/users/store.server.ts'
import { toUserDto, userTarget, type UserDto } from '#app/services/users/users.server.ts'
import { em } from '#db/orm.ts'
import { lockSetup } from './store.server.ts'
import { burnPasswordCheck, hashPassword, verifyPassword } from './password.server.ts'
import { createSession, deleteSession } from './sessions.server.ts'
import { sha256 } from './tokens.server.ts'

/**
 * Password sign-up, sign-in and sign-out (docs/decisions/004-identity.md). Each returns the user and a fresh
 * session token; the HTTP layer turns the token into the `glossary_session` cookie.
 */

export interface SignedIn {
  user: UserDto
  token: string
}

/** The one answer to wrong credentials, the same for an unknown email and a wrong password. */
export const INVALID_CREDENTIALS = 'The email or password is incorrect.'

/**
 * The per-email login bucket allows this many times the per-IP limit, so one client alone (one IP) can never
 * fill a victim's bucket, while many addresses guessing one account are still slowed (005-rate-limits.md).
 */
export const LOGIN_EMAIL_LIMIT_FACTOR = 3

/**
 * The shared half of setup and registration, inside their transaction: the password account, its first
 * session and the audit record, so that either all three exist or none.
 */
async function createSignedInAccount(
  tx: EntityManager,
  input: SignUpInput & {
    client: ClientInfo
    passwordHash: string
    role: 'admin' | 'viewer'
    action: 'setup' | 'auth.register'
  },
): Promise<SignedIn> {
  const user = await insertUser(tx, {
    email: input.email,
    name: input.name || input.email,
    role: input.role,
    authType: 'password',
    passwordHash: input.passwordHash,
  })
  const { token } = await createSession(user.id, input.client, tx)
  await recordAudit(
    {
      action: input.action,
      actor: { userId: user.id, label: user.email },
      target: userTarget(user.id),
      client: input.client,
      details: { email: user.email, role: user.role },
    },
    tx,
  )
  return { user: toUserDto(user), token }
}

const setupDone = () => new AppError('forbidden', 'Setup is already done; sign in instead.')

/**
 * `POST /setup`: creates the first admin and signs them in, only while no account exists. Concurrent calls
 * are serialized by a database lock, and the "no account yet" check is repeated under it, so exactly one admin
 * is created however many web processes receive the request. The password is hashed before the lock, keeping
 * the lock held for milliseconds.
 */
export async function setupFirstAdmin(input: SignUpInput & { client: ClientInfo }): Promise<SignedIn> {
  const manager = em()
  if (await anyUserExists(manager)) throw setupDone()
  await assertPasswordLoginEnabled(manager)
  const passwordHash = await hashPassword(input.password)
  return manager.transactional(async (tx) => {
    await lockSetup(tx)
    if (await anyUserExists(tx)) throw setupDone()
    return createSignedInAccount(tx, { ...input, passwordHash, role: 'admin', action: 'setup' })
  })
}

const emailTaken = () => new AppError('email_taken', 'An account with this email already exists.')

/**
 * `POST /auth/register`: a new `viewer` account (whatever role the body names), signed in at once. Open while
 * password login is on and once setup is done; rate-limited per client address.
 */
export async function registerUser(input: SignUpInput & { client: ClientInfo }): Promise<SignedIn> {
  const manager = em()
  await assertPasswordLoginEnabled(manager)
  await enforceRateLimit(
    'register:ip',
    input.client.ip || 'unknown',
    getConfig().rateLimits.registerPerHour,
    3600,
    manager,
  )
  if (!(await anyUserExists(manager))) {
    throw new AppError('forbidden', 'No account exists yet: the first account is created by setup.')
  }
  // Cheap early answer; the unique index `users_email_lower_unique` is what really decides (below).
  if (await selectUserByEmail(manager, input.email)) throw emailTaken()
  const passwordHash = await hashPassword(input.password)
  try {
    return await manager.transactional((tx) =>
      createSignedInAccount(tx, { ...input, passwordHash, role: 'viewer', action: 'auth.register' }),
    )
  } catch (error) {
    if (error instanceof UniqueConstraintViolationException) throw emailTaken()
    throw error
  }
}

/**
 * `POST /auth/login`. Gives no hint whether the account exists: an unknown email (or an account without a
 * password, such as an agent) is verified against a dummy argon2id hash with the same parameters, so both
 * failures cost one verification, write one audit record and get the same 401 and message. A deactivated
 * account fails the same way, even with its right password.
 */
export async function loginWithPassword(input: {
  email: string
  password: string
  client: ClientInfo
}): Promise<SignedIn> {
  const manager = em()
  await assertPasswordLoginEnabled(manager)
  const { loginPerMinute } = getConfig().rateLimits
  await enforceRateLimit('login:ip', input.client.ip || 'unknown', loginPerMinute, 60, manager)
  // The email is hashed in the bucket key: the table should not collect addresses people typed.
  await enforceRateLimit(
    'login:email',
    sha256(input.email),
    loginPerMinute * LOGIN_EMAIL_LIMIT_FACTOR,
    60,
    manager,
  )
  const user = await selectUserByEmail(manager, input.email)
  let valid = false
  if (user?.passwordHash) {
    // A deactivated account's password is still verified (the same work, the same time) and then refused
    // like a wrong one: the answer gives no hint that the account exists or is deactivated (decision 026).
    valid = (await verifyPassword(user.passwordHash, input.password)) && user.deactivatedAt === null
  } else {
    await burnPasswordCheck(input.password)
  }
  if (!user || !valid) {
    await recordAudit(
      {
        action: 'auth.login_failed',
        actor: { userId: user?.id ?? null, label: input.email },
        target: user ? userTarget(user.id) : undefined,
        client: input.client,
      },
      manager,
    )
    throw new AppError('unauthorized', INVALID_CREDENTIALS)
  }
  return manager.transactional(async (tx) => {
    const { token } = await createSession(user.id, input.client, tx)
    await recordAudit(
      {
        action: 'auth.login',
        actor: { userId: user.id, label: user.email },
        target: userTarget(user.id),
        client: input.client,
      },
      tx,
    )
    return { user: toUserDto(user), token }
  })
}

/** `POST /auth/logout`: ends the current session (other sessions of the user stay). */
export async function logout(input: {
  /** null for an identity restored from oauth2-proxy headers: there is no session to end here. */
  sessionId: string | null
  actor: AuditActor
  client: ClientInfo
}): Promise<void> {
  if (input.sessionId) await deleteSession(input.sessionId)
  await recordAudit({
    action: 'auth.logout',
    actor: input.actor,
    target: input.sessionId ? { type: 'session', id: input.sessionId } : undefined,
    client: input.client,
  })
}
