import type { Finding } from '#app/schemas/validation.ts'
import { normalizeKey } from '#app/services/matching/normalize.ts'
import { useFacts } from './findings.server.ts'
import { matcherCache, type MatcherSnapshot } from './matcher-cache.server.ts'
import type { NotationKind, TermStatus } from '#domain/terms.ts'

export interface LookupMatch {
  term: { id: string; slug: string; name: string; status: TermStatus }
  /** The notation as written in the glossary (for `wrong-case`: the notation written correctly). */
  notation: string
  kind: NotationKind
  finding: Finding
  /** What to write instead (null when the term itself is deprecated and names no replacement). */
  preferred: string | null
}

export interface LookupResult {
  text: string
  normalized: string
  found: boolean
  matches: readonly LookupMatch[]
}

/**
 * Results per text, per snapshot: editors and linters look up the notations of their documents again and
 * again, and until the glossary changes a text's result stays the same. A result is frozen (its matches are
 * the frozen facts of findings.server.ts), so the API serializes it once (app/lib/immutable-json.ts). The
 * memo goes with its snapshot; past `LOOKUP_MEMO_MAX` texts it starts over, so it holds at most that many.
 */
const memoBySnapshot = new WeakMap<MatcherSnapshot, Map<string, LookupResult>>()
export const LOOKUP_MEMO_MAX = 20_000

/**
 * Answers many notations in one call from the matcher snapshot (normalized notation → entries, then the
 * letter-case rule, as for a use in the middle of a sentence), so 500 texts cost at most 500 Map lookups and
 * no database round trip; a text looked up before under the same snapshot costs one Map lookup.
 */
export async function lookupTerms(options: { texts: string[] }): Promise<{ results: LookupResult[] }> {
  const { snapshot } = await matcherCache.getFresh()
  let memo = memoBySnapshot.get(snapshot)
  if (!memo) memoBySnapshot.set(snapshot, (memo = new Map()))
  const results = options.texts.map((text): LookupResult => {
    let result = memo.get(text)
    if (!result) {
      result = lookupOne(snapshot, text)
      if (memo.size >= LOOKUP_MEMO_MAX) memo.clear()
      memo.set(text, result)
    }
    return result
  })
  return { results }
}

function lookupOne(snapshot: MatcherSnapshot, text: string): LookupResult {
  const hit = snapshot.matcher.lookup(text)
  // The cached facts of each form are the answer's matches as they are (same fields, frozen, shared).
  const matches: readonly LookupMatch[] = hit ? Object.freeze(useFacts(hit.entries, hit.wrongCase)) : []
  return Object.freeze({
    text,
    normalized: hit?.notation ?? normalizeKey(text),
    found: matches.length > 0,
    matches: matches.length ? matches : NO_MATCHES,
  })
}

const NO_MATCHES: readonly LookupMatch[] = Object.freeze([])
