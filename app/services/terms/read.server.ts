import { AppError } from '#app/lib/errors.server.ts'
import { casedKey } from '#app/services/matching/letter-case.ts'
import { normalizeKey } from '#app/services/matching/normalize.ts'
import { diffField, type DiffKind, type FieldDiff } from '#app/services/revision-diff.server.ts'
import type { ListTermsQuery } from '#app/schemas/terms.ts'
import { em } from '#db/orm.ts'
import { notationLabel, type TermContent, type TermNotationValue } from './content.server.ts'
import {
  loadTermDtos,
  resolveTermId,
  selectRevision,
  selectRecentTermIds,
  selectRevisionSummaries,
  selectSuggestions,
  selectTermPage,
  type RevisionDto,
  type RevisionSummary,
  type Suggestion,
  type TermDto,
  type TermListItem,
} from './store.server.ts'

export type { RevisionDto, RevisionSummary, Suggestion, TermDto, TermListItem }

/** One term by UUID, current slug or old slug. */
export async function getTerm(options: { idOrSlug: string }): Promise<TermDto> {
  const manager = em()
  const id = await resolveTermId(manager, options.idOrSlug)
  const [dto] = await loadTermDtos(manager, [id])
  if (!dto) throw new AppError('not_found', `No term "${options.idOrSlug}".`)
  return dto
}

/**
 * Lists terms. `q` matches a substring of any name or notation after the matcher's normalization (NFKC,
 * lowercase), so width, case and Korean all work. Ranking: a name/notation written exactly as `q` (letter
 * case included, docs/decisions/013-letter-case.md: `US` lists the term written `US` before the one written
 * `us`), then a whole name/notation equal to `q` without case, then one starting with it, then any other
 * match; ties by name. Without `status`, merged terms are left out; deleted terms never appear.
 */
export async function listTerms(
  options: ListTermsQuery,
): Promise<{ items: TermListItem[]; total: number; page: number; pageSize: number }> {
  const manager = em()
  const { ids, total } = await selectTermPage(manager, {
    folded: options.q ? normalizeKey(options.q) : '',
    cased: options.q ? casedKey(options.q) : '',
    status: options.status ?? 'not-merged',
    domains: options.domain,
    categories: options.category,
    tags: options.tag,
    limit: options.pageSize,
    offset: (options.page - 1) * options.pageSize,
  })
  const dtos = await loadTermDtos(manager, ids, { withBody: false })
  const items = dtos.map(({ body: _body, oldSlugs: _old, ...item }) => item)
  return { items, total, page: options.page, pageSize: options.pageSize }
}

/** The live, unmerged terms changed last (created, edited, renamed), newest first, without their bodies. */
export async function recentTerms(options: { limit: number }): Promise<TermListItem[]> {
  const manager = em()
  const dtos = await loadTermDtos(manager, await selectRecentTermIds(manager, options.limit), {
    withBody: false,
  })
  return dtos.map(({ body: _body, oldSlugs: _old, ...item }) => item)
}

/**
 * Prefix autocomplete over names and notations (normalized, so case and width do not matter for finding a
 * term). One entry per term, best first: shorter matched forms, then names before notations. Within a term,
 * a form whose start is written as typed, letter case included, is the one shown (docs/decisions/
 * 013-letter-case.md): `Github` suggests the deprecated `Github`, `GitHub` the preferred `GitHub`.
 */
export async function suggestTerms(options: { q: string; limit: number }): Promise<{ items: Suggestion[] }> {
  const folded = normalizeKey(options.q)
  if (!folded) return { items: [] }
  return {
    items: await selectSuggestions(em(), { folded, cased: casedKey(options.q), limit: options.limit }),
  }
}

/** The revision history of a term, newest first. */
export async function listRevisions(options: {
  idOrSlug: string
}): Promise<{ termId: string; items: RevisionSummary[]; total: number }> {
  const manager = em()
  const termId = await resolveTermId(manager, options.idOrSlug)
  const items = await selectRevisionSummaries(manager, termId)
  return { termId, items, total: items.length }
}

async function loadRevision(
  manager: ReturnType<typeof em>,
  termId: string,
  revision: number,
): Promise<RevisionDto> {
  const found = await selectRevision(manager, termId, revision)
  if (!found) throw new AppError('not_found', `The term has no revision ${revision}.`)
  return found
}

/** One revision with its full content. */
export async function getRevision(options: { idOrSlug: string; revision: number }): Promise<RevisionDto> {
  const manager = em()
  const termId = await resolveTermId(manager, options.idOrSlug)
  return loadRevision(manager, termId, options.revision)
}

/** A list field shown item by item; a notation by `notationLabel` (its language too: issue 27). */
const ITEMS: DiffKind = {
  items: (v) =>
    ((v ?? []) as unknown[]).map((x) => (typeof x === 'string' ? x : notationLabel(x as TermNotationValue))),
}

/** Every field of the content in display order, with how a change of it is shown. */
const FIELDS: [keyof TermContent, DiffKind][] = [
  ['slug', 'scalar'],
  ['name', 'scalar'],
  ['fullName', 'scalar'],
  ['nameEn', 'scalar'],
  ['nameKo', 'scalar'],
  ['status', 'scalar'],
  ['notations', ITEMS],
  ['domains', ITEMS],
  ['categories', ITEMS],
  ['tags', ITEMS],
  ['definition', 'lines'],
  ['body', 'lines'],
]

/**
 * Field-by-field difference between two contents: scalars as before/after, lists as an item diff (a notation
 * is shown as `text (kind, lang)`), definition and body as a line diff. Revisions and sync previews use it.
 */
export function diffTermContent(
  a: Partial<TermContent>,
  b: Partial<TermContent>,
): FieldDiff<keyof TermContent>[] {
  return FIELDS.map(([field, kind]) => diffField(field, kind, a[field] ?? null, b[field] ?? null))
}

/**
 * Field-by-field difference between two revisions (either order): scalars as before/after, lists as an item
 * diff (a notation is shown as `text (kind, lang)`), definition and body as a line diff.
 */
export async function diffRevisions(options: { idOrSlug: string; from: number; to: number }): Promise<{
  termId: string
  from: RevisionSummary
  to: RevisionSummary
  fields: FieldDiff<keyof TermContent>[]
}> {
  const manager = em()
  const termId = await resolveTermId(manager, options.idOrSlug)
  const a = await loadRevision(manager, termId, options.from)
  const b = await loadRevision(manager, termId, options.to)
  const fields = diffTermContent(a.content, b.content)
  const strip = ({ content: _c, termId: _t, ...summary }: RevisionDto): RevisionSummary => summary
  return { termId, from: strip(a), to: strip(b), fields }
}
