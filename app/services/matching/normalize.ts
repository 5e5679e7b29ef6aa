/**
 * Text normalization shared by notations and scanned documents.
 *
 * The normal form is: NFKC, then lowercase applied one code point at a time (context-free, so a
 * notation and the text it occurs in always fold the same way), then whitespace folding: a single
 * whitespace code unit becomes ' ', a run of whitespace becomes one ' ' (or one '\n' when the run
 * holds two or more line breaks, i.e. a paragraph break, so no multi-word notation matches across it).
 *
 * Offsets: NFKC can change lengths ('ﬁ' → 'fi', '㈜' → '(주)', 'e\u0301' → 'é') and whitespace
 * folding shortens runs, so we keep an offset map back to original UTF-16 code units. The map is sparse:
 * it lists only the pieces whose length changed; every other normalized unit corresponds to exactly
 * one original unit, found by the delta after the nearest preceding piece. A typical document (ASCII,
 * Hangul, single spaces) has a handful of pieces, often none.
 *
 * How it stays fast and exact: the text is cut into "atoms". An atom starts at a safe starter, a code
 * point that NFKC never composes with what precedes it (ASCII, Hangul syllables, CJK unified
 * ideographs) and extends over the following non-starters. A one-unit atom is folded by a table
 * lookup. Longer atoms (rare: accents, full-width forms, ligatures, emoji) are normalized as a
 * whole; if that equals the concatenation of their code points normalized one by one, each code point
 * keeps its own span, otherwise (a real composition such as 'e' + U+0301) the atom maps as one block.
 */

/** A normalized text: code units plus the way back to the original offsets. */
export interface NormalizedText {
  /** Normalized UTF-16 code units (a view of exactly `length` units). */
  readonly units: Uint16Array
  readonly length: number
  /**
   * Pieces whose length changed, 4 ints each: normalized [start, end) came from original [start, end).
   * Between pieces every normalized unit maps to exactly one original unit, so a position is
   * translated with the nearest preceding piece (binary search). Empty for most texts.
   */
  readonly pieces: Int32Array
  readonly pieceCount: number
}

const F_SAFE = 1 // safe starter: folds to itself (or to its lowercase) and never composes backwards
const F_WS = 2 // whitespace
const F_LINEBREAK = 4

/** Per-BMP-code-unit flags, built once (64 KiB, a few ranges). */
const FLAGS = new Uint8Array(0x10000)
/** Fold of a safe starter (ASCII lowercase; identity elsewhere). */
const FOLD = new Uint16Array(0x10000)
;(() => {
  for (let c = 0; c < 0x80; c++) {
    FLAGS[c] = F_SAFE
    FOLD[c] = c >= 0x41 && c <= 0x5a ? c + 32 : c
  }
  for (let c = 0xac00; c <= 0xd7a3; c++) {
    FLAGS[c] = F_SAFE // Hangul syllables: NFKC-stable, no case
    FOLD[c] = c
  }
  for (let c = 0x4e00; c <= 0x9fff; c++) {
    FLAGS[c] = F_SAFE // CJK unified ideographs (Hanja): no decomposition, no case
    FOLD[c] = c
  }
  // Whitespace as in JS \s. U+FEFF (BOM) is left out on purpose: it is invisible, not a gap.
  const ws = [0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x20, 0x85, 0xa0, 0x1680, 0x2028, 0x2029, 0x202f, 0x205f, 0x3000]
  for (let c = 0x2000; c <= 0x200a; c++) ws.push(c)
  for (const c of ws) FLAGS[c] = F_WS // not F_SAFE: whitespace goes through its own folding
  for (const c of [0x0a, 0x0b, 0x0c, 0x0d, 0x85, 0x2028, 0x2029]) FLAGS[c] |= F_LINEBREAK
})()

/** Output buffer plus the list of length-changing pieces. */
class Builder {
  units: Uint16Array
  len = 0
  pieces = new Int32Array(64)
  pieceCount = 0

  constructor(capacity: number) {
    this.units = new Uint16Array(capacity)
  }

  /** Make room for `extra` more units. */
  reserve(extra: number): void {
    if (this.len + extra <= this.units.length) return
    const u = new Uint16Array(Math.max(this.units.length * 2, this.len + extra))
    u.set(this.units.subarray(0, this.len))
    this.units = u
  }

  /** Emit normalized `str` produced by original span [from, to). */
  emit(str: string, from: number, to: number): void {
    const n = str.length
    this.reserve(n)
    if (n !== to - from) {
      if ((this.pieceCount + 1) * 4 > this.pieces.length) {
        const p = new Int32Array(this.pieces.length * 2)
        p.set(this.pieces)
        this.pieces = p
      }
      const k = this.pieceCount++ * 4
      this.pieces[k] = this.len
      this.pieces[k + 1] = this.len + n
      this.pieces[k + 2] = from
      this.pieces[k + 3] = to
    }
    for (let k = 0; k < n; k++) this.units[this.len + k] = str.charCodeAt(k)
    this.len += n
  }
}

/** Lowercase one code point at a time (no context rules such as Greek final sigma). */
function lowerPerCodePoint(s: string): string {
  let out = ''
  for (const cp of s) out += cp.toLowerCase()
  return out
}

/** Normalize the atom text[from, to) into the builder (the slow path). */
function emitAtom(b: Builder, text: string, from: number, to: number): void {
  const atom = text.slice(from, to)
  const whole = atom.normalize('NFKC')
  // Try to keep each code point's own span: valid when NFKC did not combine code points.
  const parts: string[] = []
  let joined = ''
  for (const cp of atom) {
    const n = cp.normalize('NFKC')
    parts.push(n)
    joined += n
  }
  if (joined === whole) {
    let pos = from
    for (let k = 0; k < parts.length; k++) {
      const width = text.codePointAt(pos)! > 0xffff ? 2 : 1
      emitFolded(b, lowerPerCodePoint(parts[k]), pos, pos + width)
      pos += width
    }
  } else {
    emitFolded(b, lowerPerCodePoint(whole), from, to)
  }
}

/**
 * Emit a normalized piece, folding whitespace that NFKC may have produced (e.g. U+00A8 → ' \u0308')
 * so that notation and text agree: any whitespace unit becomes ' '.
 */
function emitFolded(b: Builder, s: string, from: number, to: number): void {
  let clean = s
  for (let k = 0; k < s.length; k++) {
    if (FLAGS[s.charCodeAt(k)] & F_WS) {
      clean = s.replace(/\s/g, ' ')
      break
    }
  }
  b.emit(clean, from, to)
}

/**
 * Normalize the whitespace run or atom starting at `i` (the slow path) and return where it ends.
 */
function emitSlow(b: Builder, text: string, i: number): number {
  const n = text.length
  if (FLAGS[text.charCodeAt(i)] & F_WS) {
    let j = i + 1
    while (j < n && FLAGS[text.charCodeAt(j)] & F_WS) j++
    // Count line breaks; '\r\n' is one break. Two or more make a paragraph break.
    let breaks = 0
    for (let k = i; k < j; k++) {
      const d = text.charCodeAt(k)
      if (FLAGS[d] & F_LINEBREAK && !(d === 0x0d && k + 1 < j && text.charCodeAt(k + 1) === 0x0a)) breaks++
    }
    b.emit(breaks >= 2 ? '\n' : ' ', i, j)
    return j
  }
  // An atom: this code unit plus the following units that are neither safe starters nor whitespace.
  let j = i + 1
  while (j < n && !(FLAGS[text.charCodeAt(j)] & (F_SAFE | F_WS))) j++
  emitAtom(b, text, i, j)
  return j
}

/**
 * Normalize `text` and keep the map back to original UTF-16 offsets.
 * Cost: one pass with table lookups; only whitespace runs and atoms outside ASCII/Hangul/Hanja leave
 * the inner loop, and only those call String#normalize.
 */
export function normalizeWithMap(text: string): NormalizedText {
  const n = text.length
  const b = new Builder(n + 16)
  let units = b.units
  let len = 0
  let i = 0
  let c = n > 0 ? text.charCodeAt(0) : 0
  while (i < n) {
    // Lookahead: NUL past the end is a safe starter, so the last unit takes the fast path too.
    const d = i + 1 < n ? text.charCodeAt(i + 1) : 0
    const f = FLAGS[c]
    if (f & F_SAFE && FLAGS[d] & (F_SAFE | F_WS)) {
      units[len++] = FOLD[c]
    } else if (f & F_WS && !(FLAGS[d] & F_WS)) {
      units[len++] = 0x20
    } else {
      b.len = len
      i = emitSlow(b, text, i)
      // Keep room for the rest of the text at one unit per unit, so the fast path never checks.
      b.reserve(n - i + 16)
      units = b.units
      len = b.len
      c = i < n ? text.charCodeAt(i) : 0
      continue
    }
    i++
    c = d
  }
  return {
    units: units.subarray(0, len),
    length: len,
    pieces: b.pieces,
    pieceCount: b.pieceCount,
  }
}

/**
 * Map a normalized range [start, end) (end > start) back to original UTF-16 offsets. A range that
 * starts or ends inside a changed piece (e.g. inside '(주)' from '㈜') widens to the whole piece.
 */
export function toOriginalRange(norm: NormalizedText, start: number, end: number): [number, number] {
  return [originalStart(norm, start), originalEnd(norm, end)]
}

/** Original offset where normalized unit `k` starts. */
export function originalStart(norm: NormalizedText, k: number): number {
  const q = pieceBefore(norm, k)
  if (q < 0) return k
  const p = norm.pieces
  return k < p[q + 1] ? p[q + 2] : p[q + 3] + (k - p[q + 1])
}

/** Original offset where a normalized range ending (exclusively) at `end` ends; end > 0. */
export function originalEnd(norm: NormalizedText, end: number): number {
  const k = end - 1
  const q = pieceBefore(norm, k)
  if (q < 0) return end
  const p = norm.pieces
  return k < p[q + 1] ? p[q + 3] : p[q + 3] + (k - p[q + 1]) + 1
}

/** Index (×4) of the last piece whose normalized start is <= k, or -1. */
function pieceBefore(norm: NormalizedText, k: number): number {
  const p = norm.pieces
  let lo = 0
  let hi = norm.pieceCount - 1
  let found = -1
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1
    if (p[mid * 4] <= k) {
      found = mid
      lo = mid + 1
    } else hi = mid - 1
  }
  return found * 4
}

/** Decode normalized units to a string (chunked: String.fromCharCode has an argument limit). */
export function unitsToString(units: Uint16Array): string {
  let out = ''
  for (let k = 0; k < units.length; k += 8192) {
    out += String.fromCharCode.apply(null, Array.from(units.subarray(k, k + 8192)))
  }
  return out
}

/**
 * The normal form as a string: the same folding `normalizeWithMap` applies to scanned text, which is
 * what the matcher applies to notations (plus trimming, see `normalizeKey`).
 */
export function normalizeText(s: string): string {
  // Fast path for the usual notation: only ASCII lowercasing.
  if (isPlain(s)) return s.toLowerCase()
  return unitsToString(normalizeWithMap(s).units)
}

/**
 * Whether every code unit is a safe starter (ASCII, Hangul, Hanja) or a space that no whitespace follows: such a
 * text is its own NFKC form and folds by ASCII lowercasing alone (the fast paths of `normalizeText` and
 * `normalizeKey`).
 */
function isPlain(s: string): boolean {
  for (let k = 0; k < s.length; k++) {
    const c = s.charCodeAt(k)
    const ok = c === 0x20 ? !(k + 1 < s.length && FLAGS[s.charCodeAt(k + 1)] & F_WS) : FLAGS[c] & F_SAFE
    if (!ok) return false
  }
  return true
}

/**
 * Key for exact lookups (e.g. "does this notation already exist?"): trim, collapse inner whitespace
 * to one space, NFKC, lowercase. Equal keys mean the matcher treats the two strings as one notation.
 */
export function normalizeKey(s: string): string {
  // Fast path for the usual looked-up text (plain, no space at either end): nothing to trim or collapse, so
  // only the ASCII lowercasing is left. The lookup of 500 texts calls this once per text; the general path
  // allocates four strings each time.
  if (isPlain(s) && s.charCodeAt(0) !== 0x20 && s.charCodeAt(s.length - 1) !== 0x20) return s.toLowerCase()
  return normalizeText(s.normalize('NFKC').trim().replace(/\s+/g, ' ')).trim()
}
