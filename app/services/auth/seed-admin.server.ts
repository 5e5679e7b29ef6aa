import { getConfig } from '#app/lib/config.server.ts'
import { recordAudit } from '#app/services/audit/audit.server.ts'
import {
  insertUser,
  selectUserByEmail,
  updateUserDeactivated,
  updateUserRole,
} from '#app/services/users/store.server.ts'
import { userTarget } from '#app/services/users/users.server.ts'
import { em } from '#db/orm.ts'
import { lockSetup } from './store.server.ts'
import { hashPassword } from './password.server.ts'

/**
 * `glossary seed-admin`: creates an administrator from GLOSSARY_ADMIN_EMAIL / GLOSSARY_ADMIN_PASSWORD. The
 * password never comes from argv. An existing account with that email is promoted to admin instead, with its
 * password left alone (and reactivated if it was deactivated), so running the command twice is harmless. It takes the setup lock (so it and
 * `POST /setup` never interleave) and writes an `admin.seed` audit record in the same transaction.
 */
export async function seedAdmin(): Promise<{ created: boolean; email: string }> {
  const { email, password, name } = getConfig().admin
  if (!email || !password) {
    throw new Error(
      'Set GLOSSARY_ADMIN_EMAIL and GLOSSARY_ADMIN_PASSWORD (at least 8 characters) in the environment.',
    )
  }
  const normalized = email.trim().toLowerCase()
  const passwordHash = await hashPassword(password)
  return em().transactional(async (tx) => {
    await lockSetup(tx)
    const existing = await selectUserByEmail(tx, normalized)
    if (existing?.authType === 'agent') {
      throw new Error('That email belongs to an agent account, which cannot be admin.')
    }
    const user =
      existing ??
      (await insertUser(tx, {
        email: normalized,
        name: name ?? normalized,
        role: 'admin',
        authType: 'password',
        passwordHash,
      }))
    const previousRole = existing?.role ?? null
    if (user.role !== 'admin') await updateUserRole(tx, user.id, 'admin')
    // The operator's word is final: a deactivated account seeded as admin can sign in again (decision 026).
    const reactivated = user.deactivatedAt !== null
    if (reactivated) await updateUserDeactivated(tx, user.id, false)
    await recordAudit(
      {
        action: 'admin.seed',
        actor: { userId: null, label: 'cli:seed-admin' },
        target: userTarget(user.id),
        details: { email: normalized, created: !existing, previousRole, ...(reactivated && { reactivated }) },
      },
      tx,
    )
    return { created: !existing, email: normalized }
  })
}
