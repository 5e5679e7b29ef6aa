import { data } from '@remix-run/node'
import type { z } from 'zod'
import { expectedError, zodProblems, type AppError } from '#app/lib/errors.server.ts'

/**
 * The one adapter between services and pages: form fields parsed with the API's zod schemas, and a service
 * failure turned into the form's errors (`formAction`, for actions) or the error page (`orErrorPage`, for
 * loaders). Routes never map an AppError by hand.
 */

export type FieldErrors = Record<string, string>
export interface FormFailure {
  ok: false
  formError?: string
  fieldErrors?: FieldErrors
  code?: string
  /** The failure's other details (as the API would answer them), e.g. a provider failure's `failureClass`. */
  details?: Record<string, unknown>
}

/** The first message of each field among a failure's problems (a validation error's `details.problems`). */
function fieldErrorsOf(problems: readonly { path: string; message: string }[]): FieldErrors {
  const fieldErrors: FieldErrors = {}
  for (const problem of problems) fieldErrors[problem.path] ??= problem.message
  return fieldErrors
}

/** The per-field messages of an expected failure; empty when it names no field. */
export function problemsOf(error: AppError): FieldErrors {
  return fieldErrorsOf((error.details?.problems ?? []) as { path: string; message: string }[])
}

/** Parses form fields with the same zod schema the API uses; problems become per-field messages. */
export function parseForm<S extends z.ZodType>(
  schema: S,
  values: unknown,
): { ok: true; data: z.output<S> } | FormFailure {
  const result = schema.safeParse(values)
  if (result.success) return { ok: true, data: result.data }
  return { ok: false, fieldErrors: fieldErrorsOf(zodProblems(result.error)) }
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
 * `extra` (for example the submitted values, to fill the form again) merged into the answer, and the
 * failure's status. A failure of something behind the page (a 5xx code: the search provider failed, search is
 * not ready) is answered 200 with its code: the page itself worked and says what failed, and a page never
 * answers 5xx (decision 012).
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
      const { problems: _problems, ...details } = error.details ?? {}
      return data<FormFailure>(
        {
          ...extra,
          ok: false,
          formError: error.message,
          fieldErrors: problemsOf(error),
          code: error.code,
          ...(Object.keys(details).length ? { details } : {}),
        },
        { status: error.status >= 500 ? 200 : error.status, headers: error.headers },
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
