import type { z } from 'zod'
import crypto from 'node:crypto'
import type { EntityManager } from '@mikro-orm/postgresql'
import type { ListRelationsQuery, RelationSchema, RelationTermSchema } from '#app/schemas/relations.ts'
import { renderMarkdown } from '#app/services/markdown/render.server.ts'
import {
  iso,
  isoOrNull,
  likeEscape,
  personRef,
  textArray,
  uuidArray,
  where,
  type PersonRef,
} from '#db/sql.ts'
import { isUuid } from '#domain/ids.ts'
import type { RelationStatus, RelationType } from '#domain/content.ts'

/**
 * The data access of relations: every SQL statement on `relations` (and the term rows a relation reads),
 * with the row mapper of its DTO. The rules (who may do what, transitions, conflicts) are in
 * read.server.ts and write.server.ts.
 */

/** The `RelationTermSchema` of the API, inferred: the answer and its documentation cannot differ. */
export type RelationTermDto = z.output<typeof RelationTermSchema>

export type PersonDto = PersonRef

/** The `RelationSchema` of the API, inferred: the answer and its documentation cannot differ. */
export type RelationDto = z.output<typeof RelationSchema>

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
    proposedBy: personRef(row.proposed_by_id, row.proposed_by_name),
    lastReviewedBy: personRef(row.reviewed_by_id, row.reviewed_by_name),
    lastReviewedAt: isoOrNull(row.reviewed_at),
    lastEditedBy: personRef(row.edited_by_id, row.edited_by_name),
    lastEditedAt: isoOrNull(row.edited_at),
    reversedFromId: row.reversed_from_id,
    createdAt: iso(row.created_at),
    updatedAt: iso(row.updated_at),
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
    uuidArray(ids),
  ])
  const byId = new Map(rows.map((row) => [row.id, toDto(row)]))
  return ids.map((id) => byId.get(id)).filter((dto): dto is RelationDto => !!dto)
}

/** A page of relation ids, most recently changed first, and the total. */
export async function selectRelationPage(
  manager: EntityManager,
  query: ListRelationsQuery & { pageSize: number },
): Promise<{ ids: string[]; total: number }> {
  const stale = '(r.source_revision <> s.revision or r.target_revision <> t.revision)'
  const filtered = where(
    // Deleted terms are few: an anti-join against them keeps the common queries on relations' own indexes.
    ['r.source_term_id not in (select id from terms where deleted_at is not null)'],
    ['r.target_term_id not in (select id from terms where deleted_at is not null)'],
    query.termId && ['(r.source_term_id = ? or r.target_term_id = ?)', query.termId, query.termId],
    query.status && ['r.status = ?', query.status],
    query.type && ['r.relation_type = ?', query.type],
    query.stale !== undefined && [query.stale ? stale : `not ${stale}`],
  )
  const joins =
    query.stale === undefined
      ? ''
      : 'join terms s on s.id = r.source_term_id join terms t on t.id = r.target_term_id'
  const from = `from relations r ${joins} ${filtered.sql}`
  const offset = (query.page - 1) * query.pageSize
  const rows = await manager.execute<{ id: string }[]>(
    `select r.id ${from} order by r.updated_at desc, r.id limit ? offset ?`,
    [...filtered.params, query.pageSize, offset],
  )
  const count = await manager.execute<{ n: string | number }[]>(
    `select count(*) as n ${from}`,
    filtered.params,
  )
  const total = Number(count[0]?.n ?? 0)
  return { ids: rows.map((r) => r.id), total }
}

/**
 * Live, unmerged terms whose name or any notation contains the folded key, exact and prefix matches first,
 * with their current revision and its definition, and the number of matches.
 */
export async function selectRelationTermCandidates(
  manager: EntityManager,
  query: { folded: string; limit: number },
): Promise<{ items: RelationTermDto[]; total: number }> {
  const escaped = likeEscape(query.folded)
  const filtered = where(
    ["t.deleted_at is null and t.status <> 'merged'"],
    query.folded && ['t.search_text like ?', `%${escaped}%`],
  )
  const rank = query.folded
    ? 'case when t.search_text like ? then 0 when t.search_text like ? then 1 else 2 end'
    : '0'
  const rankParams = query.folded ? [`%\u0001${escaped}\u0001%`, `%\u0001${escaped}%`] : []
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
               from terms t ${filtered.sql}
              order by 7, lower(t.name), t.id limit ?) c
       left join term_revisions r on r.term_id = c.id and r.revision = c.revision
      order by c.rank, lower(c.name), c.id`,
    [...rankParams, ...filtered.params, query.limit],
  )
  const total = rows.length ? Number(rows[0]!.total) : 0
  const items = rows.map(({ total: _total, definition, ...row }) => ({
    ...row,
    definition: definition ?? '',
  }))
  return { items, total }
}

/**
 * The live, unmerged terms that each folded text names as a whole form (the name, another name or a
 * notation, folded as `search_text` holds them), plus the terms of `ids`, at their current revision with
 * its definition: `byText` maps each text to its terms (by name), `byId` the listed ids found.
 */
export async function selectTermsNamed(
  manager: EntityManager,
  query: { folded: readonly string[]; ids: readonly string[] },
): Promise<{ byText: Map<string, RelationTermDto[]>; byId: Map<string, RelationTermDto> }> {
  const folded = [...new Set(query.folded.filter(Boolean))]
  const ids = [...new Set(query.ids.filter(isUuid).map((id) => id.toLowerCase()))]
  const byText = new Map<string, RelationTermDto[]>(folded.map((text) => [text, []]))
  const byId = new Map<string, RelationTermDto>()
  if (folded.length === 0 && ids.length === 0) return { byText, byId }
  const rows = await manager.execute<
    {
      folded: string | null
      id: string
      slug: string
      name: string
      status: string
      revision: number
      definition: string | null
    }[]
  >(
    `select m.folded, t.id, t.slug, t.name, t.status, t.revision, r.content ->> 'definition' as definition
       from (select q.folded, t.id
               from unnest(?::text[], ?::text[]) as q(folded, pattern)
               join terms t on t.search_text like '%' || chr(1) || q.pattern || chr(1) || '%'
                and t.deleted_at is null and t.status <> 'merged'
             union all
             select null, t.id from terms t
              where t.id = any(?::uuid[]) and t.deleted_at is null and t.status <> 'merged') m
       join terms t on t.id = m.id
       left join term_revisions r on r.term_id = t.id and r.revision = t.revision
      order by lower(t.name), t.id`,
    [textArray(folded), textArray(folded.map(likeEscape)), uuidArray(ids)],
  )
  for (const { folded: text, definition, ...term } of rows) {
    const dto = { ...term, definition: definition ?? '' }
    if (text === null) byId.set(dto.id, dto)
    else byText.get(text)?.push(dto)
  }
  return { byText, byId }
}

/** An approved relation between two live, unmerged terms, as the SKOS export reads it. */
export interface ApprovedRelation {
  sourceId: string
  targetId: string
  type: RelationType
}

/**
 * The approved relations that touch any of `termIds` (as source or target) and whose other end is a live,
 * unmerged term as well. The SKOS export reads them one batch of terms at a time.
 */
export async function selectApprovedRelationsOf(
  manager: EntityManager,
  termIds: readonly string[],
): Promise<ApprovedRelation[]> {
  if (termIds.length === 0) return []
  const ids = uuidArray(termIds)
  return manager.execute<ApprovedRelation[]>(
    `select r.source_term_id as "sourceId", r.target_term_id as "targetId", r.relation_type as type
       from relations r
       join terms s on s.id = r.source_term_id and s.deleted_at is null and s.status <> 'merged'
       join terms t on t.id = r.target_term_id and t.deleted_at is null and t.status <> 'merged'
      where r.status = 'approved' and (r.source_term_id = any(?::uuid[]) or r.target_term_id = any(?::uuid[]))
      order by r.source_term_id, r.target_term_id, r.relation_type`,
    [ids, ids],
  )
}

// ── Writes ──────────────────────────────────────────────────────────────────────────────────────────────

/** What a write needs of a term: it exists (not deleted), its current revision and status. */
export interface RelationTermHead {
  id: string
  revision: number
  status: string
}

export async function selectTermHeads(
  tx: EntityManager,
  ids: readonly string[],
): Promise<Map<string, RelationTermHead>> {
  const rows = await tx.execute<RelationTermHead[]>(
    'select id, revision, status from terms where id = any(?::uuid[]) and deleted_at is null',
    [uuidArray(ids)],
  )
  return new Map(rows.map((r) => [r.id, r]))
}

/** The relation with the same source, target and type, other than `exceptId`. */
export async function findDuplicate(
  tx: EntityManager,
  key: { sourceTermId: string; targetTermId: string; relationType: RelationType },
  exceptId: string | null,
): Promise<string | undefined> {
  const rows = await tx.execute<{ id: string }[]>(
    `select id from relations where source_term_id = ? and target_term_id = ? and relation_type = ?
       and (?::uuid is null or id <> ?::uuid)`,
    [key.sourceTermId, key.targetTermId, key.relationType, exceptId, exceptId],
  )
  return rows[0]?.id
}

/** A relation row as a write checks it. */
export interface RelationHead {
  id: string
  source_term_id: string
  target_term_id: string
  relation_type: RelationType
  evidence_md: string
  status: RelationStatus
  version: string
  source_revision: number
  target_revision: number
  proposed_by_id: string | null
}

export async function selectRelationHead(tx: EntityManager, id: string): Promise<RelationHead | undefined> {
  const rows = await tx.execute<RelationHead[]>(
    `select id, source_term_id, target_term_id, relation_type, evidence_md, status, version::text as version,
            source_revision, target_revision, proposed_by_id
       from relations where id = ?`,
    [id],
  )
  return rows[0]
}

/** Inserts a `proposed` relation with a fresh version; returns its id. */
export async function insertRelation(
  tx: EntityManager,
  row: {
    sourceTermId: string
    targetTermId: string
    relationType: RelationType
    evidenceMd: string
    sourceRevision: number
    targetRevision: number
    proposedById: string
    reversedFromId: string | null
  },
): Promise<string> {
  const id = crypto.randomUUID()
  await tx.execute(
    `insert into relations (id, source_term_id, target_term_id, relation_type, evidence_md, source_revision,
                            target_revision, status, version, proposed_by_id, reversed_from_id, created_at, updated_at)
     values (?, ?, ?, ?, ?, ?, ?, 'proposed', ?, ?, ?, now(), now())`,
    [
      id,
      row.sourceTermId,
      row.targetTermId,
      row.relationType,
      row.evidenceMd,
      row.sourceRevision,
      row.targetRevision,
      crypto.randomUUID(),
      row.proposedById,
      row.reversedFromId,
    ],
    'run',
  )
  return id
}

/** A change of a relation: a review decision, or an edit that puts it up for review again. */
export type RelationChange =
  | { kind: 'review'; status: 'approved' | 'rejected'; reviewerId: string }
  | {
      kind: 'edit'
      relationType: RelationType
      evidenceMd: string
      sourceRevision: number
      targetRevision: number
      editorId: string
    }

/**
 * The conditional UPDATE every change goes through: it applies only while the row still has `version`,
 * and writes a new one. Returns false when another caller changed the row first.
 */
export async function updateIfVersion(
  tx: EntityManager,
  id: string,
  version: string,
  change: RelationChange,
): Promise<boolean> {
  const [set, params] =
    change.kind === 'review'
      ? ['status = ?, reviewed_by_id = ?, reviewed_at = now()', [change.status, change.reviewerId]]
      : [
          `status = 'proposed', relation_type = ?, evidence_md = ?, source_revision = ?, target_revision = ?,
           edited_by_id = ?, edited_at = now()`,
          [
            change.relationType,
            change.evidenceMd,
            change.sourceRevision,
            change.targetRevision,
            change.editorId,
          ],
        ]
  const rows = await tx.execute<{ id: string }[]>(
    `update relations set ${set}, version = ?, updated_at = clock_timestamp()
      where id = ? and version = ?::uuid returning id`,
    [...params, crypto.randomUUID(), id, version],
  )
  return rows.length > 0
}

/**
 * Writes relations as approved, by id (offline sync: the origin approved them), in one statement: a new row
 * or an existing one overwritten, at both terms' current revisions, with a fresh version (so a review that
 * started before loses its race, as with any change) and `reviewerId` as its reviewer.
 */
export async function upsertApprovedRelations(
  tx: EntityManager,
  rows: readonly {
    id: string
    sourceTermId: string
    targetTermId: string
    relationType: RelationType
    evidenceMd: string
  }[],
  reviewerId: string | null,
): Promise<void> {
  if (rows.length === 0) return
  await tx.execute(
    `insert into relations (id, source_term_id, target_term_id, relation_type, evidence_md, source_revision,
                            target_revision, status, version, reviewed_by_id, reviewed_at, created_at, updated_at)
     select x.id, x.source_term_id, x.target_term_id, x.relation_type, x.evidence_md, s.revision, t.revision,
            'approved', gen_random_uuid(), ?::uuid, now(), now(), now()
       from jsonb_to_recordset(?::jsonb) as x(id uuid, source_term_id uuid, target_term_id uuid,
            relation_type text, evidence_md text)
       join terms s on s.id = x.source_term_id
       join terms t on t.id = x.target_term_id
     on conflict (id) do update set source_term_id = excluded.source_term_id,
        target_term_id = excluded.target_term_id, relation_type = excluded.relation_type,
        evidence_md = excluded.evidence_md, source_revision = excluded.source_revision,
        target_revision = excluded.target_revision, status = 'approved', version = excluded.version,
        reviewed_by_id = excluded.reviewed_by_id, reviewed_at = excluded.reviewed_at,
        updated_at = clock_timestamp()`,
    [
      reviewerId,
      JSON.stringify(
        rows.map((r) => ({
          id: r.id,
          source_term_id: r.sourceTermId,
          target_term_id: r.targetTermId,
          relation_type: r.relationType,
          evidence_md: r.evidenceMd,
        })),
      ),
    ],
    'run',
  )
}

/** The relations holding each (source, target, type) key, as `source:target:type` → id. */
export async function selectRelationsByKey(
  tx: EntityManager,
  keys: readonly { sourceTermId: string; targetTermId: string; relationType: RelationType }[],
): Promise<Map<string, string>> {
  if (keys.length === 0) return new Map()
  const rows = await tx.execute<{ id: string; key: string }[]>(
    `select r.id, r.source_term_id || ':' || r.target_term_id || ':' || r.relation_type as key
       from relations r join jsonb_to_recordset(?::jsonb) as k(s uuid, t uuid, y text)
         on r.source_term_id = k.s and r.target_term_id = k.t and r.relation_type = k.y`,
    [JSON.stringify(keys.map((k) => ({ s: k.sourceTermId, t: k.targetTermId, y: k.relationType })))],
  )
  return new Map(rows.map((r) => [r.key, r.id]))
}

/** Removes relations (offline sync: the origin deleted them or no longer approves them). */
export async function deleteRelations(tx: EntityManager, ids: readonly string[]): Promise<void> {
  if (ids.length === 0) return
  await tx.execute('delete from relations where id = any(?::uuid[])', [uuidArray(ids)], 'run')
}
