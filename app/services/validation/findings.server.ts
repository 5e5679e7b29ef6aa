import type { MatcherEntry } from '#app/services/matching/matcher.ts'
import type { Finding, Occurrence, Severity, ValidationConfig } from '#app/schemas/validation.ts'
import { preferredFormFor } from '#app/services/terms/content.server.ts'
import type { FormPayload } from './matcher-cache.server.ts'
import type { NotationKind, TermStatus } from '#domain/terms.ts'

/**
 * What a recognized use says, shared by validation and lookup so both classify alike
 * (docs/decisions/007-validation-and-import.md, 013-letter-case.md).
 */
export interface UseFacts {
  /** The notation as the glossary writes it. */
  notation: string
  term: { id: string; slug: string; name: string; status: TermStatus }
  kind: NotationKind
  finding: Finding
  /** What to write instead (null when the term itself is deprecated and names no replacement). */
  preferred: string | null
}

export type { Occurrence }

/** The first of FINDING_VALUES that applies (a deprecated notation is deprecated in any letter case). */
function findingOf(payload: FormPayload, wrongCase: boolean): Finding {
  if (payload.kind === 'deprecated') return 'deprecated-notation'
  if (payload.term.status === 'deprecated') return 'deprecated-term'
  if (wrongCase) return 'wrong-case'
  if (payload.kind === 'admitted') return 'admitted-notation'
  return 'correct'
}

/** Severity of every finding but `wrong-case`, whose severity is the administrator's setting. */
const FIXED_SEVERITY: Record<Exclude<Finding, 'wrong-case'>, Severity> = {
  'deprecated-notation': 'error',
  'deprecated-term': 'warning',
  'admitted-notation': 'info',
  correct: 'none',
}

export function severityOf(finding: Finding, config: ValidationConfig): Severity {
  return finding === 'wrong-case' ? config.wrongCaseSeverity : FIXED_SEVERITY[finding]
}

/**
 * Facts per form and case verdict, computed once: a dense 1 MB text holds ~20,000 uses of a few thousand
 * forms, and a lookup of 500 texts made ~500 new ones. A form's payload lives while its term is unchanged
 * (matcher-cache.server.ts keeps it between snapshots), so its facts outlive other terms' saves; a changed or
 * removed term's payloads are dropped, which retires their entries.
 */
const factsByForm = [new WeakMap<FormPayload, UseFacts>(), new WeakMap<FormPayload, UseFacts>()]

function factsOf(payload: FormPayload, wrongCase: boolean): UseFacts {
  const cache = factsByForm[wrongCase ? 1 : 0]
  let facts = cache.get(payload)
  if (!facts) {
    const { id, slug, name, status } = payload.term
    facts = Object.freeze({
      notation: payload.text,
      term: Object.freeze({ id, slug, name, status }),
      kind: payload.kind,
      finding: findingOf(payload, wrongCase),
      preferred: preferredFormFor(payload.term, payload.text),
    })
    cache.set(payload, facts)
  }
  return facts
}

const RANK: Record<NotationKind, number> = { preferred: 0, admitted: 1, deprecated: 2 }

/**
 * The facts of one use: one per entry it refers to; for a use in the wrong case, one per term, for the
 * term's best notation among those the use could be (preferred, then admitted, then deprecated: when all
 * are deprecated, the use is a deprecated notation whatever its case).
 */
export function useFacts(entries: readonly MatcherEntry<FormPayload>[], wrongCase: boolean): UseFacts[] {
  if (!wrongCase) return entries.map((e) => factsOf(e.payload!, false))
  const best = new Map<string, FormPayload>()
  for (const e of entries) {
    const p = e.payload!
    const current = best.get(p.term.id)
    if (!current || RANK[p.kind] < RANK[current.kind]) best.set(p.term.id, p)
  }
  return [...best.values()].map((p) => factsOf(p, true))
}
