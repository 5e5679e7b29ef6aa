import { endpoint } from '#app/api/endpoint.server.ts'
import {
  CreateMeetingSchema,
  ListMeetingsQuerySchema,
  MeetingIdParamsSchema,
  MeetingListSchema,
  MeetingSchema,
} from '#app/schemas/meetings.ts'
import {
  archiveMeeting,
  createMeeting,
  getMeeting,
  listMeetings,
} from '#app/services/meetings/meetings.server.ts'

const read = { kind: 'scoped', scope: 'read' } as const
const write = { kind: 'scoped', scope: 'write', minRole: 'editor' } as const
/** Room for 200,000 characters of content even when every one is JSON-escaped. */
const MAX_BODY = 4 * 1024 * 1024

/** Legacy meeting records, kept for older integrations (docs/decisions/009-wiki-and-meetings.md). */
export const MEETING_ENDPOINTS = [
  endpoint({
    method: 'POST',
    path: '/meetings',
    operationId: 'createMeeting',
    summary: 'Store a meeting record (legacy)',
    description:
      'Required: `title`, `meetingDate` (ISO 8601), `content` (the original text, at most 200,000 characters). Optional: `source`, `team`, `domain`. The record is read-only afterwards (only an admin may archive it) and is queued for meeting search.',
    tag: 'meetings',
    access: write,
    body: CreateMeetingSchema,
    maxBodyBytes: MAX_BODY,
    successStatus: 201,
    response: MeetingSchema,
    handler: async ({ body, actor }) => createMeeting({ input: body, actorId: actor!.user.id }),
  }),
  endpoint({
    method: 'GET',
    path: '/meetings',
    operationId: 'listMeetings',
    summary: 'List meeting records (active by default; `status=archived` for archived)',
    description:
      'Latest meeting first. `from`/`to` bound the meeting date (inclusive). Items carry an excerpt, not the text.',
    tag: 'meetings',
    access: read,
    query: ListMeetingsQuerySchema,
    response: MeetingListSchema,
    handler: async ({ query }) => listMeetings(query),
  }),
  endpoint({
    method: 'GET',
    path: '/meetings/{id}',
    operationId: 'getMeeting',
    summary: 'One meeting record with its original text',
    description: 'A record of past discussion, not current policy.',
    tag: 'meetings',
    access: read,
    params: MeetingIdParamsSchema,
    response: MeetingSchema,
    errors: ['not_found'],
    handler: async ({ params }) => getMeeting(params),
  }),
  endpoint({
    method: 'POST',
    path: '/meetings/{id}/archive',
    operationId: 'archiveMeeting',
    summary: 'Archive a meeting record (admin session only)',
    description: 'Hides it from the default list and removes it from search; the text is kept. Idempotent.',
    tag: 'meetings',
    access: { kind: 'session', minRole: 'admin' },
    params: MeetingIdParamsSchema,
    response: MeetingSchema,
    errors: ['not_found'],
    handler: async ({ params, actor }) => archiveMeeting({ id: params.id, actorId: actor!.user.id }),
  }),
]
