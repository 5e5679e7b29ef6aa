import {
  asciiBytes as ascii,
  COMMA,
  OPEN_OBJECT,
  CLOSE_ARRAY,
  CLOSE_OBJECT,
  MAX_JSON_BYTES_PER_UNIT,
  ScratchBuffer,
  writeAscii,
  writeStringMember as writeMember,
} from '#app/lib/json-bytes.ts'
import type { LookupMatch, LookupResult } from '#app/services/validation/lookup.server.ts'
import { useFactsBound, writeUseFactsMembers } from './use-facts-json.server.ts'

/**
 * The UTF-8 JSON of the term lookup's answer, written member by member straight into one buffer: the same
 * bytes as `JSON.stringify` in less than half its time, and without the intermediate strings whose
 * allocation made most of the young-generation collections of a stream of lookups. The lookup is the hot path
 * of editors and linters (500 texts a request, ~130 KB answers). A remembered result (frozen, lookup.server.ts)
 * and a match (the frozen facts findings.server.ts shares) are encoded once and their bytes are copied into
 * later answers. Measured against `JSON.stringify` and against other ways of keeping bytes:
 * docs/decisions/013-letter-case.md, "Speed of the request path".
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
  return answerScratch.written(bound, (out) => writeAnswer(out, results))
}

/** Writes the answer at the start of `out` (room for its bound) and returns the offset after it. */
function writeAnswer(out: Buffer, results: readonly LookupResult[]): number {
  let at = writeAscii(out, 0, HEAD)
  for (let i = 0; i < results.length; i++) {
    if (i > 0) out[at++] = COMMA
    at = writeResult(out, at, results[i]!)
  }
  out[at++] = CLOSE_ARRAY
  out[at++] = CLOSE_OBJECT
  return at
}

/** For answers; a remembered result is written in its own while an answer is being written. */
const answerScratch = new ScratchBuffer()
const resultScratch = new ScratchBuffer()

const HEAD = ascii('{"results":[')
const TEXT = ascii('{"text":')
const NORMALIZED = ascii(',"normalized":')
const FOUND_MATCHES = ascii(',"found":true,"matches":[')
const NOT_FOUND_MATCHES = ascii(',"found":false,"matches":[')
/** More than the constant bytes of a result (its member names and punctuation). */
const RESULT_FRAME = 64

/**
 * The bytes of each match, kept. A match is one of the frozen facts findings.server.ts shares between every
 * text that finds the same form with the same case verdict, so even 500 texts no one asked before mostly meet
 * matches written before; a match's JSON is about two thirds of an answer, and writing it member by member was
 * most of the encoder's time for such texts (in process, 500 new texts: 1.24 ms to encode, 0.81–0.85 ms with the
 * matches' bytes kept; decision 013, session 12). The bytes live in arenas of 1 MB, found through a WeakMap
 * from the match to a small integer, so keeping them adds no object per match to the heap (a `Buffer` per
 * match kept ~80,000 small objects alive, session 8). Bytes of matches that are gone (the facts of a changed
 * term) stay in their arena until the arenas reach `maxArenas`; then all start over, and the matches still in
 * use are written again when next met.
 */
export class MatchBytes<K extends object> {
  private arenas: Buffer[] = []
  /** Bytes used in the last arena. */
  private used = 0
  /** Per value: arena index × arenaBytes + offset of its bytes, which their length (3 bytes) precedes. */
  private places = new WeakMap<K, number>()

  constructor(
    private readonly arenaBytes = 1 << 20,
    private readonly maxArenas = 32,
  ) {}

  /**
   * Copies the bytes of `value` into `out` at `at` and returns the offset after them: those kept, or else
   * written by `write` (at most `bound` bytes) into an arena and kept. A value too big for an arena is written
   * straight into `out`.
   */
  write(
    value: K,
    bound: number,
    write: (out: Buffer, at: number, value: K) => number,
    out: Buffer,
    at: number,
  ): number {
    const place = this.places.get(value)
    if (place !== undefined) {
      const index = Math.floor(place / this.arenaBytes)
      const arena = this.arenas[index]!
      const offset = place - index * this.arenaBytes
      const length = arena[offset - 3]! | (arena[offset - 2]! << 8) | (arena[offset - 1]! << 16)
      return copyBytes(arena, offset, offset + length, out, at)
    }
    if (bound + 3 > this.arenaBytes) return write(out, at, value)
    let arena = this.arenas[this.arenas.length - 1]
    if (arena === undefined || this.used + 3 + bound > this.arenaBytes) {
      if (this.arenas.length === this.maxArenas) {
        this.arenas = []
        this.places = new WeakMap()
      }
      arena = Buffer.allocUnsafeSlow(this.arenaBytes)
      this.arenas.push(arena)
      this.used = 0
    }
    const offset = this.used + 3
    const end = write(arena, offset, value)
    const length = end - offset
    arena[offset - 3] = length & 0xff
    arena[offset - 2] = (length >> 8) & 0xff
    arena[offset - 1] = length >> 16
    this.used = end
    this.places.set(value, (this.arenas.length - 1) * this.arenaBytes + offset)
    return copyBytes(arena, offset, end, out, at)
  }
}

/**
 * Copies `from[start, end)` into `out` at `at` and returns the offset after them. A loop, not `Buffer#copy`:
 * on Node 20 that makes a `Uint8Array` view of the source for every copy from inside a buffer, an object per
 * match of an answer (four more young-generation collections over the benchmark's 1,000 lookups).
 */
function copyBytes(from: Buffer, start: number, end: number, out: Buffer, at: number): number {
  for (let i = start; i < end; i++) out[at++] = from[i]!
  return at
}

const matchBytes = new MatchBytes<LookupMatch>()

/**
 * Bytes of remembered (frozen) results, a buffer each: copied whole, which `Buffer#copy` does natively and
 * without a view (a remembered answer is ~130 KB of them). They go when their result goes.
 */
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
  return 2 + useFactsBound(match)
}

function writeResult(out: Buffer, at: number, result: LookupResult): number {
  if (!Object.isFrozen(result)) return writeMembers(out, at, result)
  let bytes = bytesOfFrozen.get(result)
  if (bytes === undefined) {
    // Written in a reused buffer, then copied: a scratch buffer of its own (from Node's pool of small buffers)
    // stayed allocated beside the kept bytes, 26 MB instead of 6 for 20,000 remembered results.
    bytes = resultScratch.written(resultBound(result), (scratch) => writeMembers(scratch, 0, result))
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
  if (!Object.isFrozen(match)) return writeMatchMembers(out, at, match)
  return matchBytes.write(match, matchBound(match), writeMatchMembers, out, at)
}

function writeMatchMembers(out: Buffer, at: number, match: LookupMatch): number {
  out[at++] = OPEN_OBJECT
  at = writeUseFactsMembers(out, at, match)
  out[at++] = CLOSE_OBJECT
  return at
}
