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
 * acceptable text, with its path in the same dotted form as zod's problems (`body.notations.0.text`). A path
 * is spelled out only for a string that has a problem: building one for each of a lookup's 500 texts was
 * most of what this walk allocated.
 */
export function textProblems(value: unknown, path: string, out: Problem[] = [], limit = 20): Problem[] {
  walk(value, { base: path, keys: [], out, limit })
  return out
}

interface Walk {
  base: string
  /** The keys and indexes from the value given to textProblems down to the one being looked at. */
  keys: (string | number)[]
  out: Problem[]
  limit: number
}

function walk(value: unknown, w: Walk): void {
  if (w.out.length >= w.limit) return
  if (typeof value === 'string') {
    const defect = textDefect(value)
    if (defect) w.out.push({ path: pathOf(w), message: `The value ${defect}`, code: 'invalid_text' })
  } else if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      w.keys.push(i)
      walk(value[i], w)
      w.keys.pop()
    }
  } else if (value !== null && typeof value === 'object') {
    for (const key of Object.keys(value)) {
      const defect = textDefect(key)
      w.keys.push(defect ? '(key)' : key)
      if (defect) w.out.push({ path: pathOf(w), message: `A field name ${defect}`, code: 'invalid_text' })
      else walk((value as Record<string, unknown>)[key], w)
      w.keys.pop()
    }
  }
}

function pathOf(w: Walk): string {
  return w.keys.reduce<string>((path, key) => join(path, String(key)), w.base)
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
