import { normalizeKey } from '#app/services/matching/normalize.ts'
import { useFacts, type UseFacts } from './findings.server.ts'
import { FirstSightings } from './first-sightings.ts'
import { matcherCache, type MatcherSnapshot } from './matcher-cache.server.ts'

/**
 * A match of a looked-up text: the facts of a use, the same shared, frozen objects validation reports
 * (findings.server.ts), so lookup and validation classify alike.
 */
export type LookupMatch = UseFacts

export interface LookupResult {
  text: string
  normalized: string
  found: boolean
  matches: readonly LookupMatch[]
}

/**
 * Results per text, per snapshot: editors and linters look up the notations of their documents again and
 * again, and until the glossary changes a text's result stays the same. A remembered result is frozen (its
 * matches are the frozen facts of findings.server.ts), so the API encodes it once
 * (app/api/lookup-answer.server.ts). A text is remembered the second time it is asked: texts asked once would
 * otherwise fill the memo, and keeping their results and bytes alive made every young-generation collection
 * of a stream of new texts ~4 ms instead of ~2 ms (decision 013, session 7); a first sighting only sets a bit
 * of the text's hash (first-sightings.ts), which keeps nothing alive. The memo goes with its snapshot; past
 * `LOOKUP_MEMO_MAX` texts each part starts over.
 */
interface Memo {
  results: Map<string, LookupResult>
  askedOnce: FirstSightings
  /**
   * Per notation index of the snapshot's matcher, the matches of a text that finds the notation's whole group
   * (most texts: a notation with no case-distinct siblings, or a use in the wrong case), made once: a text not
   * asked before then costs no list and no look-up of facts per entry.
   */
  wholeGroup: (readonly LookupMatch[] | undefined)[]
  wholeGroupWrongCase: (readonly LookupMatch[] | undefined)[]
}
const memoBySnapshot = new WeakMap<MatcherSnapshot, Memo>()
export const LOOKUP_MEMO_MAX = 20_000

/**
 * Answers many notations in one call from the matcher snapshot (normalized notation → entries, then the
 * letter-case rule, as for a use in the middle of a sentence), so 500 texts cost at most 500 Map lookups and
 * no database round trip; a remembered text costs one Map lookup.
 */
export async function lookupTerms(options: { texts: string[] }): Promise<{ results: LookupResult[] }> {
  const { snapshot } = await matcherCache.getFresh()
  let memo = memoBySnapshot.get(snapshot)
  if (!memo)
    memoBySnapshot.set(
      snapshot,
      (memo = {
        results: new Map(),
        askedOnce: new FirstSightings(LOOKUP_MEMO_MAX),
        wholeGroup: [],
        wholeGroupWrongCase: [],
      }),
    )
  const { results: remembered, askedOnce } = memo
  const results = options.texts.map((text): LookupResult => {
    // The bit first: a text not seen is not remembered, so a stream of new texts costs no look-up in the memo
    // (a miss in a Map of 20,000 texts is one or two cache misses a text).
    if (!askedOnce.seen(text)) return lookupOne(snapshot, memo, text)
    const known = remembered.get(text)
    if (known) return known
    const result = freezeResult(lookupOne(snapshot, memo, text))
    if (remembered.size >= LOOKUP_MEMO_MAX) remembered.clear()
    remembered.set(text, result)
    return result
  })
  return { results }
}

/** A result as the API answers it; its matches are the shared, frozen facts of findings.server.ts. */
function lookupOne(snapshot: MatcherSnapshot, memo: Memo, text: string): LookupResult {
  // The folded key is the notation a hit names, so it is computed once here for both.
  const key = normalizeKey(text)
  const hit = snapshot.matcher.lookup(text, key)
  let matches: readonly LookupMatch[] = NO_MATCHES
  if (hit && !hit.whole) matches = useFacts(hit.entries, hit.wrongCase)
  else if (hit) {
    const kept = hit.wrongCase ? memo.wholeGroupWrongCase : memo.wholeGroup
    matches = kept[hit.index] ??= Object.freeze(useFacts(hit.entries, hit.wrongCase))
  }
  return {
    text,
    normalized: key,
    found: matches.length > 0,
    matches: matches.length ? matches : NO_MATCHES,
  }
}

/** A result to remember: frozen with its list of matches (the facts in it are frozen already). */
function freezeResult(result: LookupResult): LookupResult {
  if (!Object.isFrozen(result.matches)) Object.freeze(result.matches)
  return Object.freeze(result)
}

const NO_MATCHES: readonly LookupMatch[] = Object.freeze([])
