/**
 * Letter case: which notation a use refers to when notations differ only by case, and when a use is
 * written in the wrong case (docs/decisions/013-letter-case.md states the rule with its examples).
 *
 * The automaton finds uses case-insensitively (the folded key: NFKC, lowercase, whitespace folded). Among
 * the entries sharing that key (a "group"), the use's cased form (NFKC and whitespace folded, case kept)
 * decides:
 * 1. entries whose cased form equals the use's;
 * 2. else, at a sentence start, entries equal to it once its capital first letter is lowercased
 *    ("Voratixel. " → `voratixel`);
 * 3. else, per owner (term): an owner with case-distinct notations in the group, or whose one notation has
 *    a case-significant word the use does not write as listed, recognizes the use in the wrong case; an
 *    owner whose one notation agrees on its case-significant words accepts it. Accepting owners win; when
 *    none accepts, every owner of the group reports the wrong case.
 * A word (a run without whitespace) is case-significant when it has a capital after its first letter
 * (`API`, `GitHub`, `iOS`, `L.F.D`); other words compare without case, and a capital first letter at a
 * sentence start is never a case error. Scripts without case (Hangul, Han) always take step 1.
 */
import { charClass, OTHER } from './boundary.ts'

/** A notation as the case rule needs it. */
export interface CasedForm {
  /** NFKC, whitespace folded and trimmed, case kept (`casedKey`). */
  cased: string
  /** Who the notation belongs to (a term); forms of one owner may differ only by case. */
  owner: unknown
}

/** What a group says about one use. */
export interface CaseDecision {
  /** Indexes (into the group) of the entries the use refers to. */
  picked: number[]
  /** True when the use is recognized but its case matches none of the notations where case matters. */
  wrongCase: boolean
}

const UPPER = /[\p{Lu}\p{Lt}]/u
const SPACE_RUN = /\s+/g

/**
 * The cased normal form of a notation or a use: NFKC, whitespace runs to one space, trimmed; letter case
 * kept. Lowercasing it one code point at a time gives the folded key the automaton matches on.
 */
export function casedKey(s: string): string {
  // Fast path: printable ASCII with single spaces is its own NFKC form.
  let simple = true
  for (let k = 0; k < s.length; k++) {
    const c = s.charCodeAt(k)
    if (
      c > 0x7e ||
      c < 0x20 ||
      (c === 0x20 && (k === 0 || k === s.length - 1 || s.charCodeAt(k + 1) === 0x20))
    ) {
      simple = false
      break
    }
  }
  if (simple) return s
  return s.normalize('NFKC').replace(SPACE_RUN, ' ').trim()
}

/** True when a word has an upper-case letter after its first letter (`API`, `GitHub`, `iOS`, `L.F.D`). */
export function isCaseSignificant(word: string): boolean {
  let first = true
  for (const cp of word) {
    if (first) {
      first = false
      continue
    }
    if (UPPER.test(cp)) return true
  }
  return false
}

/** Whether a cased form holds any case-significant word. */
export function hasSignificantWord(cased: string): boolean {
  return cased.split(' ').some(isCaseSignificant)
}

/** `word` with its first code point lower-cased, when that code point is a capital; otherwise undefined. */
function decapitalized(word: string): string | undefined {
  const cp = word.codePointAt(0)
  if (cp === undefined) return undefined
  const first = String.fromCodePoint(cp)
  if (!UPPER.test(first)) return undefined
  return first.toLowerCase() + word.slice(first.length)
}

/**
 * Does the use (cased form, split in words) agree with the notation on the notation's case-significant
 * words? At a sentence start, the use's first letter may be a capital where the notation has none.
 */
function agrees(
  useWords: readonly string[],
  notationWords: readonly string[],
  sentenceStart: boolean,
): boolean {
  // Folding never adds or removes a space, so both split alike; if not (an exotic fold), case cannot decide.
  if (useWords.length !== notationWords.length) return true
  for (let i = 0; i < notationWords.length; i++) {
    const n = notationWords[i]
    const u = useWords[i]
    if (u === n || !isCaseSignificant(n)) continue
    if (i === 0 && sentenceStart && decapitalized(u) === n) continue
    return false
  }
  return true
}

/**
 * A group of entries sharing one folded key, prepared for deciding uses. Build it only for groups where case
 * can matter (`caseMatters`); other groups take every entry for every use, as before.
 */
export class CaseGroup {
  private readonly words: string[][]
  /** Per entry: its owner has two or more distinct cased forms in this group. */
  private readonly ownerIsCaseDistinct: boolean[]

  constructor(private readonly forms: readonly CasedForm[]) {
    this.words = forms.map((f) => f.cased.split(' '))
    const distinct = new Map<unknown, Set<string>>()
    for (const f of forms) {
      let set = distinct.get(f.owner)
      if (!set) distinct.set(f.owner, (set = new Set()))
      set.add(f.cased)
    }
    this.ownerIsCaseDistinct = forms.map((f) => distinct.get(f.owner)!.size > 1)
  }

  /** Whether letter case can change the answer for this group (else every use takes every entry). */
  static caseMatters(forms: readonly CasedForm[]): boolean {
    const first = forms[0]?.cased
    return forms.some((f) => f.cased !== first || hasSignificantWord(f.cased))
  }

  /** Which entries a use written `cased` refers to, and whether its case is wrong (steps 1–3 above). */
  decide(cased: string, sentenceStart: boolean): CaseDecision {
    const { forms } = this
    const exact: number[] = []
    for (let i = 0; i < forms.length; i++) if (forms[i].cased === cased) exact.push(i)
    if (exact.length) return { picked: exact, wrongCase: false }
    if (sentenceStart) {
      const lowered = decapitalized(cased)
      if (lowered !== undefined) {
        const initial: number[] = []
        for (let i = 0; i < forms.length; i++) if (forms[i].cased === lowered) initial.push(i)
        if (initial.length) return { picked: initial, wrongCase: false }
      }
    }
    const useWords = cased.split(' ')
    const accepted: number[] = []
    for (let i = 0; i < forms.length; i++) {
      if (!this.ownerIsCaseDistinct[i] && agrees(useWords, this.words[i], sentenceStart)) accepted.push(i)
    }
    if (accepted.length) return { picked: accepted, wrongCase: false }
    return { picked: forms.map((_, i) => i), wrongCase: true }
  }
}

const SENTENCE_END = new Set([0x2e, 0x21, 0x3f, 0x2026, 0x3002, 0xff01, 0xff1f, 0xff0e])
/**
 * What stands for text hidden from matching (U+FFFC): the code, URLs and HTML of a Markdown text
 * (app/services/validation/markdown-mask.ts). A boundary for the matcher, and markup for the sentence start.
 */
export const HIDDEN_TEXT = '\ufffc'

// Skipped when looking back for a sentence end: spaces, opening quotes and brackets, the Markdown that
// starts a heading, list item, quote or table cell ("## Api", "- Api", "> Api", "| Api"), and hidden text.
const LEAD_IN = new Set([
  0x20,
  0x09,
  0xa0,
  0x3000,
  0x22,
  0x27,
  0x28,
  0x5b,
  0x7b,
  0x2a,
  0x5f,
  0x23,
  0x3e,
  0x2d,
  0x7c,
  0x2022,
  0x201c,
  0x2018,
  0xab,
  0x300c,
  0x300e,
  0x3010,
  0xff08,
  0x60,
  HIDDEN_TEXT.charCodeAt(0),
])

/**
 * Whether the use starting at `start` of the original text begins a sentence: only lead-in characters
 * (spaces, opening quotes and brackets, Markdown markers) stand between it and the start of the text, a
 * line break, or a sentence end (`.`, `!`, `?`, `…`, `。`). A line start counts because headings, list items
 * and table cells begin with capitals; a capital there is never taken as a case error either. The full stop
 * of an abbreviation that stands before a word inside a sentence (`e.g.`, `i.e.`, `cf.`, `vs.`, `Dr.`: see
 * `MID_SENTENCE_ABBREVIATIONS`) ends nothing.
 */
export function isSentenceStart(text: string, start: number): boolean {
  for (let k = start - 1; k >= 0; k--) {
    const c = text.charCodeAt(k)
    if (c === 0x0a || c === 0x0d) return true
    if (SENTENCE_END.has(c)) return c !== 0x2e || !endsAbbreviation(text, k)
    if (!LEAD_IN.has(c)) return false
  }
  return true
}

/**
 * Abbreviations that are followed by more of the same sentence, lowercased without their last full stop.
 * Those that often end a sentence too (`etc.`, `no.`) are left out: a capital after them stays excused.
 */
const MID_SENTENCE_ABBREVIATIONS = new Set([
  'e.g',
  'i.e',
  'cf',
  'vs',
  'viz',
  'approx',
  'incl',
  'esp',
  'resp',
  'mr',
  'mrs',
  'ms',
  'dr',
  'prof',
  'fig',
])

/** Whether the full stop at `dot` ends one of `MID_SENTENCE_ABBREVIATIONS` (a word of its own). */
function endsAbbreviation(text: string, dot: number): boolean {
  let k = dot
  while (k > 0 && dot - k < 8) {
    const c = text.charCodeAt(k - 1)
    if (!((c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a) || c === 0x2e)) break
    k--
  }
  return (
    MID_SENTENCE_ABBREVIATIONS.has(text.slice(k, dot).toLowerCase()) &&
    (k === 0 || charClass(text.charCodeAt(k - 1)) === OTHER)
  )
}
