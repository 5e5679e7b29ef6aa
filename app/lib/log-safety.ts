/**
 * What an error may say in the log. Database drivers put the failing statement into the error's message and
 * stack WITH its parameters filled in (`insert into "users" … values ('a@b.c', '$argon2id$…')`), so logging
 * an error as it is leaks whatever the write carried: password and key hashes, emails, user text. Every error
 * that reaches the log goes through `errorForLog` (it is pino's `err` serializer): database errors keep the
 * statement's shape (literals replaced by `?`), the SQLSTATE and the constraint, never a value; every text
 * left is also scrubbed of anything that looks like a credential or an email address.
 */

export interface LoggedError {
  type: string
  message: string
  stack?: string
  code?: string
  constraint?: string
  table?: string
  cause?: LoggedError
}

const SECRET_PATTERNS: [RegExp, string][] = [
  [/\$argon2(?:id|i|d)\$[^\s'",)]*/g, '[hash]'],
  [/\bglk_[0-9a-f]{8}_[A-Za-z0-9_-]+/g, 'glk_[redacted]'],
  [/\b[0-9a-f]{64}\b/gi, '[hash]'],
  [/\b(?:bearer|basic)\s+[A-Za-z0-9._~+/=-]+/gi, '[credentials]'],
  [/[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)+/g, '[email]'],
]

/** Replaces credentials, hashes and email addresses in a free text. */
export function scrubSecrets(text: string): string {
  let out = text
  for (const [pattern, replacement] of SECRET_PATTERNS) out = out.replace(pattern, replacement)
  return out
}

/** A SQL text with every string literal replaced by `?` (the statement's shape, without its values). */
export function sqlShape(sql: string): string {
  return sql.replace(/(?:E|e)?'(?:[^']|'')*'/g, '?')
}

function isDatabaseError(error: Record<string, unknown>): boolean {
  const name = String(error.name ?? '')
  const code = typeof error.code === 'string' ? error.code : ''
  return (
    typeof error.sqlState === 'string' ||
    /^[0-9A-Z]{5}$/.test(code) ||
    name.endsWith('Exception') || // MikroORM's DriverException and its subclasses
    typeof error.severity === 'string' // a raw PostgreSQL / PGlite error
  )
}

/** The log form of any thrown value (see the module comment). */
export function errorForLog(value: unknown, depth = 0): LoggedError {
  if (!(value instanceof Error) && (typeof value !== 'object' || value === null)) {
    return { type: typeof value, message: scrubSecrets(String(value)) }
  }
  const error = value as Error & Record<string, unknown>
  const type = String(error.name ?? error.constructor?.name ?? 'Error')
  const message = String(error.message ?? '')
  const out: LoggedError = { type, message: '' }
  if (isDatabaseError(error)) {
    out.message = scrubSecrets(sqlShape(message))
    const code = error.sqlState ?? error.code
    if (typeof code === 'string') out.code = code
    if (typeof error.constraint === 'string') out.constraint = error.constraint
    if (typeof error.table === 'string') out.table = error.table
  } else {
    out.message = scrubSecrets(message)
    if (typeof error.code === 'string') out.code = error.code
  }
  if (typeof error.stack === 'string') out.stack = stackFrames(error.stack)
  if (error.cause !== undefined && depth < 3) out.cause = errorForLog(error.cause, depth + 1)
  return out
}

/** The stack without its first line(s), which repeat the message: only the `at …` frames are kept. */
function stackFrames(stack: string): string {
  return stack
    .split('\n')
    .filter((line) => line.trimStart().startsWith('at '))
    .join('\n')
}
