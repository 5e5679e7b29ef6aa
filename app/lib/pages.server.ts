import { data, redirect, type AppLoadContext } from '@remix-run/node'
import type { z } from 'zod'
import { assertSameOrigin, identify } from './auth-gate.server.ts'
import { AppError, expectedError, zodProblems } from './errors.server.ts'
import { hasRole, type Actor, type Role } from '#domain/identity.ts'

/**
 * What every page loader and action shares: who is signed in (the same gate as the API), the cross-site check
 * on form posts, the client address for the audit log, and turning a service failure into form errors.
 */

export type SessionActor = Extract<Actor, { via: 'session' }>

/** The signed-in session of a page request, or null. Pages ignore API keys. */
export async function getSessionActor(request: Request): Promise<SessionActor | null> {
  if (request.headers.has('authorization')) return null
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
    throw data({ message: 'Your role does not allow this page.' }, { status: 403 })
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

export function isHttpsPage(context: AppLoadContext): boolean {
  return context.isHttps ?? false
}

export type FieldErrors = Record<string, string>
export interface FormFailure {
  ok: false
  formError?: string
  fieldErrors?: FieldErrors
  code?: string
}

/** Parses form fields with the same zod schema the API uses; problems become per-field messages. */
export function parseForm<S extends z.ZodType>(
  schema: S,
  values: unknown,
): { ok: true; data: z.output<S> } | FormFailure {
  const result = schema.safeParse(values)
  if (result.success) return { ok: true, data: result.data }
  const fieldErrors: FieldErrors = {}
  for (const problem of zodProblems(result.error)) fieldErrors[problem.path] ??= problem.message
  return { ok: false, fieldErrors }
}

/**
 * The answer of an action to a form it cannot accept: the page again with the form's errors, status 400 (401
 * where the page must answer exactly like a failed sign-in), so a client or a test sees the refusal.
 */
export function invalidForm<T extends object>(payload: T, status: 400 | 401 = 400) {
  return data(payload, { status })
}

/**
 * Runs a service call for a form; an expected failure (AppError) becomes the form's error message, with
 * `extra` (for example the submitted values, to fill the form again) merged into the answer.
 */
export async function formAction<T>(
  fn: () => Promise<T>,
  extra: Record<string, unknown> = {},
): Promise<T | ReturnType<typeof data<FormFailure>>> {
  try {
    return await fn()
  } catch (thrown) {
    const error = expectedError(thrown)
    if (error) {
      const fieldErrors: FieldErrors = {}
      const problems = (error.details?.problems ?? []) as { path: string; message: string }[]
      for (const problem of problems) fieldErrors[problem.path] ??= problem.message
      return data<FormFailure>(
        { ...extra, ok: false, formError: error.message, fieldErrors, code: error.code },
        { status: error.status, headers: error.headers },
      )
    }
    throw thrown
  }
}

/**
 * The one mapping of a service failure to a page, for loaders (and actions that read before they write): an
 * expected failure (AppError) becomes the error page with its status and message — an unknown id the 404
 * page, a bad filter the 400 page; anything else propagates as the 500 page (logged, no details shown).
 */
export async function orErrorPage<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn()
  } catch (thrown) {
    const error = expectedError(thrown)
    if (error) throw data({ message: error.message }, { status: error.status })
    throw thrown
  }
}

/** A same-site path to return to after login; anything else falls back to `/`. */
export function safeRedirect(target: FormDataEntryValue | string | null | undefined, fallback = '/'): string {
  if (
    typeof target !== 'string' ||
    !target.startsWith('/') ||
    target.startsWith('//') ||
    target.startsWith('/\\')
  ) {
    return fallback
  }
  return target
}
