import crypto from 'node:crypto'
import type { EntityManager } from '@mikro-orm/postgresql'
import { AppError } from '#app/lib/errors.server.ts'
import type { CreateMeetingInput, ListMeetingsQuery } from '#app/schemas/meetings.ts'
import { enqueueIndex } from '#app/services/index-queue/enqueue.server.ts'
import { removeFromSearch } from '#app/services/index-queue/remove.server.ts'
import { em } from '#db/orm.ts'
import { isUuid } from '#domain/ids.ts'
import type { MeetingStatus } from '#domain/content.ts'

/**
 * Legacy meeting records (spec: kept for older integrations; docs/decisions/009-wiki-and-meetings.md).
 * A record is the original text of a past discussion, stored exactly as sent and read-only afterwards: the
 * only change is archiving by an admin. A new (active) record is queued for its own search index in the
 * same transaction; archiving takes it out of search.
 */

export interface PersonDto {
  id: string
  name: string
}

interface MeetingFields {
  id: string
  title: string
  meetingDate: string
  source: string | null
  team: string | null
  domain: string[]
  status: MeetingStatus
  revision: number
  contentLength: number
  createdBy: PersonDto | null
  createdAt: string
  archivedAt: string | null
  archivedBy: PersonDto | null
}

export interface MeetingDto extends MeetingFields {
  content: string
}

export interface MeetingListItemDto extends MeetingFields {
  excerpt: string
}

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

const EXCERPT = 200

const SELECT = (body: 'content' | 'excerpt') => `
  select m.id, m.title, m.meeting_date, m.source, m.team, m.domain, m.status, m.revision,
         char_length(m.content) as content_length,
         ${body === 'content' ? 'm.content' : `left(m.content, ${EXCERPT}) as excerpt`},
         m.created_by_id, cu.name as created_by_name, m.created_at, m.archived_at,
         m.archived_by_id, au.name as archived_by_name
    from meetings m
    left join users cu on cu.id = m.created_by_id
    left join users au on au.id = m.archived_by_id`

function iso(value: Date | string | null): string | null {
  if (value === null) return null
  return (value instanceof Date ? value : new Date(value)).toISOString()
}

function fields(row: MeetingRow): MeetingFields {
  return {
    id: row.id,
    title: row.title,
    meetingDate: iso(row.meeting_date)!,
    source: row.source,
    team: row.team,
    domain: row.domain ?? [],
    status: row.status,
    revision: row.revision,
    contentLength: Number(row.content_length),
    createdBy: row.created_by_id ? { id: row.created_by_id, name: row.created_by_name ?? '' } : null,
    createdAt: iso(row.created_at)!,
    archivedAt: iso(row.archived_at),
    archivedBy: row.archived_by_id ? { id: row.archived_by_id, name: row.archived_by_name ?? '' } : null,
  }
}

async function loadMeeting(manager: EntityManager, id: string): Promise<MeetingDto> {
  if (!isUuid(id)) throw new AppError('not_found', 'No such meeting record.')
  const rows = await manager.execute<MeetingRow[]>(`${SELECT('content')} where m.id = ?`, [id])
  const row = rows[0]
  if (!row) throw new AppError('not_found', `No meeting record ${id}.`)
  return { ...fields(row), content: row.content ?? '' }
}

function textArray(values: readonly string[]): string {
  return `{${values.map((v) => `"${v.replace(/["\\]/g, (c) => `\\${c}`)}"`).join(',')}}`
}

/** Stores a new, active record at revision 1 and queues it for search in the same transaction. */
export async function createMeeting(options: {
  input: CreateMeetingInput
  actorId: string
}): Promise<MeetingDto> {
  const { input } = options
  return em().transactional(async (tx) => {
    const id = crypto.randomUUID()
    await tx.execute(
      `insert into meetings (id, title, meeting_date, source, team, domain, content, status, revision,
                             created_by_id, created_at, updated_at)
       values (?, ?, ?, ?, ?, ?::text[], ?, 'active', 1, ?, now(), now())`,
      [
        id,
        input.title,
        input.meetingDate.toISOString(),
        input.source,
        input.team,
        textArray(input.domain),
        input.content,
        options.actorId,
      ],
      'run',
    )
    await enqueueIndex(tx, { sourceType: 'meeting', sourceId: id, revision: 1 })
    return loadMeeting(tx, id)
  })
}

/** One record with its original text (archived ones too: they are kept, only hidden from lists and search). */
export async function getMeeting(options: { id: string }): Promise<MeetingDto> {
  return loadMeeting(em(), options.id)
}

function likeEscape(s: string): string {
  return s.replace(/[\\%_]/g, (c) => `\\${c}`)
}

/**
 * Lists records, latest meeting first: active ones by default, archived ones with `status=archived`.
 * `q` matches the title or text; `team` is exact; `domain` matches any; `from`/`to` bound the meeting date
 * (both inclusive).
 */
export async function listMeetings(
  query: ListMeetingsQuery,
): Promise<{ items: MeetingListItemDto[]; total: number; page: number; pageSize: number }> {
  const manager = em()
  const where = ['m.status = ?']
  const params: unknown[] = [query.status]
  if (query.q) {
    const pattern = `%${likeEscape(query.q)}%`
    where.push('(m.title ilike ? or m.content ilike ?)')
    params.push(pattern, pattern)
  }
  if (query.team) {
    where.push('m.team = ?')
    params.push(query.team)
  }
  if (query.domain.length) {
    where.push('m.domain && ?::text[]')
    params.push(textArray(query.domain))
  }
  if (query.from) {
    where.push('m.meeting_date >= ?')
    params.push(query.from.toISOString())
  }
  if (query.to) {
    where.push('m.meeting_date <= ?')
    params.push(query.to.toISOString())
  }
  const offset = (query.page - 1) * query.pageSize
  const rows = await manager.execute<(MeetingRow & { total: string | number })[]>(
    `select x.*, count(*) over () as total from (${SELECT('excerpt')} where ${where.join(' and ')}) x
      order by x.meeting_date desc, x.id limit ? offset ?`,
    [...params, query.pageSize, offset],
  )
  let total = rows.length ? Number(rows[0]!.total) : 0
  if (rows.length === 0 && offset > 0) {
    const count = await manager.execute<{ n: string | number }[]>(
      `select count(*) as n from meetings m where ${where.join(' and ')}`,
      params,
    )
    total = Number(count[0]?.n ?? 0)
  }
  const items = rows.map((row) => ({ ...fields(row), excerpt: row.excerpt ?? '' }))
  return { items, total, page: query.page, pageSize: query.pageSize }
}

/**
 * Archives a record (admins only, enforced at the endpoint): hidden from the default list and removed from
 * search; the text is kept. Archiving an archived record changes nothing.
 */
export async function archiveMeeting(options: { id: string; actorId: string }): Promise<MeetingDto> {
  return em().transactional(async (tx) => {
    const current = await loadMeeting(tx, options.id)
    if (current.status === 'archived') return current
    await tx.execute(
      `update meetings set status = 'archived', archived_at = now(), archived_by_id = ?, updated_at = now()
        where id = ? and status = 'active'`,
      [options.actorId, options.id],
      'run',
    )
    await removeFromSearch(tx, { sourceType: 'meeting', sourceId: options.id })
    return loadMeeting(tx, options.id)
  })
}
