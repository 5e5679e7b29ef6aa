import { getConfig } from '#app/lib/config.server.ts'
import { em } from '#db/orm.ts'
import { User } from '#db/entities/user.entity.ts'
import { hashPassword } from './password.server.ts'

/**
 * `glossary seed-admin`: creates an administrator from GLOSSARY_ADMIN_EMAIL / GLOSSARY_ADMIN_PASSWORD. The
 * password never comes from argv. An existing account with that email is promoted to admin instead, with its
 * password left alone, so running the command twice is harmless.
 */
export async function seedAdmin(): Promise<{ created: boolean; email: string }> {
  const { email, password, name } = getConfig().admin
  if (!email || !password) {
    throw new Error(
      'Set GLOSSARY_ADMIN_EMAIL and GLOSSARY_ADMIN_PASSWORD (at least 8 characters) in the environment.',
    )
  }
  const normalized = email.trim().toLowerCase()
  const manager = em()
  const existing = await manager.findOne(User, { email: normalized })
  if (existing) {
    if (existing.authType === 'agent')
      throw new Error('That email belongs to an agent account, which cannot be admin.')
    existing.role = 'admin'
    await manager.flush()
    return { created: false, email: normalized }
  }
  manager.create(User, {
    email: normalized,
    name: name ?? normalized,
    role: 'admin',
    authType: 'password',
    passwordHash: await hashPassword(password),
  })
  await manager.flush()
  return { created: true, email: normalized }
}
