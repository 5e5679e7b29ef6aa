/**
 * UTF-8 JSON written straight into a caller's buffer, for answers encoded on a hot path (the term lookup's,
 * app/api/lookup-answer.server.ts) where building a JSON string per value and then encoding it allocated more
 * than the answer itself and made the young-generation collections that set the lookup's tail
 * (docs/decisions/013-letter-case.md, "Speed of the request path"). The bytes are `JSON.stringify`'s (ES2019
 * well-formed: lone surrogates escaped, lowercase hex), which the unit test checks code unit by code unit.
 */

/** The most bytes one UTF-16 code unit of a string can take in JSON (`\u001f`); the quotes come on top. */
export const MAX_JSON_BYTES_PER_UNIT = 6

/** The punctuation bytes the encoders write one at a time. */
export const COMMA = 0x2c
export const OPEN_OBJECT = 0x7b
export const CLOSE_ARRAY = 0x5d
export const CLOSE_OBJECT = 0x7d

const HEX = '0123456789abcdef'
/** Escapes JSON gives a name (\b \t \n \f \r); other control characters are written as \u00XX. */
const SHORT_ESCAPES: Record<number, number> = { 8: 0x62, 9: 0x74, 10: 0x6e, 12: 0x66, 13: 0x72 }

/**
 * Writes `text` as a JSON string at `at` and returns the offset after it. The buffer must have room for
 * `MAX_JSON_BYTES_PER_UNIT * text.length + 2` bytes from `at`.
 */
export function writeJsonString(out: Uint8Array, at: number, text: string): number {
  out[at++] = 0x22
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (c < 0x80) {
      if (c >= 0x20 && c !== 0x22 && c !== 0x5c) out[at++] = c
      else at = writeEscape(out, at, c)
    } else if (c < 0x800) {
      out[at++] = 0xc0 | (c >> 6)
      out[at++] = 0x80 | (c & 0x3f)
    } else if (c < 0xd800 || c > 0xdfff) {
      out[at++] = 0xe0 | (c >> 12)
      out[at++] = 0x80 | ((c >> 6) & 0x3f)
      out[at++] = 0x80 | (c & 0x3f)
    } else {
      const next = i + 1 < text.length ? text.charCodeAt(i + 1) : 0
      if (c <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) {
        const cp = 0x10000 + ((c - 0xd800) << 10) + (next - 0xdc00)
        out[at++] = 0xf0 | (cp >> 18)
        out[at++] = 0x80 | ((cp >> 12) & 0x3f)
        out[at++] = 0x80 | ((cp >> 6) & 0x3f)
        out[at++] = 0x80 | (cp & 0x3f)
        i++
      } else {
        at = writeUnicodeEscape(out, at, c) // a lone surrogate, as JSON.stringify writes it
      }
    }
  }
  out[at++] = 0x22
  return at
}

function writeEscape(out: Uint8Array, at: number, c: number): number {
  out[at++] = 0x5c
  if (c === 0x22 || c === 0x5c) {
    out[at++] = c
    return at
  }
  const short = SHORT_ESCAPES[c]
  if (short !== undefined) {
    out[at++] = short
    return at
  }
  return writeUnicodeEscape(out, at - 1, c)
}

function writeUnicodeEscape(out: Uint8Array, at: number, c: number): number {
  out[at++] = 0x5c
  out[at++] = 0x75
  for (let shift = 12; shift >= 0; shift -= 4) out[at++] = HEX.charCodeAt((c >> shift) & 0xf)
  return at
}

/** The most bytes `writeNumber` writes (`-1.7976931348623157e+308`). */
export const MAX_JSON_NUMBER_BYTES = 24

/**
 * Writes `n` as JSON writes it at `at` and returns the offset after it: the digits of a safe integer (offsets,
 * lines, counts) written in place, any other number as `JSON.stringify` spells it (`null` when not finite).
 */
export function writeNumber(out: Uint8Array, at: number, n: number): number {
  if (!Number.isSafeInteger(n)) {
    const text = JSON.stringify(n)
    for (let i = 0; i < text.length; i++) out[at++] = text.charCodeAt(i)
    return at
  }
  if (n < 0) {
    out[at++] = 0x2d
    n = -n
  }
  let digits = 1
  for (let rest = n; rest >= 10; rest = Math.floor(rest / 10)) digits++
  const end = at + digits
  for (let k = end - 1; k >= at; k--) {
    out[k] = 0x30 + (n % 10)
    n = Math.floor(n / 10)
  }
  return end
}

/** Writes ASCII `bytes` (a constant part of the JSON) at `at` and returns the offset after them. */
export function writeAscii(out: Uint8Array, at: number, bytes: Uint8Array): number {
  for (let i = 0; i < bytes.length; i++) out[at++] = bytes[i]!
  return at
}

/** What comes before a string member (its name, and the punctuation before that), then the string. */
export function writeStringMember(out: Uint8Array, at: number, before: Uint8Array, value: string): number {
  return writeJsonString(out, writeAscii(out, at, before), value)
}

/** The bytes of a constant ASCII part of the JSON (`,"name":`). */
export const asciiBytes = (text: string): Buffer => Buffer.from(text, 'latin1')

/**
 * A buffer reused for writing an answer (encoding is synchronous), which is then copied into a buffer of its
 * own size: allocating the bound for every answer (~365 KB for a lookup's 130 KB) made the memory outside the
 * heap grow three times as fast, and V8 also starts full collections for that growth (decision 013, session
 * 10: 3-5 instead of 10-11 over the benchmark's lookups). It grows to 4 MB at most (the lookup's bound of 500
 * texts is ~365 KB, a validation's of 1 MB of text ~2 MB); a rarer, bigger bound gets a buffer of its own.
 */
export class ScratchBuffer {
  private buffer = Buffer.allocUnsafeSlow(0)

  /** What `write` writes from the start of a buffer with room for `bound` bytes, in a buffer of its size. */
  written(bound: number, write: (out: Buffer) => number): Buffer {
    let out = this.buffer
    if (bound > 4 * 1024 * 1024) out = Buffer.allocUnsafe(bound)
    else if (out.length < bound) out = this.buffer = Buffer.allocUnsafeSlow(bound)
    return Buffer.from(out.subarray(0, write(out)))
  }
}
