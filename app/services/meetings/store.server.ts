import type { z } from 'zod'
import type { MeetingListItemSchema, MeetingSchema } from '#app/schemas/meetings.ts'
import type { EntityManager } from '@mikro-orm/postgresql'
import {
  containsPattern,
  iso,
  isoOrNull,
  pageTotal,
  windowTotal,
  personRef,
  textArray,
  where,
  type PersonRef,
} from '#db/sql.ts'
import type { MeetingStatus } from '#domain/content.ts'

/**
 * The data access of meeting records: every SQL statement on `meetings` and the row mapper of its DTOs.
 * The rules (read-only text, who archives, search side effects) are in meetings.server.ts.
 */

export type PersonDto = PersonRef

/** What a meeting's list item and full record share. */
type MeetingFields = Omit<MeetingDto, 'content'>

/** The `MeetingSchema` of the API, inferred: the answer and its documentation cannot differ. */
export type MeetingDto = z.output<typeof MeetingSchema>

/** The `MeetingListItemSchema` of the API, inferred: the answer and its documentation cannot differ. */
export type MeetingListItemDto = z.output<typeof MeetingListItemSchema>

interface MeetingRow {
  id: string
  title: string
  meeting_date: Date | string
  source: string | null
  team: string | null
  domain: string[]
  status: MeetingStatus
  revision: number
  content_length: number
  created_by_id: string | null
  created_by_name: string | null
  created_at: Date | string
  archived_at: Date | string | null
  archived_by_id: string | null
  archived_by_name: string | null
  content?: string
  excerpt?: string
}

/** A list item shows the first 200 characters of the text. */
const EXCERPT = 200

const SELECT = (body: 'content' | 'excerpt', extra = '') => `
  select m.id, m.title, m.meeting_date, m.source, m.team, m.domain, m.status, m.revision,
         char_length(m.content) as content_length,
         ${body === 'content' ? 'm.content' : `left(m.content, ${EXCERPT}) as excerpt`},
         m.created_by_id, cu.name as created_by_name, m.created_at, m.archived_at,
         m.archived_by_id, au.name as archived_by_name${extra}
    from meetings m
    left join users cu on cu.id = m.created_by_id
    left join users au on au.id = m.archived_by_id`

function fields(row: MeetingRow): MeetingFields {
  return {
    id: row.id,
    title: row.title,
    meetingDate: iso(row.meeting_date),
    source: row.source,
    team: row.team,
    domain: row.domain ?? [],
    status: row.status,
    revision: row.revision,
    contentLength: Number(row.content_length),
    createdBy: personRef(row.created_by_id, row.created_by_name),
    createdAt: iso(row.created_at),
    archivedAt: isoOrNull(row.archived_at),
    archivedBy: personRef(row.archived_by_id, row.archived_by_name),
  }
}

/** One record with its text, or undefined. `id` must be a UUID (the service checks). */
export async function selectMeeting(manager: EntityManager, id: string): Promise<MeetingDto | undefined> {
  const rows = await manager.execute<MeetingRow[]>(`${SELECT('content')} where m.id = ?`, [id])
  const row = rows[0]
  return row && { ...fields(row), content: row.content ?? '' }
}

export async function insertMeeting(
  tx: EntityManager,
  id: string,
  record: {
    title: string
    meetingDate: Date
    source: string | null
    team: string | null
    domain: string[]
    content: string
  },
  actorId: string,
): Promise<void> {
  await tx.execute(
    `insert into meetings (id, title, meeting_date, source, team, domain, content, status, revision,
                           created_by_id, created_at, updated_at)
     values (?, ?, ?, ?, ?, ?::text[], ?, 'active', 1, ?, now(), now())`,
    [
      id,
      record.title,
      record.meetingDate.toISOString(),
      record.source,
      record.team,
      textArray(record.domain),
      record.content,
      actorId,
    ],
    'run',
  )
}

/** Marks an active record archived (an archived one is left as it is). */
export async function markArchived(tx: EntityManager, id: string, actorId: string): Promise<void> {
  await tx.execute(
    `update meetings set status = 'archived', archived_at = now(), archived_by_id = ?, updated_at = now()
      where id = ? and status = 'active'`,
    [actorId, id],
    'run',
  )
}

export interface MeetingPageQuery {
  status: MeetingStatus
  q?: string
  team?: string
  domains: string[]
  from?: Date
  to?: Date
  limit: number
  offset: number
}

/** A page of list items, latest meeting first, and the total. `from`/`to` are both inclusive. */
export async function selectMeetingPage(
  manager: EntityManager,
  query: MeetingPageQuery,
): Promise<{ items: MeetingListItemDto[]; total: number }> {
  const pattern = query.q && containsPattern(query.q)
  const filtered = where(
    ['m.status = ?', query.status],
    pattern && ['(m.title ilike ? or m.content ilike ?)', pattern, pattern],
    query.team && ['m.team = ?', query.team],
    query.domains.length > 0 && ['m.domain && ?::text[]', textArray(query.domains)],
    query.from && ['m.meeting_date >= ?', query.from.toISOString()],
    query.to && ['m.meeting_date <= ?', query.to.toISOString()],
  )
  const rows = await manager.execute<(MeetingRow & { total?: string })[]>(
    `${SELECT('excerpt', windowTotal(pattern))} ${filtered.sql}
      order by m.meeting_date desc, m.id limit ? offset ?`,
    [...filtered.params, query.limit, query.offset],
  )
  const total = await pageTotal(
    { rows, offset: query.offset, limit: query.limit },
    {
      manager,
      from: `meetings m ${filtered.sql}`,
      params: filtered.params,
    },
  )
  return { items: rows.map((row) => ({ ...fields(row), excerpt: row.excerpt ?? '' })), total }
}
