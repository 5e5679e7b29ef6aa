import { preferredFormFor } from '#app/services/terms/content.server.ts'
import { matcherCache, type FormPayload, type MatcherSnapshot } from './matcher-cache.server.ts'

/**
 * The glossary's writing rules in a few kilobytes, for a writer (an AI agent) to keep at hand: which forms
 * not to write and what to write instead, which terms to avoid, and the preferred forms. Read from the
 * matcher's snapshot (the same forms validation uses, no SQL) and made once per glossary version.
 *
 * Bounded: the sections come in the order of their use to a writer (deprecated notations, deprecated terms,
 * preferred forms), each in the order of its text, and the whole stops at `STYLE_SUMMARY_MAX_CHARS`, saying
 * how many lines were left out.
 */
export const STYLE_SUMMARY_MAX_CHARS = 24_000

export interface StyleSummary {
  version: number
  /** Markdown. */
  text: string
  truncated: boolean
}

const made = new WeakMap<MatcherSnapshot, StyleSummary>()

/** The summary of the current glossary (waiting, like validation, for a rebuild under way). */
export async function styleSummary(): Promise<StyleSummary> {
  const { snapshot } = await matcherCache.getFresh()
  let summary = made.get(snapshot)
  if (!summary) made.set(snapshot, (summary = summarize(snapshot)))
  return summary
}

/** Code-unit order: the same on every host and locale, and cheap for tens of thousands of forms. */
const byText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0)

function summarize(snapshot: MatcherSnapshot): StyleSummary {
  const avoid = new Map<string, Set<string>>()
  const deprecatedTerms = new Set<string>()
  const preferred = new Map<string, Set<string>>()
  for (const forms of snapshot.byKey.values()) {
    for (const form of forms) collect(form, avoid, deprecatedTerms, preferred)
  }
  const sections: { title: string; lines: string[] }[] = [
    {
      title: 'Do not write → write instead',
      lines: [...avoid]
        .sort(([a], [b]) => byText(a, b))
        .map(([text, instead]) => `- ${text} → ${[...instead].sort(byText).join(' / ')}`),
    },
    {
      title: 'Deprecated terms (avoid the concept; no replacement named)',
      lines: [...deprecatedTerms].sort(byText).map((name) => `- ${name}`),
    },
    {
      title: 'Preferred forms (term: its preferred notations)',
      lines: [...preferred]
        .sort(([a], [b]) => byText(a, b))
        .map(([name, forms]) => {
          const others = [...forms].filter((f) => f !== name).sort(byText)
          return others.length ? `- ${name}: ${others.join(', ')}` : `- ${name}`
        }),
    },
  ]
  const header = `# Glossary style summary (glossary version ${snapshot.version})\n\nWrite the preferred forms; never a form listed under "Do not write".\n`
  let text = header
  let left = 0
  for (const section of sections) {
    if (!section.lines.length) continue
    const title = `\n## ${section.title}\n\n`
    if (left || text.length + title.length > STYLE_SUMMARY_MAX_CHARS) {
      left += section.lines.length
      continue
    }
    text += title
    for (const [i, line] of section.lines.entries()) {
      if (text.length + line.length + 1 > STYLE_SUMMARY_MAX_CHARS - 200) {
        left += section.lines.length - i
        break
      }
      text += `${line}\n`
    }
  }
  if (left) {
    text += `\n(${left} more lines not shown: check a form with the lookup_terms or validate_text tools.)\n`
  }
  return { version: snapshot.version, text, truncated: left > 0 }
}

function collect(
  form: FormPayload,
  avoid: Map<string, Set<string>>,
  deprecatedTerms: Set<string>,
  preferred: Map<string, Set<string>>,
): void {
  const { term } = form
  if (term.status === 'deprecated') {
    deprecatedTerms.add(term.name)
    return
  }
  if (form.kind === 'deprecated') {
    const instead = preferredFormFor(term, form.text)
    if (!instead) return
    let set = avoid.get(form.text)
    if (!set) avoid.set(form.text, (set = new Set()))
    set.add(instead)
    return
  }
  if (form.kind === 'preferred' && term.status === 'active') {
    let set = preferred.get(term.name)
    if (!set) preferred.set(term.name, (set = new Set()))
    set.add(form.text)
  }
}
