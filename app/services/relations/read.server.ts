import type { EntityManager } from '@mikro-orm/postgresql'
import { AppError } from '#app/lib/errors.server.ts'
import { RELATION_LIMITS, type ListRelationsQuery } from '#app/schemas/relations.ts'
import { renderMarkdown } from '#app/services/markdown/render.server.ts'
import { normalizeKey } from '#app/services/matching/normalize.ts'
import { em } from '#db/orm.ts'
import { isUuid } from '#domain/ids.ts'
import type { RelationStatus, RelationType } from '#domain/content.ts'

/**
 * Reading relations (docs/decisions/008-relations.md). A read item embeds both terms at their CURRENT
 * revision (with the definition of that revision), says whether the relation is `stale` (a term changed
 * since the revisions the relation records) and carries the opaque `version` a PATCH must send back.
 * Relations whose source or target term was deleted are not listed.
 */

export interface RelationTermDto {
  id: string
  slug: string
  name: string
  status: string
  revision: number
  definition: string
}

export interface PersonDto {
  id: string
  name: string
}

export interface RelationDto {
  id: string
  sourceTermId: string
  targetTermId: string
  relationType: RelationType
  evidenceMd: string
  evidenceHtml: string
  sourceRevision: number
  targetRevision: number
  status: RelationStatus
  official: boolean
  stale: boolean
  version: string
  source: RelationTermDto
  target: RelationTermDto
  proposedBy: PersonDto | null
  lastReviewedBy: PersonDto | null
  lastReviewedAt: string | null
  lastEditedBy: PersonDto | null
  lastEditedAt: string | null
  reversedFromId: string | null
  createdAt: string
  updatedAt: string
}

interface RelationRow {
  id: string
  source_term_id: string
  target_term_id: string
  relation_type: RelationType
  evidence_md: string
  source_revision: number
  target_revision: number
  status: RelationStatus
  version: string
  reversed_from_id: string | null
  created_at: Date | string
  updated_at: Date | string
  reviewed_at: Date | string | null
  edited_at: Date | string | null
  proposed_by_id: string | null
  proposed_by_name: string | null
  reviewed_by_id: string | null
  reviewed_by_name: string | null
  edited_by_id: string | null
  edited_by_name: string | null
  s_slug: string
  s_name: string
  s_status: string
  s_revision: number
  s_definition: string | null
  t_slug: string
  t_name: string
  t_status: string
  t_revision: number
  t_definition: string | null
}

const RELATION_SELECT = `
  select r.id, r.source_term_id, r.target_term_id, r.relation_type, r.evidence_md, r.source_revision,
         r.target_revision, r.status, r.version::text as version, r.reversed_from_id, r.created_at, r.updated_at,
         r.reviewed_at, r.edited_at,
         r.proposed_by_id, pu.name as proposed_by_name,
         r.reviewed_by_id, ru.name as reviewed_by_name,
         r.edited_by_id, eu.name as edited_by_name,
         s.slug as s_slug, s.name as s_name, s.status as s_status, s.revision as s_revision,
         sr.content ->> 'definition' as s_definition,
         t.slug as t_slug, t.name as t_name, t.status as t_status, t.revision as t_revision,
         tr.content ->> 'definition' as t_definition
    from relations r
    join terms s on s.id = r.source_term_id
    join terms t on t.id = r.target_term_id
    left join term_revisions sr on sr.term_id = s.id and sr.revision = s.revision
    left join term_revisions tr on tr.term_id = t.id and tr.revision = t.revision
    left join users pu on pu.id = r.proposed_by_id
    left join users ru on ru.id = r.reviewed_by_id
    left join users eu on eu.id = r.edited_by_id`

function iso(value: Date | string | null): string | null {
  if (value === null) return null
  return (value instanceof Date ? value : new Date(value)).toISOString()
}

function person(id: string | null, name: string | null): PersonDto | null {
  return id ? { id, name: name ?? '' } : null
}

function toDto(row: RelationRow): RelationDto {
  return {
    id: row.id,
    sourceTermId: row.source_term_id,
    targetTermId: row.target_term_id,
    relationType: row.relation_type,
    evidenceMd: row.evidence_md,
    evidenceHtml: renderMarkdown(row.evidence_md),
    sourceRevision: row.source_revision,
    targetRevision: row.target_revision,
    status: row.status,
    official: row.status === 'approved',
    stale: row.source_revision !== row.s_revision || row.target_revision !== row.t_revision,
    version: row.version,
    source: {
      id: row.source_term_id,
      slug: row.s_slug,
      name: row.s_name,
      status: row.s_status,
      revision: row.s_revision,
      definition: row.s_definition ?? '',
    },
    target: {
      id: row.target_term_id,
      slug: row.t_slug,
      name: row.t_name,
      status: row.t_status,
      revision: row.t_revision,
      definition: row.t_definition ?? '',
    },
    proposedBy: person(row.proposed_by_id, row.proposed_by_name),
    lastReviewedBy: person(row.reviewed_by_id, row.reviewed_by_name),
    lastReviewedAt: iso(row.reviewed_at),
    lastEditedBy: person(row.edited_by_id, row.edited_by_name),
    lastEditedAt: iso(row.edited_at),
    reversedFromId: row.reversed_from_id,
    createdAt: iso(row.created_at)!,
    updatedAt: iso(row.updated_at)!,
  }
}

/** Relation DTOs for ids, in the order given (unknown ids are left out). */
export async function loadRelationDtos(
  manager: EntityManager,
  ids: readonly string[],
): Promise<RelationDto[]> {
  ids = ids.filter(isUuid) // an impossible id is no row, not a database error
  if (ids.length === 0) return []
  const rows = await manager.execute<RelationRow[]>(`${RELATION_SELECT} where r.id = any(?::uuid[])`, [
    `{${ids.join(',')}}`,
  ])
  const byId = new Map(rows.map((row) => [row.id, toDto(row)]))
  return ids.map((id) => byId.get(id)).filter((dto): dto is RelationDto => !!dto)
}

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
  // Deleted terms are few: an anti-join against them keeps the common queries on relations' own indexes.
  const where = [
    'r.source_term_id not in (select id from terms where deleted_at is not null)',
    'r.target_term_id not in (select id from terms where deleted_at is not null)',
  ]
  const params: unknown[] = []
  if (query.termId) {
    where.push('(r.source_term_id = ? or r.target_term_id = ?)')
    params.push(query.termId, query.termId)
  }
  if (query.status) {
    where.push('r.status = ?')
    params.push(query.status)
  }
  if (query.type) {
    where.push('r.relation_type = ?')
    params.push(query.type)
  }
  let joins = ''
  if (query.stale !== undefined) {
    joins = 'join terms s on s.id = r.source_term_id join terms t on t.id = r.target_term_id'
    const stale = '(r.source_revision <> s.revision or r.target_revision <> t.revision)'
    where.push(query.stale ? stale : `not ${stale}`)
  }
  const from = `from relations r ${joins} where ${where.join(' and ')}`
  const offset = (query.page - 1) * RELATION_LIMITS.pageSize
  const rows = await manager.execute<{ id: string }[]>(
    `select r.id ${from} order by r.updated_at desc, r.id limit ? offset ?`,
    [...params, RELATION_LIMITS.pageSize, offset],
  )
  const count = await manager.execute<{ n: string | number }[]>(`select count(*) as n ${from}`, params)
  const total = Number(count[0]?.n ?? 0)
  const items = await loadRelationDtos(
    manager,
    rows.map((r) => r.id),
  )
  return { items, total, page: query.page }
}

/** Escapes LIKE wildcards; the pattern uses `\` as its escape character. */
function likeEscape(s: string): string {
  return s.replace(/[\\%_]/g, (c) => `\\${c}`)
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
  const manager = em()
  const q = options.q ? normalizeKey(options.q) : ''
  const where = ["t.deleted_at is null and t.status <> 'merged'"]
  const params: unknown[] = []
  let rank = '0'
  const rankParams: unknown[] = []
  if (q) {
    const escaped = likeEscape(q)
    where.push('t.search_text like ?')
    params.push(`%${escaped}%`)
    rank = 'case when t.search_text like ? then 0 when t.search_text like ? then 1 else 2 end'
    rankParams.push(`%\u0001${escaped}\u0001%`, `%\u0001${escaped}%`)
  }
  const rows = await manager.execute<
    {
      id: string
      slug: string
      name: string
      status: string
      revision: number
      definition: string | null
      total: string | number
    }[]
  >(
    `select c.id, c.slug, c.name, c.status, c.revision, r.content ->> 'definition' as definition, c.total
       from (select t.id, t.slug, t.name, t.status, t.revision, count(*) over () as total, ${rank} as rank
               from terms t where ${where.join(' and ')}
              order by 7, lower(t.name), t.id limit ?) c
       left join term_revisions r on r.term_id = c.id and r.revision = c.revision
      order by c.rank, lower(c.name), c.id`,
    [...rankParams, ...params, RELATION_LIMITS.candidates],
  )
  const total = rows.length ? Number(rows[0]!.total) : 0
  const items = rows.map(({ total: _total, definition, ...row }) => ({
    ...row,
    definition: definition ?? '',
  }))
  return { items, total }
}
