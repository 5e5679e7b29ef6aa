import crypto from 'node:crypto'
import type { EntityManager } from '@mikro-orm/postgresql'
import { AppError } from '#app/lib/errors.server.ts'
import type { CreateMeetingInput, ListMeetingsQuery } from '#app/schemas/meetings.ts'
import { enqueueIndex } from '#app/services/index-queue/enqueue.server.ts'
import { leaveSearch } from '#app/services/index-queue/leave-search.server.ts'
import { em } from '#db/orm.ts'
import { isUuid } from '#domain/ids.ts'
import {
  insertMeeting,
  markArchived,
  selectMeeting,
  selectMeetingPage,
  type MeetingDto,
  type MeetingListItemDto,
  type PersonDto,
} from './store.server.ts'

export type { MeetingDto, MeetingListItemDto, PersonDto }

/**
 * Legacy meeting records (spec: kept for older integrations; docs/decisions/009-wiki-and-meetings.md).
 * A record is the original text of a past discussion, stored exactly as sent and read-only afterwards: the
 * only change is archiving by an admin. A new (active) record is queued for its own search index in the
 * same transaction; archiving takes it out of search.
 */

async function loadMeeting(manager: EntityManager, id: string): Promise<MeetingDto> {
  const found = isUuid(id) ? await selectMeeting(manager, id) : undefined
  if (!found) throw new AppError('not_found', `No meeting record ${id}.`)
  return found
}

/** Stores a new, active record at revision 1 and queues it for search in the same transaction. */
export async function createMeeting(options: {
  input: CreateMeetingInput
  actorId: string
}): Promise<MeetingDto> {
  return em().transactional(async (tx) => {
    const id = crypto.randomUUID()
    await insertMeeting(tx, id, options.input, options.actorId)
    await enqueueIndex(tx, { sourceType: 'meeting', sourceId: id, revision: 1 })
    return loadMeeting(tx, id)
  })
}

/** One record with its original text (archived ones too: they are kept, only hidden from lists and search). */
export async function getMeeting(options: { id: string }): Promise<MeetingDto> {
  return loadMeeting(em(), options.id)
}

/**
 * Lists records, latest meeting first: active ones by default, archived ones with `status=archived`.
 * `q` matches the title or text; `team` is exact; `domain` matches any; `from`/`to` bound the meeting date
 * (both inclusive).
 */
export async function listMeetings(
  query: ListMeetingsQuery,
): Promise<{ items: MeetingListItemDto[]; total: number; page: number; pageSize: number }> {
  const { items, total } = await selectMeetingPage(em(), {
    status: query.status,
    q: query.q,
    team: query.team,
    domains: query.domain,
    from: query.from,
    to: query.to,
    limit: query.pageSize,
    offset: (query.page - 1) * query.pageSize,
  })
  return { items, total, page: query.page, pageSize: query.pageSize }
}

/**
 * Archives a record (admins only, enforced at the endpoint): hidden from the default list and removed from
 * search (`leaveSearch`); the text is kept. Archiving an archived record changes nothing.
 */
export async function archiveMeeting(options: { id: string; actorId: string }): Promise<MeetingDto> {
  return em().transactional(async (tx) => {
    const current = await loadMeeting(tx, options.id)
    if (current.status === 'archived') return current
    await markArchived(tx, options.id, options.actorId)
    await leaveSearch(tx, { kind: 'meeting', id: options.id, revision: current.revision })
    return loadMeeting(tx, options.id)
  })
}
