import crypto from 'node:crypto'
import { casedKey } from '#app/services/matching/letter-case.ts'
import { normalizeKey } from '#app/services/matching/normalize.ts'
import { type Problem } from '#app/lib/errors.server.ts'
import type { NotationKind, TermStatus } from '#domain/terms.ts'

/**
 * The content of a term as one value: what a revision stores, what the content hash covers and what the
 * search/matching forms are derived from.
 */
export interface TermNotationValue {
  text: string
  kind: NotationKind
  lang: string | null
}

/**
 * A notation as one line of text, `text (kind)` or `text (kind, lang)`, where revisions and import reports list
 * notations (a changed language shows as a changed item).
 */
export const notationLabel = (n: TermNotationValue): string =>
  `${n.text} (${n.lang ? `${n.kind}, ${n.lang}` : n.kind})`

export interface TermContent {
  slug: string
  name: string
  fullName: string | null
  nameEn: string | null
  nameKo: string | null
  notations: TermNotationValue[]
  domains: string[]
  categories: string[]
  tags: string[]
  status: TermStatus
  definition: string
  body: string
}

/** The content in a fixed key order (so equal content always serializes, and hashes, the same). */
export function canonicalContent(c: TermContent): TermContent {
  return {
    slug: c.slug,
    name: c.name,
    fullName: c.fullName ?? null,
    nameEn: c.nameEn ?? null,
    nameKo: c.nameKo ?? null,
    notations: c.notations.map((n) => ({ text: n.text, kind: n.kind, lang: n.lang ?? null })),
    domains: [...c.domains],
    categories: [...c.categories],
    tags: [...c.tags],
    status: c.status,
    definition: c.definition,
    body: c.body,
  }
}

/** SHA-256 of the canonical content: saving identical content creates no revision. */
export function contentHash(c: TermContent): string {
  return crypto
    .createHash('sha256')
    .update(JSON.stringify(canonicalContent(c)))
    .digest('hex')
}

export type FormSource = 'name' | 'full_name' | 'name_en' | 'name_ko' | 'notation'

/** A searchable, matchable form of a term: a name or a notation, normalized. */
export interface TermForm {
  text: string
  /** The folded key (NFKC, lowercase, whitespace folded): what search, lookup and the automaton compare. */
  normalized: string
  /** NFKC and whitespace folded, letter case kept: what tells notations that differ only by case apart. */
  cased: string
  kind: NotationKind
  lang: string | null
  source: FormSource
  position: number
}

/**
 * Names and notations as forms. Names are `preferred`; a notation written like a name (same cased form) is
 * folded into it (a name cannot be deprecated or merely admitted), while one that differs from it only by
 * letter case is a form of its own (`Github` deprecated next to the name `GitHub`). Forms that normalize to
 * nothing are skipped.
 */
export function termForms(c: TermContent): TermForm[] {
  const out: TermForm[] = []
  const seen = new Set<string>()
  const add = (text: string | null, kind: NotationKind, lang: string | null, source: FormSource) => {
    if (!text) return
    const normalized = normalizeKey(text)
    const cased = casedKey(text)
    if (!normalized || seen.has(cased)) return
    seen.add(cased)
    out.push({ text, normalized, cased, kind, lang, source, position: out.length })
  }
  add(c.name, 'preferred', null, 'name')
  add(c.fullName, 'preferred', null, 'full_name')
  add(c.nameEn, 'preferred', 'en', 'name_en')
  add(c.nameKo, 'preferred', 'ko', 'name_ko')
  for (const n of c.notations) add(n.text, n.kind, n.lang, 'notation')
  return out
}

/** Normalized forms joined with U+0001 on both sides of each, for substring and whole-form search. */
export function searchText(forms: readonly TermForm[]): string {
  return `\u0001${forms.map((f) => f.normalized).join('\u0001')}\u0001`
}

/**
 * Problems in a content value that the zod schema cannot see (cross-field rules). Two notations collide when
 * they are the same once width, compatibility forms and whitespace are folded (`ＡＰＩ` and `API`, `data  flow`
 * and `data flow`); letter case is kept, so notations that differ only by case (`GitHub`, `Github`) are
 * distinct, each with its own kind (docs/decisions/013-letter-case.md). Each message names what collides.
 */
export function contentProblems(c: TermContent, prefix = ''): Problem[] {
  const problems: Problem[] = []
  const names = new Map<string, string>()
  for (const name of [c.name, c.fullName, c.nameEn, c.nameKo]) {
    if (name && !names.has(casedKey(name))) names.set(casedKey(name), name)
  }
  const seen = new Map<string, number>()
  c.notations.forEach((n, i) => {
    const cased = casedKey(n.text)
    const earlier = seen.get(cased)
    if (!normalizeKey(n.text)) {
      problems.push({
        path: `${prefix}notations.${i}.text`,
        message: 'This notation is empty once normalized.',
      })
    } else if (earlier !== undefined) {
      const first = c.notations[earlier]!.text
      problems.push({
        path: `${prefix}notations.${i}.text`,
        message:
          first === n.text
            ? `"${n.text}" is listed twice (notations ${earlier + 1} and ${i + 1}).`
            : `"${n.text}" is listed twice: it is the same notation as "${first}" (notation ${earlier + 1}) once width, compatibility forms and spaces are folded.`,
      })
    } else if (names.has(cased) && n.kind !== 'preferred') {
      problems.push({
        path: `${prefix}notations.${i}.kind`,
        message: `"${n.text}" is the term's name "${names.get(cased)}", so it cannot be ${n.kind}.`,
      })
    }
    if (earlier === undefined) seen.set(cased, i)
  })
  return problems
}

/** The preferred form to suggest for a use of `notation`: the Korean name for Hangul text, else the name. */
export function preferredFormFor(
  term: { name: string; nameKo: string | null; status: TermStatus },
  notation: string,
): string | null {
  if (term.status === 'deprecated') return null
  if (term.nameKo && /\p{Script=Hangul}/u.test(notation)) return term.nameKo
  return term.name
}

/** Drops duplicates while keeping the first occurrence's order. */
export function unique<T>(values: readonly T[]): T[] {
  return [...new Set(values)]
}
