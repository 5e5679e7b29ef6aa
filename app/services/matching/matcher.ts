/**
 * Term matcher: finds every occurrence of every notation in a document.
 *
 * Pipeline for one scan: normalize the text (NFKC + lowercase + whitespace folding, with a map back to
 * original offsets) → walk the notation trie from every position where the left boundary rule lets a
 * notation start, keeping the longest that passes the right boundary rule (boundary.ts) → drop occurrences
 * strictly contained in an earlier one → map to original UTF-16 offsets, add line/column, and let letter
 * case pick the entries of groups where case matters (letter-case.ts).
 *
 * Overlap rule: an occurrence is reported unless it lies inside a longer valid occurrence
 * ("pipeline" inside "data pipeline" is not reported; "data pipeline" is). Occurrences that overlap
 * without containment ("data pipeline" and "pipeline tool" in "data pipeline tool") are both reported,
 * since both terms are really used there. Containment is judged after the boundary rules, so a longer
 * notation that fails its boundary does not hide a shorter one that passes.
 */
import { automatonFromTables, compileAutomaton, type AutomatonTables } from './automaton.ts'
import { charClass, mayStartAt, rightBoundaryOk } from './boundary.ts'
import { LineCursor } from './line-column.ts'
import { CaseGroup, casedKey, isSentenceStart, type CaseDecision } from './letter-case.ts'
import { normalizeKey, normalizeWithMap, originalEnd, originalStart } from './normalize.ts'

/** One notation to look for; `payload` carries whatever the caller needs back (term id, kind of use). */
export interface MatcherEntry<P = unknown> {
  id: number | string
  text: string
  payload?: P
  /**
   * Who the notation belongs to (a term id). Notations of one owner that differ only by letter case are
   * case-distinct: the case of a use decides between them (letter-case.ts). Default: the entry alone.
   */
  owner?: unknown
}

export interface Match<P = unknown> {
  /** Offset of the first code unit in the ORIGINAL text (UTF-16 code units). */
  start: number
  /** Offset after the last code unit in the original text (exclusive). */
  end: number
  /** 1-based line of `start`. */
  line: number
  /** 1-based column of `start`, in UTF-16 code units. */
  column: number
  /** The original text of the occurrence: text.slice(start, end). */
  text: string
  /** The normalized notation that matched (shared by all `entries`). */
  notation: string
  /**
   * The entries the use refers to, in input order: of those whose notation normalizes to `notation`, the
   * ones letter case selects (letter-case.ts); all of them when `wrongCase` is set.
   */
  entries: readonly MatcherEntry<P>[]
  /** The use is recognized, but its letter case matches none of the notations where case matters. */
  wrongCase: boolean
}

/** An exact lookup: what one text (a whole notation, not a document) refers to. */
export interface LookupHit<P = unknown> {
  notation: string
  entries: readonly MatcherEntry<P>[]
  wrongCase: boolean
  /** The notation's index in this matcher: what is derived from a whole group can be kept by it. */
  index: number
  /** `entries` is every entry of the notation (the same array for every text that finds it this way). */
  whole: boolean
}

export interface MatcherStats {
  /** Entries given to buildMatcher. */
  entries: number
  /** Entries ignored because their text normalizes to nothing. */
  skipped: number
  /** Distinct normalized notations. */
  notations: number
  /** Automaton states. */
  states: number
  /** Bytes held by the automaton's typed arrays (excludes the entries themselves). */
  bytes: number
}

export interface Matcher<P = unknown> {
  /** All matches in `text`, ordered by start. */
  scan(text: string): Match<P>[]
  /**
   * What `text` as a whole refers to, by the same rules as a use in the middle of a sentence. `key` is its
   * `normalizeKey`, when the caller has it already.
   */
  lookup(text: string, key?: string): LookupHit<P> | undefined
  readonly stats: MatcherStats
}

/** Growable Int32 columns for candidate occurrences. */
class Candidates {
  starts: Int32Array = new Int32Array(1024)
  ends: Int32Array = new Int32Array(1024)
  pats: Int32Array = new Int32Array(1024)
  count = 0

  push(start: number, end: number, pat: number): void {
    if (this.count === this.starts.length) {
      const cap = this.count * 2
      const grow = (a: Int32Array): Int32Array => {
        const b = new Int32Array(cap)
        b.set(a)
        return b
      }
      this.starts = grow(this.starts)
      this.ends = grow(this.ends)
      this.pats = grow(this.pats)
    }
    this.starts[this.count] = start
    this.ends[this.count] = end
    this.pats[this.count] = pat
    this.count++
  }
}

/**
 * Build a matcher for `entries`. Notations are normalized with `normalizeKey`; entries sharing a
 * normalized notation are reported together. Build cost is dominated by sorting the notations.
 */
export function buildMatcher<P = unknown>(entries: readonly MatcherEntry<P>[]): Matcher<P> {
  return matcherFromCompiled(entries, compileNotations(entries.map((entry) => entry.text)))
}

/**
 * The expensive, data-only half of a build: normalized distinct notations, the notation index of each input
 * text (-1 when it normalizes to nothing) and the automaton tables. Everything in it can be posted between
 * threads (typed arrays are transferred), so it can run in a worker (compile-worker.ts).
 */
export interface CompiledNotations {
  notations: string[]
  groupOf: Int32Array
  tables: AutomatonTables
}

export function compileNotations(texts: readonly string[]): CompiledNotations {
  const byKey = new Map<string, number>()
  const notations: string[] = []
  const groupOf = new Int32Array(texts.length)
  for (let i = 0; i < texts.length; i++) {
    const key = normalizeKey(texts[i])
    if (key.length === 0) {
      groupOf[i] = -1
      continue
    }
    let p = byKey.get(key)
    if (p === undefined) {
      p = notations.length
      byKey.set(key, p)
      notations.push(key)
    }
    groupOf[i] = p
  }
  return { notations, groupOf, tables: compileAutomaton(notations) }
}

/** The cheap half: the matcher over `entries`, from `compileNotations` of their texts (in the same order). */
export function matcherFromCompiled<P = unknown>(
  entries: readonly MatcherEntry<P>[],
  compiled: CompiledNotations,
): Matcher<P> {
  const { notations, groupOf } = compiled
  const groups: MatcherEntry<P>[][] = notations.map(() => [])
  let skipped = 0
  for (let i = 0; i < entries.length; i++) {
    if (groupOf[i] < 0) skipped++
    else groups[groupOf[i]].push(entries[i])
  }

  // Groups where letter case can change the answer get a CaseGroup; the others (nearly all: Korean, and
  // Latin notations without case-distinct forms or inner capitals) answer every use with all their entries.
  const caseGroups: (CaseGroup | undefined)[] = groups.map((group) => {
    const forms = group.map((e) => ({ cased: casedKey(e.text), owner: e.owner ?? e }))
    return CaseGroup.caseMatters(forms) ? new CaseGroup(forms) : undefined
  })
  const decided = (p: number, decision: CaseDecision): readonly MatcherEntry<P>[] => {
    const group = groups[p]
    return decision.picked.length === group.length ? group : decision.picked.map((i) => group[i])
  }

  const automaton = automatonFromTables(compiled.tables)
  // The scan walks the automaton's trie itself (no failure links, see scan below).
  const { rec, ch, rootNext } = compiled.tables
  const count = notations.length
  const rightClass = new Uint8Array(count)
  for (let p = 0; p < count; p++) {
    const s = notations[p]
    rightClass[p] = charClass(s.charCodeAt(s.length - 1))
  }

  const stats: MatcherStats = {
    entries: entries.length,
    skipped,
    notations: count,
    states: automaton.stateCount,
    bytes: automaton.byteSize + rightClass.byteLength,
  }

  function scan(text: string): Match<P>[] {
    if (count === 0 || text.length === 0) return []
    const norm = normalizeWithMap(text)
    const units = norm.units
    const length = norm.length

    const cand = new Candidates()
    // Anchored walk (docs/decisions/002-term-matching.md, "Engine"): by the left boundary rule a notation can
    // only start where the text's character is OTHER or follows a character of another class, so the trie
    // is walked only from those positions — about one in four in running text — and never needs failure
    // links. At each start the longest notation that also passes the right boundary rule is the candidate;
    // shorter ones there lie inside it. A candidate is kept unless one from an earlier start reaches at
    // least as far (containment); so candidates come out in start order, already free of nesting.
    let maxEnd = -1
    let prevClass = -1
    for (let i = 0; i < length; i++) {
      const c = units[i]
      const cls = charClass(c)
      const anchored = mayStartAt(prevClass, cls)
      prevClass = cls
      if (!anchored) continue
      let s = rootNext[c]
      if (s === 0) continue
      let best = -1
      let bestEnd = 0
      for (let j = i + 1; ; j++) {
        const r = s << 2
        const p = rec[r + 2]
        if (p >= 0 && rightBoundaryOk(units, length, j, rightClass[p])) {
          best = p
          bestEnd = j
        }
        if (j >= length) break
        // Child of s on units[j]: children are consecutive and sorted (automaton.ts).
        const d = units[j]
        let lo = rec[r]
        let hi = rec[r + 1]
        let next = 0
        if (hi - lo <= 8) {
          for (; lo < hi; lo++) {
            if (ch[lo] === d) {
              next = lo
              break
            }
          }
        } else {
          while (lo < hi) {
            const mid = (lo + hi) >>> 1
            const m = ch[mid]
            if (m === d) {
              next = mid
              break
            }
            if (m < d) lo = mid + 1
            else hi = mid
          }
        }
        if (next === 0) break
        s = next
      }
      if (best >= 0 && bestEnd > maxEnd) {
        cand.push(i, bestEnd, best)
        maxEnd = bestEnd
      }
    }
    const n = cand.count
    const { starts, ends, pats } = cand

    const cursor = new LineCursor(text)
    const mapped = norm.pieceCount > 0
    const out: Match<P>[] = []
    for (let k = 0; k < n; k++) {
      const start = mapped ? originalStart(norm, starts[k]) : starts[k]
      const end = mapped ? originalEnd(norm, ends[k]) : ends[k]
      cursor.advance(start)
      const p = pats[k]
      const written = text.slice(start, end)
      const caseGroup = caseGroups[p]
      let entries: readonly MatcherEntry<P>[] = groups[p]
      let wrongCase = false
      if (caseGroup) {
        const decision = caseGroup.decide(casedKey(written), isSentenceStart(text, start))
        entries = decided(p, decision)
        wrongCase = decision.wrongCase
      }
      out.push({
        start,
        end,
        line: cursor.line,
        column: start - cursor.lineStart + 1,
        text: written,
        notation: notations[p],
        entries,
        wrongCase,
      })
    }
    return out
  }

  // Folded key → notation index, for lookups. Made with the matcher, off the request path: made on the first
  // lookup instead, it cost that lookup 3–5 ms at 30,000 notations after every save of the glossary.
  const byKey = new Map<string, number>()
  for (let p = 0; p < count; p++) byKey.set(notations[p], p)
  function lookup(text: string, key = normalizeKey(text)): LookupHit<P> | undefined {
    if (!key) return undefined
    const p = byKey.get(key)
    if (p === undefined) return undefined
    const caseGroup = caseGroups[p]
    if (!caseGroup)
      return { notation: notations[p], entries: groups[p], wrongCase: false, index: p, whole: true }
    const decision = caseGroup.decide(casedKey(text), false)
    const entries = decided(p, decision)
    return {
      notation: notations[p],
      entries,
      wrongCase: decision.wrongCase,
      index: p,
      whole: entries === groups[p],
    }
  }

  return { scan, lookup, stats }
}
