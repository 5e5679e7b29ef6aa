import crypto from 'node:crypto'
import argon2 from 'argon2'
import { issueApiKey } from '#app/services/auth/api-keys.server.ts'
import { ARGON2_OPTIONS } from '#app/services/auth/password.server.ts'
import { createSession, SESSION_COOKIE } from '#app/services/auth/sessions.server.ts'
import { insertUser, type UserRecord } from '#app/services/users/store.server.ts'
import type { CreateTermInput } from '#app/schemas/terms.ts'
import type { TermDto } from '#app/services/terms/read.server.ts'
import { createTerm as createTermService } from '#app/services/terms/write.server.ts'
import { em } from '#db/orm.ts'
import type { AuthType, Role, Scope } from '#domain/identity.ts'

/** The origin tests send on cookie-session writes (one of the default allowed origins). */
export const TEST_ORIGIN = 'http://localhost:3000'

export interface TestUser {
  user: UserRecord
  password: string
  /** Headers for a cookie-session request, Origin included. */
  sessionHeaders: Record<string, string>
}

/**
 * The accounts' passwords: real argon2id hashes that the app's own check verifies, at argon2's lowest cost
 * (~1 ms instead of ~30 ms; the suite makes hundreds). Hashing at the production cost is the app's part, and
 * the tests of registration, setup and seed-admin go through it.
 */
const hashTestPassword = (password: string) =>
  argon2.hash(password, { ...ARGON2_OPTIONS, memoryCost: 1024, timeCost: 1 })

/** Builds an account (password hashed as an argon2id hash, see above), signed in with a fresh session. */
export async function createUser(
  overrides: { role?: Role; authType?: AuthType; email?: string; name?: string; password?: string } = {},
): Promise<TestUser> {
  const email = overrides.email ?? `user-${crypto.randomUUID().slice(0, 8)}@example.test`
  const password = overrides.password ?? 'correct horse battery'
  const user = await insertUser(em(), {
    email: email.toLowerCase(),
    name: overrides.name ?? email,
    role: overrides.role ?? 'viewer',
    authType: overrides.authType ?? 'password',
    passwordHash: overrides.authType === 'agent' ? null : await hashTestPassword(password),
  })
  const { token } = await createSession(user.id)
  return {
    user,
    password,
    sessionHeaders: { cookie: `${SESSION_COOKIE}=${token}`, origin: TEST_ORIGIN },
  }
}

/** Issues an API key for a user; returns the Authorization header. */
export async function createApiKey(userId: string, scopes: Scope[]): Promise<Record<string, string>> {
  const { token } = await issueApiKey({ userId, name: 'test key', scopes })
  return { authorization: `Bearer ${token}` }
}

let termAuthor: Promise<string> | undefined

/**
 * Builds a term through the real service (revision 1, notations, queue row). The author is one editor per
 * test file unless `actorId` is given; the name and slug are unique unless given.
 */
export async function createTerm(
  overrides: Partial<CreateTermInput> & { actorId?: string } = {},
): Promise<TermDto> {
  const { actorId, ...input } = overrides
  termAuthor ??= insertUser(em(), {
    email: `author-${crypto.randomUUID().slice(0, 8)}@example.test`,
    name: 'Term Author',
    role: 'editor',
    authType: 'agent',
    passwordHash: null,
  }).then((author) => author.id)
  const name = input.name ?? `Term ${crypto.randomUUID().slice(0, 8)}`
  return createTermService({
    actorId: actorId ?? (await termAuthor),
    input: {
      name,
      fullName: null,
      nameEn: null,
      nameKo: null,
      notations: [],
      domains: [],
      categories: [],
      tags: [],
      definition: `Definition of ${name}.`,
      body: '',
      note: '',
      ...input,
    },
  })
}

/**
 * A save made by another process, played in SQL: it adds an admitted notation to a term, bumps the glossary
 * version and stamps the term with it, as every term-writing transaction does, but raises no in-process event.
 */
export async function saveInAnotherProcess(termId: string, notation: string): Promise<void> {
  await em().transactional(async (tx) => {
    const [{ v }] = await tx.execute<{ v: string }[]>(
      `update app_setting set value = to_jsonb((value #>> '{}')::bigint + 1) where key = 'glossary.version'
       returning value #>> '{}' as v`,
    )
    await tx.execute(
      `insert into term_notations (id, term_id, text, normalized, kind, lang, source, position)
       values (gen_random_uuid(), ?, ?, lower(?), 'admitted', null, 'notation', 9)`,
      [termId, notation, notation],
    )
    await tx.execute('update terms set change_version = ? where id = ?', [Number(v), termId])
  })
}
