import argon2 from 'argon2'

/**
 * Password hashing: argon2id at OWASP's first recommended setting (m = 19 MiB, t = 2, p = 1). Its ~25–40 ms per
 * hash here keeps logins fast under load while staying memory-hard; bench/login.bench.ts measures it.
 */
export const ARGON2_OPTIONS = {
  type: argon2.argon2id,
  memoryCost: 19 * 1024,
  timeCost: 2,
  parallelism: 1,
} as const

export function hashPassword(password: string): Promise<string> {
  return argon2.hash(password, ARGON2_OPTIONS)
}

export async function verifyPassword(hash: string, password: string): Promise<boolean> {
  try {
    return await argon2.verify(hash, password)
  } catch {
    return false
  }
}

let dummy: Promise<string> | undefined

/**
 * Verifies against a fixed hash with the same parameters, so a login for an unknown email costs the same time
 * as one for a known email (the spec: no hint, neither in the answer nor in the time).
 */
export async function burnPasswordCheck(password: string): Promise<void> {
  dummy ??= hashPassword('dummy-password-for-constant-time')
  await verifyPassword(await dummy, password)
}
