import { Fragment, type ReactNode } from 'react'
import type { MessageKey } from '#app/lib/i18n.ts'
import type { Occurrence } from '#app/schemas/validation.ts'
import { useT } from '#app/root.tsx'

/** A finding as the validation API answers it. */
export type Finding = Occurrence

const SEVERITY_RANK: Record<string, number> = { error: 0, warning: 1, info: 2, none: 3 }

/**
 * The checked text with each finding marked inline. Offsets are UTF-16 code units, which is what JavaScript
 * strings index by. Findings of the same span (a notation of several terms) share one mark; a finding that
 * starts inside an earlier mark is listed in the table only.
 */
export function HighlightedText({ text, findings }: { text: string; findings: Finding[] }) {
  const t = useT()
  const sorted = [...findings].sort((a, b) => a.start - b.start || b.end - a.end)
  const parts: ReactNode[] = []
  let at = 0
  for (let i = 0; i < sorted.length;) {
    const first = sorted[i]!
    const group = [first]
    let j = i + 1
    while (j < sorted.length && sorted[j]!.start === first.start && sorted[j]!.end === first.end)
      group.push(sorted[j++]!)
    i = j
    if (first.start < at) continue
    if (first.start > at) parts.push(<Fragment key={`t${at}`}>{text.slice(at, first.start)}</Fragment>)
    const title = group
      .map(
        (f) =>
          `${f.term.name} · ${t(`finding.${f.finding}` as MessageKey)}${f.preferred ? ` · ${t('check.preferred')}: ${f.preferred}` : ''}`,
      )
      .join('\n')
    // The mark shows the most serious finding of the span (a notation several terms share).
    const worst = [...group].sort((a, b) => SEVERITY_RANK[a.severity]! - SEVERITY_RANK[b.severity]!)[0]!
    parts.push(
      <mark
        key={`m${first.start}`}
        className={`finding kind-${worst.kind} finding-${worst.finding} severity-${worst.severity}`}
        title={title}
        data-kind={worst.kind}
        data-finding={worst.finding}
        data-term={worst.term.slug}
      >
        {text.slice(first.start, first.end)}
      </mark>,
    )
    at = first.end
  }
  if (at < text.length) parts.push(<Fragment key={`t${at}`}>{text.slice(at)}</Fragment>)
  return (
    <pre className="checked-text" data-testid="checked-text">
      {parts}
    </pre>
  )
}
