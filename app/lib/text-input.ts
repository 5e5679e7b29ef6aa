import { validationError, type Problem } from './errors.server.ts'

/**
 * The input-boundary rule for text: every string that enters the service (path segment, query value, JSON
 * string or key, form field, uploaded CSV) must be well-formed Unicode without NUL. PostgreSQL cannot store
 * U+0000 in `text` or `jsonb`, and a lone surrogate cannot be encoded as UTF-8, so either would fail deep in
 * a write as an internal error. Refusing them here, once, turns that into 400 `validation_failed` naming the
 * field. Other control characters are legal text and pass.
 */

/** Why a string is not acceptable text, or undefined when it is. */
export function textDefect(value: string): string | undefined {
  if (value.includes('\u0000')) return 'contains a NUL character (U+0000), which is not allowed in text.'
  if (!value.isWellFormed()) return 'contains an unpaired surrogate code unit: it is not valid Unicode text.'
  return undefined
}

/**
 * Walks a parsed value (strings, arrays, plain objects, their keys) and lists every string that is not
 * acceptable text, with its path in the same dotted form as zod's problems (`body.notations.0.text`).
 */
export function textProblems(value: unknown, path: string, out: Problem[] = [], limit = 20): Problem[] {
  if (out.length >= limit) return out
  if (typeof value === 'string') {
    const defect = textDefect(value)
    if (defect) out.push({ path, message: `The value ${defect}`, code: 'invalid_text' })
  } else if (Array.isArray(value)) {
    value.forEach((item, i) => textProblems(item, join(path, String(i)), out, limit))
  } else if (value !== null && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) {
      const defect = textDefect(key)
      if (defect)
        out.push({ path: join(path, '(key)'), message: `A field name ${defect}`, code: 'invalid_text' })
      else textProblems(item, join(path, key), out, limit)
    }
  }
  return out
}

/** Throws 400 `validation_failed` when any string in `value` is not acceptable text. */
export function assertValidText(value: unknown, path: string): void {
  const problems = textProblems(value, path)
  if (problems.length) throw validationError(problems)
}

/**
 * Decodes bytes as UTF-8, refusing malformed sequences (a lenient decoder would silently turn them into
 * U+FFFD and store a corrupted text) and then the defects above.
 */
export function decodeUtf8Text(bytes: Uint8Array, path: string): string {
  let text: string
  try {
    text = strictUtf8.decode(bytes)
  } catch {
    throw validationError([{ path, message: 'The text is not valid UTF-8.', code: 'invalid_text' }])
  }
  assertValidText(text, path)
  return text
}

const strictUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false })

function join(path: string, key: string): string {
  return path ? `${path}.${key}` : key
}
