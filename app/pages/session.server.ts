import { data, redirect, type AppLoadContext } from '@remix-run/node'
import { assertSameOrigin, identify } from '#app/lib/auth-gate.server.ts'
import { getConfig } from '#app/lib/config.server.ts'
import { AppError } from '#app/lib/errors.server.ts'
import { returnPath } from '#app/lib/return-path.ts'
import { hasRole, type Actor, type Role } from '#domain/identity.ts'

/**
 * Who a page request comes from, for every page loader and action: the signed-in session (the same gate as
 * the API), the role a page needs, the cross-site check on form posts, the client address for the audit log
 * and the same-site return address after login. Turning a service failure into a page is `forms.server.ts`.
 */

export type SessionActor = Extract<Actor, { via: 'session' }>

/** The signed-in session of a page request, or null. Pages ignore API keys. */
export async function getSessionActor(request: Request): Promise<SessionActor | null> {
  // identify() applies the Authorization rule (a key, or in oauth2-proxy mode only `Bearer glk_…`); a key is
  // not a page session.
  const actor = await identify(request)
  return actor?.via === 'session' ? actor : null
}

/** Requires a signed-in user with at least `minRole`; sends anonymous visitors to the login page. */
export async function requireUser(request: Request, minRole: Role = 'viewer'): Promise<SessionActor> {
  const actor = await getSessionActor(request)
  if (!actor) {
    const url = new URL(request.url)
    throw redirect(`/login?redirectTo=${encodeURIComponent(url.pathname + url.search)}`)
  }
  if (!hasRole(actor.user, minRole)) {
    // The error page names the role the page needs and the reader's own, in the reader's language.
    throw data(
      { message: 'Your role does not allow this page.', neededRole: minRole, role: actor.user.role },
      { status: 403 },
    )
  }
  return actor
}

/** For actions: the same as `requireUser`, plus the Origin/Referer check of cookie-session writes. */
export async function requireUserAction(request: Request, minRole: Role = 'viewer'): Promise<SessionActor> {
  const actor = await requireUser(request, minRole)
  requireSameOrigin(request)
  return actor
}

/** The cross-site check for a form post, as a 403 page instead of a thrown AppError. */
export function requireSameOrigin(request: Request, required = true): void {
  try {
    assertSameOrigin(request, required)
  } catch (error) {
    if (error instanceof AppError) throw data({ message: error.message }, { status: 403 })
    throw error
  }
}

export function clientOfPage(
  request: Request,
  context: AppLoadContext,
): { ip: string; userAgent: string | null } {
  return { ip: context.ip ?? '', userAgent: request.headers.get('user-agent') }
}

/** Who did a page's audited action and from where: the signed-in user (by email) and the page request's client. */
export function pageAudit(actor: SessionActor, request: Request, context: AppLoadContext) {
  return {
    actor: { userId: actor.user.id, label: actor.user.email },
    client: clientOfPage(request, context),
  }
}

export function isHttpsPage(context: AppLoadContext): boolean {
  return context.isHttps ?? false
}

/**
 * Where to send the browser back to: a `redirectTo` value or a `Referer`, judged by the one return-address rule
 * (`app/lib/return-path.ts`; an absolute URL only on one of GLOSSARY_ALLOWED_ORIGINS); anything else is `/`.
 */
export function returnPathOf(candidate: FormDataEntryValue | string | null | undefined): string {
  return returnPath(candidate, { allowedOrigins: getConfig().allowedOrigins })
}
