/**
 * Boundary rules: when an occurrence of a notation in normalized text counts as a match.
 *
 * Each edge of a notation takes the rule of its own edge character (so "API 게이트웨이" is Latin on the
 * left, Korean on the right):
 * - WORD edge (Latin/other alphabetic letters, digits, '_'): the neighbouring character must not be a
 *   WORD character. Hangul next to it IS a boundary: "API를", "BullMQ는", "data pipeline에서".
 * - HANGUL edge, left: the previous character must not be Hangul ("정보" does not match in "개인정보").
 * - HANGUL edge, right: the Hangul run that follows must be empty or a known particle/ending
 *   ("회사는", "회사에서" match "회사"; "회사원" does not).
 * - OTHER edge (punctuation, symbols, CJK ideographs, kana, emoji): no constraint on that side.
 */
import { PARTICLE_TRIE, type ParticleNode } from './korean-particles.ts'

export const OTHER = 0
export const WORD = 1
export const HANGUL = 2

const UNKNOWN = 255
/** Lazily filled class cache for the BMP (normalized text only holds BMP units plus surrogates). */
const CLASS = new Uint8Array(0x10000).fill(UNKNOWN)
;(() => {
  for (let c = 0; c < 0x80; c++) {
    const word =
      (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a) || c === 0x5f
    CLASS[c] = word ? WORD : OTHER
  }
  for (let c = 0xac00; c <= 0xd7a3; c++) CLASS[c] = HANGUL
  for (let c = 0xd800; c <= 0xdfff; c++) CLASS[c] = OTHER
})()

const LETTER_LIKE = /^[\p{L}\p{N}\p{M}]$/u
// Scripts written without spaces: a neighbouring character of these never glues to a Latin word.
const NO_SPACE_SCRIPT = /^[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]$/u
const HANGUL_SCRIPT = /^\p{Script=Hangul}$/u

function computeClass(c: number): number {
  const ch = String.fromCharCode(c)
  let k = OTHER
  if (HANGUL_SCRIPT.test(ch)) k = LETTER_LIKE.test(ch) ? HANGUL : OTHER
  else if (LETTER_LIKE.test(ch) && !NO_SPACE_SCRIPT.test(ch)) k = WORD
  CLASS[c] = k
  return k
}

/** Boundary class of one normalized UTF-16 code unit: OTHER, WORD or HANGUL. */
export function charClass(c: number): number {
  const k = CLASS[c]
  return k === UNKNOWN ? computeClass(c) : k
}

/**
 * True if the occurrence units[start, end) may be reported, given the classes of the notation's first
 * (`left`) and last (`right`) characters.
 */
export function boundaryOk(
  units: Uint16Array,
  length: number,
  start: number,
  end: number,
  left: number,
  right: number,
): boolean {
  if (start > 0 && left !== OTHER) {
    const prev = charClass(units[start - 1])
    if (prev === left) return false // WORD after WORD, or Hangul mid-word
  }
  return rightBoundaryOk(units, length, end, right)
}

/**
 * The left rule seen from the text: a notation may start at `start` only when the character there is OTHER
 * or the one before it has another class (the notation's first character IS the text's, so its class is
 * the text's). The matcher uses this to try notations only at such positions.
 */
export function mayStartAt(prevClass: number, cls: number): boolean {
  return cls === OTHER || cls !== prevClass
}

/** The right rule: may an occurrence whose last character has class `right` end at `end`? */
export function rightBoundaryOk(units: Uint16Array, length: number, end: number, right: number): boolean {
  if (end < length && right !== OTHER) {
    const next = charClass(units[end])
    if (right === WORD) return next !== WORD
    if (next === HANGUL) {
      // Korean notation: the whole attached Hangul run must be a particle/ending. Walk it through the
      // particle trie; leaving the trie before the run ends means it is some other word.
      let node: ParticleNode | undefined = PARTICLE_TRIE
      for (let j = end; j < length && charClass(units[j]) === HANGUL; j++) {
        node = node.next.get(units[j])
        if (!node) return false
      }
      return node.end
    }
  }
  return true
}
