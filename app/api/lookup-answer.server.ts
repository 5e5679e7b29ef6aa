import { MAX_JSON_BYTES_PER_UNIT, writeAscii, writeJsonString } from '#app/lib/json-bytes.ts'
import type { LookupMatch, LookupResult } from '#app/services/validation/lookup.server.ts'

/**
 * The UTF-8 JSON of the term lookup's answer, written straight into one buffer: the same bytes as
 * `JSON.stringify` (the unit test holds it to that) in about half its time. The lookup is the hot path of
 * editors and linters (500 texts a request, ~130 KB answers), and most of an answer is the facts of the terms
 * it names, which are frozen and shared between requests (app/services/validation/findings.server.ts): their
 * JSON is made once and copied, and only each result's own text is serialized per request. A remembered result
 * (frozen, lookup.server.ts) is encoded once as a whole. Measured against `JSON.stringify` of the whole answer
 * and the per-result encoder this replaced: docs/decisions/013-letter-case.md, "Speed of the request path".
 *
 * Written for the shape of `LookupResult` member by member, in its order; a member added there and not here
 * fails the unit test, which compares with `JSON.stringify` over real lookups.
 */
export function encodeLookupAnswer(answer: { results: readonly LookupResult[] }): Buffer {
  const { results } = answer
  // An upper bound of the size, so the buffer is allocated once: a string's JSON takes at most 6 bytes per
  // UTF-16 unit (an escape such as \u001f; a character takes at most 3) plus its quotes.
  let bound = HEAD.length + 2
  for (const result of results) bound += 1 + resultBound(result)
  const out = Buffer.allocUnsafe(bound)
  let at = out.write(HEAD, 0, 'latin1')
  for (let i = 0; i < results.length; i++) {
    if (i > 0) out[at++] = COMMA
    at = writeResult(out, at, results[i]!)
  }
  out[at++] = CLOSE_ARRAY
  out[at++] = CLOSE_OBJECT
  return out.subarray(0, at)
}

const HEAD = '{"results":['
const ascii = (text: string) => Buffer.from(text, 'latin1')
const TEXT = ascii('{"text":')
const NORMALIZED = ascii(',"normalized":')
const FOUND_MATCHES = ascii(',"found":true,"matches":[')
const NOT_FOUND_MATCHES = ascii(',"found":false,"matches":[')
const COMMA = 0x2c
const CLOSE_ARRAY = 0x5d
const CLOSE_OBJECT = 0x7d
/** The bytes of a result's members besides its two texts and its matches, with room to spare. */
const RESULT_FRAME = 64

/** Bytes of frozen values (remembered results, the facts of matches); they go when their value goes. */
const bytesOfFrozen = new WeakMap<object, Buffer>()

function resultBound(result: LookupResult): number {
  const known = bytesOfFrozen.get(result)
  if (known) return known.length
  let bound = RESULT_FRAME + MAX_JSON_BYTES_PER_UNIT * (result.text.length + result.normalized.length)
  for (const match of result.matches) bound += 1 + matchBytes(match).length
  return bound
}

function writeResult(out: Buffer, at: number, result: LookupResult): number {
  if (!Object.isFrozen(result)) return writeMembers(out, at, result)
  let bytes = bytesOfFrozen.get(result)
  if (bytes === undefined) {
    const scratch = Buffer.allocUnsafe(resultBound(result))
    bytes = Buffer.from(scratch.subarray(0, writeMembers(scratch, 0, result)))
    bytesOfFrozen.set(result, bytes)
  }
  return at + bytes.copy(out, at)
}

function writeMembers(out: Buffer, at: number, result: LookupResult): number {
  at = writeAscii(out, at, TEXT)
  at = writeJsonString(out, at, result.text)
  at = writeAscii(out, at, NORMALIZED)
  at = writeJsonString(out, at, result.normalized)
  at = writeAscii(out, at, result.found ? FOUND_MATCHES : NOT_FOUND_MATCHES)
  const { matches } = result
  for (let i = 0; i < matches.length; i++) {
    if (i > 0) out[at++] = COMMA
    at += matchBytes(matches[i]!).copy(out, at)
  }
  out[at++] = CLOSE_ARRAY
  out[at++] = CLOSE_OBJECT
  return at
}

/** A match's JSON: made once when the match is frozen all the way down (the shared facts are), else each time. */
function matchBytes(match: LookupMatch): Buffer {
  if (!Object.isFrozen(match)) return Buffer.from(JSON.stringify(match), 'utf8')
  let bytes = bytesOfFrozen.get(match)
  if (bytes === undefined) {
    bytes = Buffer.from(JSON.stringify(match), 'utf8')
    bytesOfFrozen.set(match, bytes)
  }
  return bytes
}
