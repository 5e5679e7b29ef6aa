/**
 * Property tests: the automaton and the full matcher against naive reference implementations on
 * random inputs from a seeded PRNG, so a bug in the automaton (fail links, output links, the sorted
 * children search) or in the containment sweep is caught with a reproducible case.
 */
import { describe, expect, it } from 'vitest'
import { buildAutomaton } from './automaton.ts'
import { boundaryOk, charClass } from './boundary.ts'
import { buildMatcher } from './matcher.ts'
import { normalizeKey, normalizeWithMap, toOriginalRange, unitsToString } from './normalize.ts'
import { prng } from '#tests/prng.ts'

function randomString(rng: () => number, alphabet: readonly string[], min: number, max: number): string {
  const len = min + Math.floor(rng() * (max - min + 1))
  let s = ''
  for (let k = 0; k < len; k++) s += alphabet[Math.floor(rng() * alphabet.length)]
  return s
}

/** Every (end, pattern) occurrence, found with indexOf. */
function naiveHits(patterns: readonly string[], text: string): string[] {
  const out: string[] = []
  patterns.forEach((p, i) => {
    for (let at = text.indexOf(p); at >= 0; at = text.indexOf(p, at + 1)) out.push(`${at + p.length}:${i}`)
  })
  return out.sort()
}

function automatonHits(patterns: readonly string[], text: string): string[] {
  const units = new Uint16Array(text.length)
  for (let k = 0; k < text.length; k++) units[k] = text.charCodeAt(k)
  const out: string[] = []
  buildAutomaton(patterns).scan(units, units.length, (end, p) => out.push(`${end}:${p}`))
  return out.sort()
}

/** The matcher's contract, spelled out the slow way: indexOf, boundary rules, O(n²) containment. */
function naiveScan(notations: readonly string[], text: string): string[] {
  const keys = [...new Set(notations.map(normalizeKey).filter((k) => k.length > 0))]
  const norm = normalizeWithMap(text)
  const s = unitsToString(norm.units)
  const cands: { start: number; end: number; key: string }[] = []
  for (const key of keys) {
    const left = charClass(key.charCodeAt(0))
    const right = charClass(key.charCodeAt(key.length - 1))
    for (let at = s.indexOf(key); at >= 0; at = s.indexOf(key, at + 1)) {
      if (boundaryOk(norm.units, norm.length, at, at + key.length, left, right)) {
        cands.push({ start: at, end: at + key.length, key })
      }
    }
  }
  const kept = cands.filter(
    (c) =>
      !cands.some(
        (d) => d !== c && d.start <= c.start && c.end <= d.end && d.end - d.start > c.end - c.start,
      ),
  )
  kept.sort((a, b) => a.start - b.start)
  return kept.map((c) => {
    const [start, end] = toOriginalRange(norm, c.start, c.end)
    return `${start}-${end}:${c.key}`
  })
}

describe('automaton against indexOf', () => {
  it('finds exactly the same occurrences on small alphabets (deep overlaps)', () => {
    const rng = prng(1)
    for (let round = 0; round < 300; round++) {
      const alphabet = ['a', 'b', 'c'].slice(0, 2 + (round % 2))
      const patterns = [
        ...new Set(
          Array.from({ length: 1 + Math.floor(rng() * 12) }, () => randomString(rng, alphabet, 1, 5)),
        ),
      ]
      const text = randomString(rng, alphabet, 0, 80)
      expect(automatonHits(patterns, text), `round ${round}: ${JSON.stringify({ patterns, text })}`).toEqual(
        naiveHits(patterns, text),
      )
    }
  })

  it('finds exactly the same occurrences with wide fan-out (binary-searched children)', () => {
    const rng = prng(2)
    const alphabet = [...'abcdefghijklmnopqrstuvwxyz', '가', '나', '다', '를', ' ', '😀']
    for (let round = 0; round < 100; round++) {
      const patterns = [...new Set(Array.from({ length: 200 }, () => randomString(rng, alphabet, 1, 4)))]
      const text = randomString(rng, alphabet, 0, 400)
      expect(automatonHits(patterns, text), `round ${round}`).toEqual(naiveHits(patterns, text))
    }
  })

  it('rejects empty and duplicate patterns', () => {
    expect(() => buildAutomaton([''])).toThrow(RangeError)
    expect(() => buildAutomaton(['a', 'a'])).toThrow(RangeError)
    expect(buildAutomaton([]).stateCount).toBe(1)
  })
})

describe('matcher against a naive reference', () => {
  it('agrees on random mixed Korean/English documents', () => {
    const rng = prng(3)
    // Pieces chosen to hit every rule: Latin, digits, Hangul, particles, spaces, full-width, a
    // ligature, a composing accent, an emoji, punctuation and line breaks.
    const pieces = [
      'a',
      'b',
      'A',
      'Ｂ',
      '1',
      '_',
      '가',
      '나',
      '를',
      '에서',
      '는',
      '원',
      ' ',
      ' ',
      '\n',
      '\n\n',
      '.',
      'ﬁ',
      '\u0301',
      '😀',
      '㈜',
    ]
    const notationPieces = ['a', 'b', 'B', '1', '가', '나', '를', '원', ' ', 'fi', '(주)', '.']
    for (let round = 0; round < 300; round++) {
      const notations = Array.from({ length: 1 + Math.floor(rng() * 10) }, () =>
        randomString(rng, notationPieces, 1, 4),
      )
      const text = randomString(rng, pieces, 0, 120)
      const actual = buildMatcher(notations.map((t, i) => ({ id: i, text: t })))
        .scan(text)
        .map((m) => `${m.start}-${m.end}:${m.notation}`)
      expect(actual, `round ${round}: ${JSON.stringify({ notations, text })}`).toEqual(
        naiveScan(notations, text),
      )
    }
  })
})
