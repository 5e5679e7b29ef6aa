import { MAX_JSON_BYTES_PER_UNIT, writeAscii, writeJsonString } from '#app/lib/json-bytes.ts'
import type { LookupMatch, LookupResult } from '#app/services/validation/lookup.server.ts'

/**
 * The UTF-8 JSON of the term lookup's answer, written member by member straight into one buffer: the same
 * bytes as `JSON.stringify` in less than half its time, and without the intermediate strings whose
 * allocation made most of the young-generation collections of a stream of lookups. The lookup is the hot path
 * of editors and linters (500 texts a request, ~130 KB answers). A remembered result (frozen, lookup.server.ts)
 * is encoded once and its bytes are copied into later answers. Measured against `JSON.stringify` and against
 * keeping every match's bytes: docs/decisions/013-letter-case.md, "Speed of the request path".
 *
 * Written for `LookupResult` and `LookupMatch` member by member, in the order the service makes them; the unit
 * test compares with `JSON.stringify`, and an API test compares the answer with `JSON.stringify` of the
 * service's own results, so a member added there and not here fails.
 */
export function encodeLookupAnswer(answer: { results: readonly LookupResult[] }): Buffer {
  const { results } = answer
  // An upper bound of the size (about three times the usual answer: every code unit could need an escape).
  let bound = HEAD.length + 2
  for (let i = 0; i < results.length; i++) bound += 1 + resultBound(results[i]!)
  // The answer gets a buffer of its own size: allocating the bound for every answer (~365 KB for 130 KB) made
  // the off-heap memory of a stream of lookups grow three times as fast, and V8 also starts full collections
  // for that growth (decision 013, session 10: 3-5 instead of 10-11 over the benchmark's lookups).
  return Buffer.from(writeAnswer(answerScratch.room(bound), results))
}

/** Writes the answer at the start of `out` (room for its bound) and returns the bytes written. */
function writeAnswer(out: Buffer, results: readonly LookupResult[]): Buffer {
  let at = writeAscii(out, 0, HEAD)
  for (let i = 0; i < results.length; i++) {
    if (i > 0) out[at++] = COMMA
    at = writeResult(out, at, results[i]!)
  }
  out[at++] = CLOSE_ARRAY
  out[at++] = CLOSE_OBJECT
  return out.subarray(0, at)
}

/**
 * A buffer reused for writing what is then copied into a buffer of its exact size (encoding is synchronous).
 * It grows to 4 MB at most (an answer of 500 texts is ~130 KB, its bound ~365 KB); a rarer, bigger bound gets
 * a buffer of its own.
 */
class Scratch {
  private buffer = Buffer.allocUnsafeSlow(0)

  room(bound: number): Buffer {
    if (bound > 4 * 1024 * 1024) return Buffer.allocUnsafe(bound)
    if (this.buffer.length < bound) this.buffer = Buffer.allocUnsafeSlow(bound)
    return this.buffer
  }
}

/** For answers; a remembered result is written in its own while an answer is being written. */
const answerScratch = new Scratch()
const resultScratch = new Scratch()

const ascii = (text: string) => Buffer.from(text, 'latin1')
const HEAD = ascii('{"results":[')
const TEXT = ascii('{"text":')
const NORMALIZED = ascii(',"normalized":')
const FOUND_MATCHES = ascii(',"found":true,"matches":[')
const NOT_FOUND_MATCHES = ascii(',"found":false,"matches":[')
const NOTATION = ascii('{"notation":')
const TERM_ID = ascii(',"term":{"id":')
const SLUG = ascii(',"slug":')
const NAME = ascii(',"name":')
const STATUS = ascii(',"status":')
const KIND = ascii('},"kind":')
const FINDING = ascii(',"finding":')
const PREFERRED = ascii(',"preferred":')
const PREFERRED_NULL = ascii(',"preferred":null}')
const COMMA = 0x2c
const CLOSE_ARRAY = 0x5d
const CLOSE_OBJECT = 0x7d
/** More than the constant bytes of a result (its member names and punctuation), and of a match. */
const RESULT_FRAME = 64
const MATCH_FRAME = 128

/** Bytes of remembered (frozen) results; they go when their result goes. */
const bytesOfFrozen = new WeakMap<LookupResult, Buffer>()

function resultBound(result: LookupResult): number {
  const known = bytesOfFrozen.get(result)
  if (known) return known.length
  let bound = RESULT_FRAME + MAX_JSON_BYTES_PER_UNIT * (result.text.length + result.normalized.length)
  const { matches } = result
  for (let i = 0; i < matches.length; i++) bound += 1 + matchBound(matches[i]!)
  return bound
}

function matchBound(match: LookupMatch): number {
  const { term } = match
  const units =
    match.notation.length +
    term.id.length +
    term.slug.length +
    term.name.length +
    term.status.length +
    match.kind.length +
    match.finding.length +
    (match.preferred?.length ?? 0)
  return MATCH_FRAME + MAX_JSON_BYTES_PER_UNIT * units
}

function writeResult(out: Buffer, at: number, result: LookupResult): number {
  if (!Object.isFrozen(result)) return writeMembers(out, at, result)
  let bytes = bytesOfFrozen.get(result)
  if (bytes === undefined) {
    // Written in a reused buffer, then copied: a scratch buffer of its own (from Node's pool of small buffers)
    // stayed allocated beside the kept bytes, 26 MB instead of 6 for 20,000 remembered results.
    const scratch = resultScratch.room(resultBound(result))
    bytes = Buffer.from(scratch.subarray(0, writeMembers(scratch, 0, result)))
    bytesOfFrozen.set(result, bytes)
  }
  return at + bytes.copy(out, at)
}

function writeMembers(out: Buffer, at: number, result: LookupResult): number {
  at = writeMember(out, at, TEXT, result.text)
  at = writeMember(out, at, NORMALIZED, result.normalized)
  at = writeAscii(out, at, result.found ? FOUND_MATCHES : NOT_FOUND_MATCHES)
  const { matches } = result
  for (let i = 0; i < matches.length; i++) {
    if (i > 0) out[at++] = COMMA
    at = writeMatch(out, at, matches[i]!)
  }
  out[at++] = CLOSE_ARRAY
  out[at++] = CLOSE_OBJECT
  return at
}

function writeMatch(out: Buffer, at: number, match: LookupMatch): number {
  const { term } = match
  at = writeMember(out, at, NOTATION, match.notation)
  at = writeMember(out, at, TERM_ID, term.id)
  at = writeMember(out, at, SLUG, term.slug)
  at = writeMember(out, at, NAME, term.name)
  at = writeMember(out, at, STATUS, term.status)
  at = writeMember(out, at, KIND, match.kind)
  at = writeMember(out, at, FINDING, match.finding)
  if (match.preferred === null) return writeAscii(out, at, PREFERRED_NULL)
  at = writeMember(out, at, PREFERRED, match.preferred)
  out[at++] = CLOSE_OBJECT
  return at
}

/** What comes before a string member (its name, and the punctuation before that), then the string. */
function writeMember(out: Buffer, at: number, before: Uint8Array, value: string): number {
  return writeJsonString(out, writeAscii(out, at, before), value)
}
