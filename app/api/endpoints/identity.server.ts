import {
  AccountDeletedSchema,
  CreateKeySchema,
  DeleteAccountSchema,
  IdParamsSchema,
  IssuedKeySchema,
  KeyListSchema,
  LoginSchema,
  SignUpSchema,
  UpdateAccountSchema,
  UserResponseSchema,
} from '#app/schemas/identity.ts'
import { auditActorOf, type ClientInfo } from '#app/services/audit/audit.server.ts'
import {
  loginWithPassword,
  logout,
  registerUser,
  setupFirstAdmin,
} from '#app/services/auth/accounts.server.ts'
import { createPersonalKey, listUserKeys, revokeUserKey } from '#app/services/auth/api-keys.server.ts'
import {
  clearedSessionCookie,
  readSessionToken,
  renewSession,
  sessionCookie,
} from '#app/services/auth/sessions.server.ts'
import { deleteOwnAccount } from '#app/services/users/delete-account.server.ts'
import { updateAccountName } from '#app/services/users/users.server.ts'
import { endpoint, type Endpoint, type HandlerContext } from '../endpoint.server.ts'
import type { Actor } from '#domain/identity.ts'

/**
 * Setup, accounts, sessions and personal API keys (spec: "Setup and accounts", "Agent accounts and personal
 * keys"). Each handler only turns the request into one service call and the result into cookies and JSON.
 */

type AnyContext = HandlerContext<unknown, unknown, unknown>

/** Where the request came from, for the audit log. */
export function clientOf(ctx: Pick<AnyContext, 'ip' | 'request'>): ClientInfo {
  return { ip: ctx.ip, userAgent: ctx.request.headers.get('user-agent') }
}

export { auditActorOf }
/** The session actor of a `session` endpoint (the gate has already refused everything else). */
export function sessionOf(ctx: Pick<AnyContext, 'actor'>): Extract<Actor, { via: 'session' }> {
  if (ctx.actor?.via !== 'session') throw new Error('a session endpoint ran without a session actor')
  return ctx.actor
}

function setSessionCookie(ctx: Pick<AnyContext, 'responseHeaders' | 'isHttps'>, token: string): void {
  ctx.responseHeaders.append('Set-Cookie', sessionCookie(token, { secure: ctx.isHttps }))
}

const TAG = 'accounts'

export const IDENTITY_ENDPOINTS: Endpoint[] = [
  endpoint({
    method: 'POST',
    path: '/setup',
    operationId: 'setup',
    summary: 'Create the first admin and sign in (only while no account exists)',
    description:
      'Open only while no account exists; concurrent calls create exactly one admin, the others get 403.',
    tag: TAG,
    access: { kind: 'public' },
    body: SignUpSchema,
    response: UserResponseSchema,
    errors: ['forbidden', 'password_login_disabled'],
    handler: async (ctx) => {
      const { user, token } = await setupFirstAdmin({ ...ctx.body, client: clientOf(ctx) })
      setSessionCookie(ctx, token)
      return { user }
    },
  }),
  endpoint({
    method: 'POST',
    path: '/auth/register',
    operationId: 'register',
    summary: 'Create a viewer account and sign in',
    description: 'A `role` in the body is ignored: new accounts are always `viewer`.',
    tag: TAG,
    access: { kind: 'public' },
    body: SignUpSchema,
    response: UserResponseSchema,
    errors: ['forbidden', 'password_login_disabled', 'email_taken', 'rate_limited'],
    handler: async (ctx) => {
      const { user, token } = await registerUser({ ...ctx.body, client: clientOf(ctx) })
      setSessionCookie(ctx, token)
      return { user }
    },
  }),
  endpoint({
    method: 'POST',
    path: '/auth/login',
    operationId: 'login',
    summary: 'Sign in with email and password',
    description:
      'Wrong credentials answer 401 `unauthorized` with one message, whether or not the account exists.',
    tag: TAG,
    access: { kind: 'public' },
    body: LoginSchema,
    response: UserResponseSchema,
    errors: ['unauthorized', 'password_login_disabled', 'rate_limited'],
    handler: async (ctx) => {
      const { user, token } = await loginWithPassword({ ...ctx.body, client: clientOf(ctx) })
      setSessionCookie(ctx, token)
      return { user }
    },
  }),
  endpoint({
    method: 'POST',
    path: '/auth/logout',
    operationId: 'logout',
    summary: 'End the current session',
    tag: TAG,
    access: { kind: 'session' },
    successStatus: 204,
    handler: async (ctx) => {
      const session = sessionOf(ctx)
      await logout({ sessionId: session.sessionId, actor: auditActorOf(session), client: clientOf(ctx) })
      ctx.responseHeaders.append('Set-Cookie', clearedSessionCookie({ secure: ctx.isHttps }))
    },
  }),
  endpoint({
    method: 'PATCH',
    path: '/account',
    operationId: 'updateAccount',
    summary: 'Change your display name',
    description: 'Email and role cannot change here (such members are ignored). Renews the session cookie.',
    tag: TAG,
    access: { kind: 'session' },
    body: UpdateAccountSchema,
    response: UserResponseSchema,
    handler: async (ctx) => {
      const session = sessionOf(ctx)
      const user = await updateAccountName({
        userId: session.user.id,
        name: ctx.body.name,
        client: clientOf(ctx),
      })
      if (session.sessionId) await renewSession(session.sessionId)
      const token = readSessionToken(ctx.request.headers.get('cookie'))
      if (token) setSessionCookie(ctx, token)
      return { user }
    },
  }),
  endpoint({
    method: 'DELETE',
    path: '/account',
    operationId: 'deleteAccount',
    summary: 'Delete your account',
    description:
      'Confirm with your email (and your password for a password account). Removes all your sessions, API ' +
      'keys and private chat history; terms and revisions stay without the author link. The last admin ' +
      'cannot delete their account.',
    tag: TAG,
    access: { kind: 'session' },
    body: DeleteAccountSchema,
    response: AccountDeletedSchema,
    errors: ['not_found'],
    handler: async (ctx) => {
      await deleteOwnAccount({ userId: sessionOf(ctx).user.id, ...ctx.body, client: clientOf(ctx) })
      ctx.responseHeaders.append('Set-Cookie', clearedSessionCookie({ secure: ctx.isHttps }))
      return { deleted: true }
    },
  }),
  endpoint({
    method: 'GET',
    path: '/keys',
    operationId: 'listKeys',
    summary: 'Your API keys (never their secrets)',
    tag: 'keys',
    access: { kind: 'session' },
    response: KeyListSchema,
    handler: async (ctx) => listUserKeys(sessionOf(ctx).user.id),
  }),
  endpoint({
    method: 'POST',
    path: '/keys',
    operationId: 'createKey',
    summary: 'Issue a personal API key; the token is shown only in this answer',
    description: 'A viewer may not ask for the `write` scope (403).',
    tag: 'keys',
    access: { kind: 'session' },
    body: CreateKeySchema,
    successStatus: 201,
    response: IssuedKeySchema,
    handler: async (ctx) => {
      const session = sessionOf(ctx)
      return createPersonalKey({
        user: session.user,
        ...ctx.body,
        actor: auditActorOf(session),
        client: clientOf(ctx),
      })
    },
  }),
  endpoint({
    method: 'DELETE',
    path: '/keys/{id}',
    operationId: 'revokeKey',
    summary: 'Revoke one of your API keys',
    description: 'Unknown ids and other users\u2019 keys answer 404 alike.',
    tag: 'keys',
    access: { kind: 'session' },
    params: IdParamsSchema,
    successStatus: 204,
    errors: ['not_found'],
    handler: async (ctx) => {
      const session = sessionOf(ctx)
      await revokeUserKey({
        userId: session.user.id,
        keyId: ctx.params.id,
        actor: auditActorOf(session),
        client: clientOf(ctx),
      })
    },
  }),
]
