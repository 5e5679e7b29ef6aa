import type { z } from 'zod'
import type { CandidateSchema } from '#app/schemas/candidates.ts'
import type { EntityManager } from '@mikro-orm/postgresql'
import { containsPattern, iso, pageTotal, parseJson, where, windowTotal } from '#db/sql.ts'
import type { CandidateStatus } from '#domain/content.ts'

/**
 * The data access of term candidates: every SQL statement on `term_candidates` and the row mapper of its
 * DTO. What counts as a candidate, and when one is gathered, is decided in candidates.server.ts.
 */

export type CandidateSource = 'validate' | 'import'

/** The `CandidateSchema` of the API, inferred: the answer and its documentation cannot differ. */
export type CandidateDto = z.output<typeof CandidateSchema>

interface CandidateRow {
  id: string
  text: string
  status: CandidateStatus
  count: number
  sightings: CandidateDto['sightings'] | string
  first_seen_at: Date | string
  last_seen_at: Date | string
  promoted_term_id: string | null
}

function toDto(r: CandidateRow): CandidateDto {
  return {
    id: r.id,
    text: r.text,
    status: r.status,
    count: r.count,
    sightings: parseJson(r.sightings),
    firstSeenAt: iso(r.first_seen_at),
    lastSeenAt: iso(r.last_seen_at),
    promotedTermId: r.promoted_term_id,
  }
}

const COLUMNS =
  'c.id, c.text, c.status, c.count, c.sightings, c.first_seen_at, c.last_seen_at, c.promoted_term_id'

/** How many sightings a candidate keeps (the newest). */
const KEPT_SIGHTINGS = 5

/**
 * Records candidates seen once more: a new one is `open` with its first sighting; an open one adds its count
 * and keeps its newest sightings. Dismissed and promoted candidates are left as they are (never gathered
 * again).
 */
export async function upsertSightings(
  manager: EntityManager,
  rows: readonly {
    id: string
    text: string
    normalized: string
    count: number
    sighting: CandidateDto['sightings'][number]
  }[],
): Promise<void> {
  await manager.execute(
    `insert into term_candidates (id, text, normalized, status, count, sightings, first_seen_at, last_seen_at)
     select x.id, x.text, x.normalized, 'open', x.count, jsonb_build_array(x.sighting), now(), now()
       from jsonb_to_recordset(?::jsonb) as x(id uuid, text text, normalized text, count integer, sighting jsonb)
     on conflict (normalized) do update set
       count = term_candidates.count + excluded.count,
       last_seen_at = now(),
       sightings = (select coalesce(jsonb_agg(s.e order by s.o), '[]'::jsonb)
                      from (select a.e, a.o from jsonb_array_elements(excluded.sightings || term_candidates.sightings)
                              with ordinality as a(e, o) order by a.o limit ${KEPT_SIGHTINGS}) s)
     where term_candidates.status = 'open'`,
    [JSON.stringify(rows)],
    'run',
  )
}

/**
 * A page of candidates, most frequent first, and the total. `hideKnown` leaves out candidates that meanwhile
 * became a name or notation of a live term; `folded` matches a substring of the folded text.
 */
export async function selectCandidatePage(
  manager: EntityManager,
  query: { status: CandidateStatus; hideKnown: boolean; folded: string; limit: number; offset: number },
): Promise<{ items: CandidateDto[]; total: number }> {
  const filtered = where(
    ['c.status = ?', query.status],
    query.hideKnown && [
      `not exists (select 1 from term_notations n join terms t on t.id = n.term_id
                    where n.normalized = c.normalized and t.deleted_at is null and t.status <> 'merged')`,
    ],
    query.folded && ['c.normalized like ?', containsPattern(query.folded)],
  )
  const rows = await manager.execute<(CandidateRow & { total?: string })[]>(
    `select ${COLUMNS}${windowTotal(query.folded)} from term_candidates c ${filtered.sql}
      order by c.count desc, c.last_seen_at desc, c.id limit ? offset ?`,
    [...filtered.params, query.limit, query.offset],
  )
  const total = await pageTotal(
    { rows, offset: query.offset, limit: query.limit },
    {
      manager,
      from: `term_candidates c ${filtered.sql}`,
      params: filtered.params,
    },
  )
  return { items: rows.map(toDto), total }
}

export async function selectCandidate(
  manager: EntityManager,
  id: string,
  lock: boolean,
): Promise<CandidateDto | undefined> {
  const rows = await manager.execute<CandidateRow[]>(
    `select ${COLUMNS} from term_candidates c where c.id = ?${lock ? ' for update' : ''}`,
    [id],
  )
  return rows[0] && toDto(rows[0])
}

/** Records a decision: dismissed, or promoted to the term `termId`. */
export async function markDecided(
  tx: EntityManager,
  id: string,
  decision:
    { status: 'dismissed'; actorId: string } | { status: 'promoted'; actorId: string; termId: string },
): Promise<void> {
  await tx.execute(
    `update term_candidates set status = ?, promoted_term_id = ?, decided_by_id = ? where id = ?`,
    [decision.status, decision.status === 'promoted' ? decision.termId : null, decision.actorId, id],
  )
}
