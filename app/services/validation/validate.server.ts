import { AppError } from '#app/lib/errors.server.ts'
import {
  VALIDATE_LIMITS,
  type GlossaryState,
  type Markup,
  type Severity,
  type ValidateBatchInput,
  type ValidateInput,
  type ValidationConfig,
} from '#app/schemas/validation.ts'
import { gatherCandidatesLater } from '#app/services/candidates/candidates.server.ts'
import { getValidationConfig } from '#app/services/settings/settings.server.ts'
import { severityOf, useFacts, type Occurrence } from './findings.server.ts'
import { maskMarkdown } from './markdown-mask.ts'
import { matcherCache, type MatcherSnapshot } from './matcher-cache.server.ts'

/**
 * Text validation. Each use gets a finding and a severity (docs/decisions/007-validation-and-import.md,
 * 013-letter-case.md): a deprecated notation → `error` (the glossary says not to write it and names the
 * preferred form); any form of a term whose status is `deprecated` → `warning` (the concept itself is
 * discouraged); a use in the wrong letter case → the administrator's setting (default `warning`); an
 * admitted notation → `info`; a correct use → `none` (reported so pages can highlight terms).
 * Offsets are UTF-16 code units of the input, lines and columns 1-based. Boundary and letter-case rules are
 * the matcher's (app/services/matching/). A Markdown text is scanned with its non-prose parts hidden
 * (markdown-mask.ts), which keeps offsets, lines and columns.
 */
export type { Occurrence, Severity }

export interface Summary {
  occurrences: number
  error: number
  warning: number
  info: number
  none: number
  terms: number
}

/** What the matcher and the candidate gatherer read of a text: Markdown without its non-prose parts. */
function proseOf(text: string, markup: Markup): string {
  return markup === 'markdown' ? maskMarkdown(text) : text
}

function scanText(
  snapshot: MatcherSnapshot,
  prose: string,
  includePreferred: boolean,
  config: ValidationConfig,
): Occurrence[] {
  const out: Occurrence[] = []
  for (const match of snapshot.matcher.scan(prose)) {
    for (const facts of useFacts(match.entries, match.wrongCase)) {
      const severity = severityOf(facts.finding, config)
      if (severity === 'none' && !includePreferred) continue
      out.push({
        start: match.start,
        end: match.end,
        line: match.line,
        column: match.column,
        text: match.text,
        notation: facts.notation,
        term: facts.term,
        kind: facts.kind,
        finding: facts.finding,
        preferred: facts.preferred,
        severity,
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
  const [{ snapshot, upToDate }, config] = await Promise.all([matcherCache.getFresh(), getValidationConfig()])
  const prose = proseOf(options.text, options.markup)
  const occurrences = scanText(snapshot, prose, options.includePreferred, config)
  gatherCandidatesLater({ texts: [prose], source: 'validate', known: snapshot.byKey })
  return { occurrences, summary: summarize(occurrences), glossary: { version: snapshot.version, upToDate } }
}

/**
 * Validates many texts (up to 1,000 and 10 MB in total): results per text, a total summary and the glossary
 * version used. The API endpoint turns them into a SARIF 2.1.0 log when asked (sarif.server.ts).
 */
export async function validateBatch(options: Omit<ValidateBatchInput, 'format'>): Promise<{
  results: { id: string; occurrences: Occurrence[]; summary: Summary }[]
  summary: Summary & { texts: number }
  glossary: GlossaryState
}> {
  let bytes = 0
  for (const t of options.texts) bytes += Buffer.byteLength(t.text)
  if (bytes > VALIDATE_LIMITS.batchBytes) {
    throw new AppError(
      'payload_too_large',
      `The texts hold ${bytes} bytes; at most ${VALIDATE_LIMITS.batchBytes}.`,
    )
  }
  const [{ snapshot, upToDate }, config] = await Promise.all([matcherCache.getFresh(), getValidationConfig()])
  const proses = options.texts.map((t) => proseOf(t.text, t.markup ?? options.markup))
  const results = options.texts.map((t, i) => {
    const occurrences = scanText(snapshot, proses[i]!, options.includePreferred, config)
    return { id: t.id ?? `text-${i + 1}`, occurrences, summary: summarize(occurrences) }
  })
  gatherCandidatesLater({
    texts: proses,
    source: 'validate',
    known: snapshot.byKey,
  })
  const all = results.flatMap((r) => r.occurrences)
  return {
    results,
    summary: { ...summarize(all), texts: results.length },
    glossary: { version: snapshot.version, upToDate },
  }
}
