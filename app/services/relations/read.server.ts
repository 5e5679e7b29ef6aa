import { AppError } from '#app/lib/errors.server.ts'
import { RELATION_LIMITS, type ListRelationsQuery } from '#app/schemas/relations.ts'
import { normalizeKey } from '#app/services/matching/normalize.ts'
import { em } from '#db/orm.ts'
import {
  loadRelationDtos,
  selectRelationPage,
  selectRelationTermCandidates,
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
