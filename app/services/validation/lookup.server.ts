import type { Finding } from '#app/schemas/validation.ts'
import { normalizeKey } from '#app/services/matching/normalize.ts'
import { useFacts } from './findings.server.ts'
import { matcherCache } from './matcher-cache.server.ts'
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
 * Answers many notations in one call from the matcher snapshot (normalized notation → entries, then the
 * letter-case rule, as for a use in the middle of a sentence), so 500 texts cost 500 Map lookups and no
 * database round trip.
 */
export async function lookupTerms(options: { texts: string[] }): Promise<{ results: LookupResult[] }> {
  const { snapshot } = await matcherCache.getFresh()
  const results = options.texts.map((text): LookupResult => {
    const hit = snapshot.matcher.lookup(text)
    // The cached facts of each form are the answer's matches as they are (same fields, frozen, shared).
    const matches: readonly LookupMatch[] = hit ? useFacts(hit.entries, hit.wrongCase) : []
    return { text, normalized: hit?.notation ?? normalizeKey(text), found: matches.length > 0, matches }
  })
  return { results }
}
