import { ZodError } from 'zod'
import { isConnectionLost, isDatabaseBusy } from '#db/sql.ts'
import { log } from './logger.server.ts'
import { jsonResponse } from './held-bodies.ts'

/** Every error code the API answers with, and its HTTP status: the one table of it. */
export const STATUS = {
  validation_failed: 400,
  bad_request: 400,
  unauthorized: 401,
  forbidden: 403,
  password_login_disabled: 403,
  not_found: 404,
  method_not_allowed: 405,
  email_taken: 409,
  identity_mismatch: 409,
  conflict: 409,
  revision_conflict: 409,
  operation_conflict: 409,
  duplicate_relation: 409,
  slug_taken: 409,
  term_merged: 409,
  payload_too_large: 413,
  unsupported_media_type: 415,
  header_too_large: 431,
  rate_limited: 429,
  internal_error: 500,
  rag_provider_error: 502,
  rag_not_ready: 503,
  not_ready: 503,
} as const

export type ErrorCode = keyof typeof STATUS

export interface Problem {
  path: string
  message: string
  code?: string
}

/** An expected failure: services throw it, `toErrorResponse` turns it into the spec's envelope. */
export class AppError extends Error {
  readonly code: ErrorCode
  readonly status: number
  readonly details: Record<string, unknown> | undefined
  readonly headers: Record<string, string> | undefined

  constructor(
    code: ErrorCode,
    message: string,
    options: { details?: Record<string, unknown>; headers?: Record<string, string>; cause?: unknown } = {},
  ) {
    super(message, { cause: options.cause })
    this.name = 'AppError'
    this.code = code
    this.status = STATUS[code]
    this.details = options.details
    this.headers = options.headers
  }
}

/** A validation failure with the spec's `details.problems`. */
export function validationError(problems: Problem[], message = 'The request is not valid.'): AppError {
  return new AppError('validation_failed', message, { details: { problems } })
}

export function zodProblems(error: ZodError, prefix?: string): Problem[] {
  return error.issues.map((issue) => ({
    path: [prefix, ...issue.path.map(String)].filter(Boolean).join('.') || '(root)',
    message: issue.message,
    code: issue.code,
  }))
}

export interface ErrorBody {
  error: { code: ErrorCode; message: string; details?: Record<string, unknown> }
}

/**
 * The only place that maps an error to HTTP. Expected errors keep their code and message; anything else is
 * logged with its stack and answered as `internal_error` without any detail of what went wrong.
 */
export function toErrorResponse(error: unknown): Response {
  const appError = toAppError(error)
  return jsonResponse(errorBody(appError), {
    status: appError.status,
    headers: { 'Content-Type': 'application/json; charset=utf-8', ...appError.headers },
  })
}

/** The spec's envelope of an expected error. */
export function errorBody(appError: AppError): ErrorBody {
  const body: ErrorBody = { error: { code: appError.code, message: appError.message } }
  if (appError.details) body.error.details = appError.details
  return body
}

/**
 * An expected failure as an AppError (a thrown AppError, a ZodError from a schema a service parsed with, the
 * ORM's not-found and unique-violation errors), or null for anything else — a bug, answered as
 * `internal_error`. The API's envelope and the pages' error messages both map through this one function.
 */
export function expectedError(error: unknown): AppError | null {
  if (error instanceof AppError) return error
  if (error instanceof ZodError) {
    // The ZodError stays as the cause (never sent): pages word each issue from its kind and limits.
    return new AppError('validation_failed', 'Some fields need attention.', {
      details: { problems: zodProblems(error) },
      cause: error,
    })
  }
  const name = (error as { name?: string } | null)?.name
  if (name === 'NotFoundError') return new AppError('not_found', 'Not found.')
  if (name === 'UniqueConstraintViolationException') {
    return new AppError('conflict', 'The item conflicts with an existing one.')
  }
  if (isConnectionLost(error)) {
    // Not a bug of the request: the database went away under it (a restart, a failover). The operator sees
    // it in the log; the caller is told to try again rather than that the server is broken.
    log().warn({ err: error }, 'database connection lost')
    return new AppError('not_ready', 'The database connection was lost; try again in a moment.', {
      headers: { 'Retry-After': '1' },
    })
  }
  if (isDatabaseBusy(error)) {
    // The request waited its whole time for the database (on the embedded engine, behind a long import or
    // sync apply): it did nothing, and can be asked again once that transaction has committed.
    log().warn('database busy: no connection came free in time')
    return new AppError('not_ready', 'The database is busy with a long operation; try again in a moment.', {
      headers: { 'Retry-After': '10' },
    })
  }
  return null
}

function toAppError(error: unknown): AppError {
  const expected = expectedError(error)
  if (expected) return expected
  log().error({ err: error }, 'unhandled error')
  return new AppError('internal_error', 'Something went wrong on the server.')
}
