import type { Actor } from '#app/lib/auth-gate.server.ts'

/** Resolves `Authorization: Bearer glk_…` to an actor. (Filled in by the identity work.) */
export async function authenticateApiKey(_authorization: string): Promise<Actor | null> {
  return null
}

/** Resolves the `glossary_session` cookie to an actor. (Filled in by the identity work.) */
export async function authenticateSession(_request: Request): Promise<Actor | null> {
  return null
}
