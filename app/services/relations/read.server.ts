import { AppError } from '#app/lib/errors.server.ts'
import { RELATION_LIMITS, type ListRelationsQuery } from '#app/schemas/relations.ts'
import { normalizeKey } from '#app/services/matching/normalize.ts'
import { findTermIdsBySlugs } from '#app/services/terms/store.server.ts'
import { em } from '#db/orm.ts'
import {
  loadRelationDtos,
  selectRelationPage,
  selectRelationTermCandidates,
  selectTermsNamed,
  type PersonDto,
  type RelationDto,
  type RelationTermDto,
} from './store.server.ts'

export type { PersonDto, RelationDto, RelationTermDto }

/**
 * Reading relations (docs/decisions/008-relations.md). A read item embeds both terms at their CURRENT
 * revision (with the definition of that revision), says whether the relation is `stale` (a term changed
 * since the revisions the relation records) and carries the opaque `version` a PATCH must send back.
 * Relations whose source or target term was deleted are not listed.
 */

/** One relation as a read item; 404 when unknown. */
export async function getRelation(options: { id: string }): Promise<RelationDto> {
  const [dto] = await loadRelationDtos(em(), [options.id])
  if (!dto) throw new AppError('not_found', `No relation ${options.id}.`)
  return dto
}

/**
 * Lists relations, 20 per page, most recently changed first. `termId` matches either end; `stale` keeps
 * only relations judged on older revisions than the terms' current ones (the review queue shows
 * `status=proposed` plus `stale=true`).
 */
export async function listRelations(
  query: ListRelationsQuery,
): Promise<{ items: RelationDto[]; total: number; page: number }> {
  const manager = em()
  const { ids, total } = await selectRelationPage(manager, { ...query, pageSize: RELATION_LIMITS.pageSize })
  const items = await loadRelationDtos(manager, ids)
  return { items, total, page: query.page }
}

/** How many listed relations have this status (as `listRelations` counts them), for the home page. */
export async function countRelations(query: Pick<ListRelationsQuery, 'status'>): Promise<number> {
  return (await selectRelationPage(em(), { status: query.status, page: 1, pageSize: 0 })).total
}

/**
 * Term candidates for the propose form: at most 20 terms whose name or any notation contains `q` (after the
 * matcher's normalization, so case, width and Korean work), exact and prefix matches first, with the
 * current revision and definition to propose against, and the total number of matches. Merged and deleted
 * terms are never candidates.
 */
export async function searchRelationTerms(options: {
  q?: string
}): Promise<{ items: RelationTermDto[]; total: number }> {
  const q = options.q ? normalizeKey(options.q) : ''
  return selectRelationTermCandidates(em(), { folded: q, limit: RELATION_LIMITS.candidates })
}

/**
 * The terms typed texts name, for the forms that take a term by name (the relation form, the wiki's linked
 * terms): a text written exactly as a term's address (its slug, current or old) is that term; any other text
 * names the live, unmerged terms whose name, another name or a notation it is as a whole, folded as the
 * matcher folds (letter case, width, spaces), by name. `byText` has an entry (maybe empty) for each text as
 * given; `byId` holds the live, unmerged terms among `ids` (a picker's chosen terms), at their current revision.
 */
export async function termsNamed(options: {
  texts: readonly string[]
  ids?: readonly string[]
}): Promise<{ byText: Map<string, RelationTermDto[]>; byId: Map<string, RelationTermDto> }> {
  const manager = em()
  const texts = [...new Set(options.texts.map((text) => text.trim()).filter(Boolean))]
  // Slugs are stored lowercase (NFKC): only a text written that way can be one.
  const slugIds = await findTermIdsBySlugs(
    manager,
    texts.filter((text) => text === text.normalize('NFKC').toLowerCase()),
  )
  const foldedOf = new Map(
    texts.filter((text) => !slugIds.has(text)).map((text) => [text, normalizeKey(text)]),
  )
  const found = await selectTermsNamed(manager, {
    folded: [...foldedOf.values()],
    ids: [...(options.ids ?? []), ...slugIds.values()],
  })
  const byText = new Map<string, RelationTermDto[]>()
  for (const text of texts) {
    const slugId = slugIds.get(text)
    const folded = foldedOf.get(text)
    const term = slugId ? found.byId.get(slugId) : undefined
    byText.set(text, term ? [term] : folded !== undefined ? (found.byText.get(folded) ?? []) : [])
  }
  const byId = new Map(
    (options.ids ?? []).flatMap((id) => {
      const term = found.byId.get(id.toLowerCase())
      return term ? [[id, term] as const] : []
    }),
  )
  return { byText, byId }
}
