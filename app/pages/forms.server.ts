import { data } from '@remix-run/node'
import type { z } from 'zod'
import { expectedError, type AppError } from '#app/lib/errors.server.ts'
import { fill, translate, type MessageKey } from '#app/lib/i18n.ts'
import { pageLang } from '#app/lib/request-lang.server.ts'
import {
  checkFieldsMessage,
  errorPageMessage,
  failureFieldErrors,
  wordFailure,
  zodFieldErrors,
  type FieldErrors,
} from './form-messages.server.ts'

/**
 * The one adapter between services and pages: form fields parsed with the API's zod schemas, and a service
 * failure turned into the form's errors (`formAction`, for actions) or the error page (`orErrorPage`, for
 * loaders). Routes never map an AppError by hand. Every message it gives a page is worded for the reader in
 * the page's language (form-messages.server.ts; the language is the request's, set by the HTTP layer): each
 * refused field says what is wrong and what to do, the form-level message names the fields, and a failure
 * behind the page (the search provider) says what failed. The API's envelope keeps its English.
 */

export type { FieldErrors }
export interface FormFailure {
  ok: false
  formError?: string
  fieldErrors?: FieldErrors
  code?: string
  /** The failure's other details (as the API would answer them), e.g. a provider failure's `failureClass`. */
  details?: Record<string, unknown>
}

/** The failure with its field problems moved to the form's own field names (a page's fields named apart from the API's). */
export function renameFieldErrors(failure: FormFailure, rename: (path: string) => string): FormFailure {
  const fieldErrors = Object.fromEntries(
    Object.entries(failure.fieldErrors ?? {}).map(([path, message]) => [rename(path), message]),
  )
  return { ...failure, fieldErrors }
}

/** The per-field messages of an expected failure, worded for the reader; empty when it names no field. */
export function problemsOf(error: AppError): FieldErrors {
  return failureFieldErrors(pageLang(), error)
}

/** The form-level message of an expected failure, worded for the reader (the fields it names, or what failed). */
export function formErrorOf(error: AppError): string {
  return wordFailure(pageLang(), error).formError
}

/**
 * The whole of a failure in one message, for a page that has no fields to mark (an error page, an answer read
 * by the page's script): each refused field with its label ("File: …"), or what failed.
 */
export function failureText(error: AppError): string {
  return errorPageMessage(pageLang(), error)
}

/** A message of the page's own (a label key and its values) in the reader's language, for hand-made failures. */
export function pageMessage(key: MessageKey, values: Readonly<Record<string, string | number>> = {}): string {
  return fill(translate(pageLang(), key), values)
}

/** Parses form fields with the same zod schema the API uses; problems become per-field messages. */
export function parseForm<S extends z.ZodType>(
  schema: S,
  values: unknown,
): { ok: true; data: z.output<S> } | FormFailure {
  const result = schema.safeParse(values)
  if (result.success) return { ok: true, data: result.data }
  const lang = pageLang()
  const fieldErrors = zodFieldErrors(lang, result.error)
  return { ok: false, formError: checkFieldsMessage(lang, fieldErrors), fieldErrors }
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
 * answers 5xx (decision 012). The messages are the reader's words (`wordFailure`); `code` and `details` stay
 * as the API gives them, for pages that choose what to show by code.
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
      const worded = wordFailure(pageLang(), error)
      return data<FormFailure>(
        {
          ...extra,
          ok: false,
          formError: worded.formError,
          fieldErrors: worded.fieldErrors,
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
 * page, a bad filter the 400 page naming the field; anything else propagates as the 500 page (logged, no
 * details shown). The message is worded for the reader like a form's.
 */
export async function orErrorPage<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn()
  } catch (thrown) {
    const error = expectedError(thrown)
    if (error) throw data({ message: failureText(error) }, { status: error.status })
    throw thrown
  }
}
