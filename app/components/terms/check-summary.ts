import { fill, translate, translateCount, type Lang } from '#app/lib/i18n.ts'
import { FINDING_VALUES, type Finding } from '#app/schemas/validation.ts'

/**
 * The one-line summary of a check, counted by what each finding is (deprecated notation, wrong letter case, …)
 * rather than by severity: a severity says how bad a finding is, not what it is (a wrong-case finding may be a
 * warning, like a deprecated term). Kinds that did not occur are left out.
 */
export function checkSummary(
  lang: Lang,
  occurrences: readonly { finding: Finding }[],
  terms: number,
): string {
  const counts = new Map<Finding, number>()
  for (const o of occurrences) counts.set(o.finding, (counts.get(o.finding) ?? 0) + 1)
  const kinds = FINDING_VALUES.filter((f) => counts.has(f)).map((f) =>
    translateCount(lang, `count.${f}`, counts.get(f)!),
  )
  const template = translate(lang, kinds.length ? 'check.summary' : 'check.summaryEmpty')
  const vars: Record<string, string> = {
    findings: translateCount(lang, 'count.finding', occurrences.length),
    kinds: kinds.join(', '),
    terms: translateCount(lang, 'count.term', terms),
  }
  return fill(template, vars)
}
