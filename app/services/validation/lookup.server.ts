import { normalizeKey } from '#app/services/matching/normalize.ts'
import { preferredFormFor } from '#app/services/terms/content.server.ts'
import type { NotationKind, TermStatus } from '#db/entities/term.entity.ts'
import { matcherCache } from './matcher-cache.server.ts'

export interface LookupMatch {
  term: { id: string; slug: string; name: string; status: TermStatus }
  /** The notation as written in the glossary. */
  notation: string
  kind: NotationKind
  /** What to write instead (null when the term itself is deprecated and names no replacement). */
  preferred: string | null
}

export interface LookupResult {
  text: string
  normalized: string
  found: boolean
  matches: LookupMatch[]
}

/**
 * Answers many notations in one call from the matcher snapshot's Map (normalized notation → entries), so
 * 500 texts cost 500 Map lookups and no database round trip.
 */
export async function lookupTerms(options: { texts: string[] }): Promise<{ results: LookupResult[] }> {
  const { snapshot } = await matcherCache.getFresh()
  const results = options.texts.map((text): LookupResult => {
    const normalized = normalizeKey(text)
    const entries = normalized ? (snapshot.byKey.get(normalized) ?? []) : []
    return {
      text,
      normalized,
      found: entries.length > 0,
      matches: entries.map((e) => ({
        term: { id: e.term.id, slug: e.term.slug, name: e.term.name, status: e.term.status },
        notation: e.text,
        kind: e.kind,
        preferred: preferredFormFor(e.term, e.text),
      })),
    }
  })
  return { results }
}
