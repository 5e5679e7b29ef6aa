/**
 * A seeded glossary the way style guides are written, and a text with planted uses of it: what the
 * letter-case test (tests/integration/glossary/case-glossary.test.ts) and bench/case-matching.bench.ts use.
 *
 * Four kinds of terms, in turn:
 * - an invented English word: preferred `voratixel`; deprecated `vora-tixel`, `vora tixel`, `VoraTixel`;
 * - a two- or three-word phrase: preferred `mavou quodoun`; deprecated `mavou-quodoun`, `mavouquodoun`,
 *   `Mavou Quodoun`;
 * - an acronym: preferred `LFD`; deprecated `lfd`, `Lfd`, `L.F.D`;
 * - a Korean word: preferred `가나다라`; deprecated spaced `가나 다라`, a vowel variant (ㅔ↔ㅐ, ㅗ↔ㅓ) and a
 *   final-consonant variant (one syllable gains or loses its final consonant).
 * The filler words never form a notation: English filler is a fixed list of real words, Korean filler a fixed
 * list of Korean words, and invented words always hold a `q`, `x` or `z`, acronyms only consonants.
 */

import { prng } from './prng.ts'

export type Kind = 'preferred' | 'deprecated'

export interface GeneratedTerm {
  name: string
  notations: { text: string; kind: Kind; lang: string | null }[]
}

export interface PlantedUse {
  start: number
  end: number
  term: number
  /** The notation written (for a sentence-initial preferred use, before capitalizing). */
  notation: string
  kind: Kind
}

export interface CaseGlossary {
  terms: GeneratedTerm[]
  text: string
  planted: PlantedUse[]
}

const EN_FILLER =
  'the system checks every request before it runs and then writes its report to a file on disk with care when users ask for data'.split(
    ' ',
  )
const KO_FILLER = [
  '시스템은',
  '요청을',
  '먼저',
  '검사하고',
  '결과를',
  '파일에',
  '기록한다',
  '사용자가',
  '자료를',
  '물으면',
]
const PARTICLES = ['를', '는', '에서', '의', '']

function hangul(initial: number, vowel: number, final: number): string {
  return String.fromCharCode(0xac00 + (initial * 21 + vowel) * 28 + final)
}

/** Generates `count` terms (a quarter of each kind) and a text of about `bytes` UTF-8 bytes. */
export function generateCaseGlossary(options: {
  count: number
  bytes: number
  deprecatedUses: number
  preferredUses: number
  seed?: number
}): CaseGlossary {
  const rand = prng(options.seed ?? 7)
  const int = (n: number) => Math.floor(rand() * n)
  const pick = <T>(xs: readonly T[]): T => xs[int(xs.length)]!
  const seen = new Set<string>()
  /** Every notation folds to a key no other notation of any term has (case-only variants fold alike, on purpose). */
  const fresh = (make: () => string[]): string[] => {
    for (;;) {
      const forms = make()
      const keys = forms.map((f) => f.toLowerCase().replace(/[-. ]/g, ''))
      if (keys.some((k) => seen.has(k))) continue
      for (const k of keys) seen.add(k)
      return forms
    }
  }
  const C = 'bdfgklmnprstv'
  const V = 'aeiou'
  const RARE = 'qxz'
  const part = () => pick([...C]) + pick([...V]) + pick([...RARE]) + pick([...V]) + pick([...C])
  const cap = (w: string) => w[0]!.toUpperCase() + w.slice(1)
  const ACRONYM = 'BCDFGHJKLMNPRSTVWXZ'

  const terms: GeneratedTerm[] = []
  for (let i = 0; i < options.count; i++) {
    let preferred: string | undefined
    let deprecated: string[] = []
    let lang: string | null = 'en'
    switch (i % 4) {
      case 0:
        ;[preferred, ...deprecated] = fresh(() => {
          const a = part()
          const b = part()
          return [a + b, `${a}-${b}`, `${a} ${b}`, cap(a) + cap(b)]
        })
        break
      case 1:
        ;[preferred, ...deprecated] = fresh(() => {
          const words = Array.from({ length: 2 + int(2) }, part)
          return [words.join(' '), words.join('-'), words.join(''), words.map(cap).join(' ')]
        })
        break
      case 2:
        ;[preferred, ...deprecated] = fresh(() => {
          const letters = Array.from({ length: 3 + int(2) }, () => pick([...ACRONYM]))
          const acronym = letters.join('')
          return [acronym, acronym.toLowerCase(), cap(acronym.toLowerCase()), letters.join('.')]
        })
        break
      default: {
        lang = 'ko'
        // Four syllables; vowels 4 (ㅓ), 5 (ㅔ), 1 (ㅐ), 8 (ㅗ) have the listed counterparts.
        const VOWEL_SWAP: Record<number, number> = { 1: 5, 5: 1, 4: 8, 8: 4 }
        const make = () => {
          const syllables = Array.from({ length: 4 }, () => ({
            initial: int(19),
            vowel: pick([1, 4, 5, 8, 0, 20]),
            final: pick([0, 0, 4, 8, 16]),
          }))
          const word = (s: typeof syllables) => s.map((x) => hangul(x.initial, x.vowel, x.final)).join('')
          const base = word(syllables)
          const spaced = `${word(syllables.slice(0, 2))} ${word(syllables.slice(2))}`
          const v = syllables.findIndex((x) => x.vowel in VOWEL_SWAP)
          const vowelVariant = syllables.map((x, k) =>
            k === Math.max(v, 0) ? { ...x, vowel: VOWEL_SWAP[x.vowel] ?? 6 } : x,
          )
          const finalVariant = syllables.map((x, k) => (k === 3 ? { ...x, final: x.final ? 0 : 21 } : x))
          return [base, spaced, word(vowelVariant), word(finalVariant)]
        }
        ;[preferred, ...deprecated] = fresh(make)
      }
    }
    terms.push({
      name: preferred!,
      notations: [
        { text: preferred!, kind: 'preferred', lang },
        ...deprecated!.map((text) => ({ text, kind: 'deprecated' as const, lang })),
      ],
    })
  }

  // The text: sentences of filler, English or Korean, with planted uses at random places.
  const uses: { term: number; notation: string; kind: Kind }[] = []
  for (let k = 0; k < options.deprecatedUses; k++) {
    const term = int(terms.length)
    uses.push({ term, notation: pick(terms[term]!.notations.slice(1)).text, kind: 'deprecated' })
  }
  for (let k = 0; k < options.preferredUses; k++) {
    const term = int(terms.length)
    uses.push({ term, notation: terms[term]!.notations[0]!.text, kind: 'preferred' })
  }
  for (let k = uses.length - 1; k > 0; k--) {
    const j = int(k + 1)
    ;[uses[k], uses[j]] = [uses[j]!, uses[k]!]
  }
  const fillerWordsPerUse = Math.max(1, Math.round(options.bytes / 8 / Math.max(1, uses.length)))
  let text = ''
  const planted: PlantedUse[] = []
  let next = 0
  let bytes = 0
  while (bytes < options.bytes || next < uses.length) {
    const korean = rand() < 0.45
    const length = 6 + int(10)
    const words: string[] = []
    const plantedHere: { index: number; use: (typeof uses)[number] }[] = []
    for (let w = 0; w < length; w++) {
      if (next < uses.length && rand() < 1 / fillerWordsPerUse) {
        plantedHere.push({ index: words.length, use: uses[next++]! })
        words.push('')
      } else {
        words.push(korean ? pick(KO_FILLER) : pick(EN_FILLER))
      }
    }
    let sentence = ''
    for (let w = 0; w < words.length; w++) {
      if (w > 0) sentence += ' '
      const here = plantedHere.find((p) => p.index === w)
      if (!here) {
        sentence += w === 0 && !korean ? cap(words[w]!) : words[w]
        continue
      }
      const { use } = here
      // A preferred use opening an English sentence is capitalized, as writers do.
      const written = w === 0 && use.kind === 'preferred' && !korean ? cap(use.notation) : use.notation
      const start = text.length + sentence.length
      sentence += written
      planted.push({
        start,
        end: start + written.length,
        term: use.term,
        notation: use.notation,
        kind: use.kind,
      })
      if (korean || /[\uac00-\ud7a3]/.test(use.notation)) sentence += pick(PARTICLES)
    }
    sentence += rand() < 0.1 ? '.\n\n' : '. '
    text += sentence
    bytes += Buffer.byteLength(sentence)
  }
  return { terms, text, planted }
}
