import { clearCookieLine, readCookie, setCookieLine, type CookieSpec } from '#app/lib/cookies.server.ts'
import { em } from '#db/orm.ts'
import type { EntityManager } from '@mikro-orm/postgresql'
import {
  deleteSessionRow,
  insertSession,
  selectLiveSession,
  updateSessionExpiry,
  type LiveSession,
} from './store.server.ts'
import { randomToken, sha256 } from './tokens.server.ts'

/** Spec: cookie `glossary_session`, HttpOnly, SameSite=Lax, Path=/, 14 days, Secure over HTTPS. */
export const SESSION_COOKIE = 'glossary_session'
export const SESSION_DAYS = 14
const SESSION_MS = SESSION_DAYS * 24 * 60 * 60 * 1000

export interface SessionMeta {
  ip?: string
  userAgent?: string | null
}

/** Starts a session for a user; returns the cookie token (256 random bits, stored only as its hash). */
export async function createSession(
  userId: string,
  meta: SessionMeta = {},
  manager: EntityManager = em(),
): Promise<{ token: string; sessionId: string; expiresAt: Date }> {
  const token = randomToken(32)
  const expiresAt = new Date(Date.now() + SESSION_MS)
  const sessionId = await insertSession(manager, {
    tokenHash: sha256(token),
    userId,
    expiresAt,
    ip: meta.ip ?? null,
    userAgent: meta.userAgent?.slice(0, 500) ?? null,
  })
  return { token, sessionId, expiresAt }
}

const SESSION: CookieSpec = {
  name: SESSION_COOKIE,
  path: '/',
  maxAgeSeconds: SESSION_MS / 1000,
  httpOnly: true,
}

export function sessionCookie(token: string, options: { secure: boolean }): string {
  return setCookieLine(SESSION, token, options)
}

export function clearedSessionCookie(options: { secure: boolean }): string {
  return clearCookieLine(SESSION, options)
}

/** The session token in a Cookie header, if any (a value longer than any token we issue is none). */
export function readSessionToken(cookieHeader: string | null): string | undefined {
  const value = readCookie(cookieHeader, SESSION_COOKIE)
  return value !== undefined && value.length <= 200 ? value : undefined
}

/** The live session behind a token, with its user; expired sessions count as none. */
export async function findSession(token: string): Promise<LiveSession | undefined> {
  return selectLiveSession(em(), sha256(token), new Date())
}

export async function deleteSession(sessionId: string): Promise<void> {
  await deleteSessionRow(em(), sessionId)
}

/** Moves a live session's expiry to 14 days from now (the cookie is set again with the same lifetime). */
export async function renewSession(sessionId: string): Promise<void> {
  await updateSessionExpiry(em(), sessionId, new Date(Date.now() + SESSION_MS))
}
