import { AppError } from '#app/lib/errors.server.ts'
import { RELEASE } from '#app/lib/version.server.ts'
import {
  VALIDATE_LIMITS,
  type GlossaryState,
  type ValidateBatchInput,
  type ValidateInput,
} from '#app/schemas/validation.ts'
import { gatherCandidatesLater } from '#app/services/candidates/candidates.server.ts'
import { preferredFormFor } from '#app/services/terms/content.server.ts'
import type { NotationKind } from '#db/entities/term.entity.ts'
import { matcherCache, type FormPayload, type MatcherSnapshot } from './matcher-cache.server.ts'
import { toSarif } from './sarif.server.ts'

/**
 * Text validation. Severity (docs/decisions/007-validation-and-import.md):
 * - a deprecated notation → `error` (the glossary says not to write it and names the preferred form);
 * - any form of a term whose status is `deprecated` → `warning` (the concept itself is discouraged);
 * - an admitted notation → `info` (acceptable, but the preferred form is shown);
 * - a preferred notation or name → `none` (a correct use; reported so pages can highlight terms).
 * Offsets are UTF-16 code units of the input, lines and columns 1-based. Boundary rules are the matcher's
 * (app/services/matching/boundary.ts).
 */
export type Severity = 'error' | 'warning' | 'info' | 'none'

export interface Occurrence {
  start: number
  end: number
  line: number
  column: number
  text: string
  notation: string
  term: { id: string; slug: string; name: string; status: string }
  kind: NotationKind
  preferred: string | null
  severity: Severity
}

export interface Summary {
  occurrences: number
  error: number
  warning: number
  info: number
  none: number
  terms: number
}

function severityOf(entry: FormPayload): Severity {
  if (entry.kind === 'deprecated') return 'error'
  if (entry.term.status === 'deprecated') return 'warning'
  if (entry.kind === 'admitted') return 'info'
  return 'none'
}

/** What an occurrence says about its glossary form; the same for every occurrence of that form. */
interface FormFacts {
  notation: string
  term: Occurrence['term']
  kind: NotationKind
  preferred: string | null
  severity: Severity
}

/**
 * Facts per form, computed once: a dense 1 MB text holds ~20,000 occurrences of a few thousand forms. Matcher
 * snapshots replace their payload objects when the glossary changes, which retires these entries.
 */
const factsByForm = new WeakMap<FormPayload, FormFacts>()

function factsOf(payload: FormPayload): FormFacts {
  let facts = factsByForm.get(payload)
  if (!facts) {
    const { id, slug, name, status } = payload.term
    facts = {
      notation: payload.text,
      term: Object.freeze({ id, slug, name, status }),
      kind: payload.kind,
      preferred: preferredFormFor(payload.term, payload.text),
      severity: severityOf(payload),
    }
    factsByForm.set(payload, facts)
  }
  return facts
}

function scanText(snapshot: MatcherSnapshot, text: string, includePreferred: boolean): Occurrence[] {
  const out: Occurrence[] = []
  for (const match of snapshot.matcher.scan(text)) {
    for (const entry of match.entries) {
      const facts = factsOf(entry.payload!)
      if (facts.severity === 'none' && !includePreferred) continue
      out.push({
        start: match.start,
        end: match.end,
        line: match.line,
        column: match.column,
        text: match.text,
        notation: facts.notation,
        term: facts.term,
        kind: facts.kind,
        preferred: facts.preferred,
        severity: facts.severity,
      })
    }
  }
  return out
}

function summarize(occurrences: readonly Occurrence[]): Summary {
  const summary: Summary = {
    occurrences: occurrences.length,
    error: 0,
    warning: 0,
    info: 0,
    none: 0,
    terms: 0,
  }
  const terms = new Set<string>()
  for (const o of occurrences) {
    summary[o.severity]++
    terms.add(o.term.id)
  }
  summary.terms = terms.size
  return summary
}

/**
 * Validates one text. Term candidates (acronyms, capitalized phrases) are gathered from it after the answer.
 */
export async function validateText(
  options: ValidateInput,
): Promise<{ occurrences: Occurrence[]; summary: Summary; glossary: GlossaryState }> {
  const { snapshot, upToDate } = await matcherCache.getFresh()
  const occurrences = scanText(snapshot, options.text, options.includePreferred)
  gatherCandidatesLater({ texts: [options.text], source: 'validate', known: snapshot.byKey })
  return { occurrences, summary: summarize(occurrences), glossary: { version: snapshot.version, upToDate } }
}

/**
 * Validates many texts (up to 1,000 and 10 MB in total). `format: 'sarif'` answers with a SARIF 2.1.0 log
 * as a Response of type application/sarif+json; otherwise JSON results per text and a total summary.
 */
export async function validateBatch(options: ValidateBatchInput): Promise<
  | Response
  | {
      results: { id: string; occurrences: Occurrence[]; summary: Summary }[]
      summary: Summary & { texts: number }
      glossary: GlossaryState
    }
> {
  let bytes = 0
  for (const t of options.texts) bytes += Buffer.byteLength(t.text)
  if (bytes > VALIDATE_LIMITS.batchBytes) {
    throw new AppError(
      'payload_too_large',
      `The texts hold ${bytes} bytes; at most ${VALIDATE_LIMITS.batchBytes}.`,
    )
  }
  const { snapshot, upToDate } = await matcherCache.getFresh()
  const results = options.texts.map((t, i) => {
    const occurrences = scanText(snapshot, t.text, options.includePreferred)
    return { id: t.id ?? `text-${i + 1}`, occurrences, summary: summarize(occurrences) }
  })
  gatherCandidatesLater({
    texts: options.texts.map((t) => t.text),
    source: 'validate',
    known: snapshot.byKey,
  })
  if (options.format === 'sarif') {
    return new Response(JSON.stringify(toSarif(results, RELEASE, { version: snapshot.version, upToDate })), {
      status: 200,
      headers: { 'Content-Type': 'application/sarif+json; charset=utf-8' },
    })
  }
  const all = results.flatMap((r) => r.occurrences)
  return {
    results,
    summary: { ...summarize(all), texts: results.length },
    glossary: { version: snapshot.version, upToDate },
  }
}
