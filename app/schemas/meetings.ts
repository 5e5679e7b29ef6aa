import { z } from 'zod'
import { charLength } from './relations.ts'
import { DomainListSchema } from './wiki.ts'
import { MEETING_STATUSES } from '#domain/content.ts'

/**
 * Request and response shapes of the legacy meeting-record API (docs/decisions/009-wiki-and-meetings.md).
 * Required on create: `title`, `meetingDate`, `content`; `source`, `team` and `domain` are optional.
 */

export const MEETING_LIMITS = {
  title: 300,
  content: 200_000,
  source: 500,
  team: 200,
  pageSizeDefault: 20,
  pageSizeMax: 100,
} as const

const IsoDateTimeSchema = z.iso
  .datetime({ offset: true, local: false })
  .or(z.iso.date())
  .transform((v) => new Date(v))

const optionalText = (max: number) =>
  z
    .string()
    .trim()
    .max(max)
    .nullish()
    .transform((v) => (v ? v : null))

export const CreateMeetingSchema = z
  .object({
    title: z.string().trim().min(1, 'Give the record a title.').max(MEETING_LIMITS.title),
    meetingDate: IsoDateTimeSchema.meta({
      description: 'When the meeting took place (ISO 8601 date or date-time with offset).',
      example: '2024-03-05T10:00:00+09:00',
    }),
    source: optionalText(MEETING_LIMITS.source).meta({ description: 'Where the record came from.' }),
    team: optionalText(MEETING_LIMITS.team),
    domain: DomainListSchema.default([]),
    content: z
      .string()
      .max(MEETING_LIMITS.content * 2)
      .refine((s) => s.trim().length > 0, 'The record has no text.')
      .refine(
        (s) => charLength(s) <= MEETING_LIMITS.content,
        `The content may have at most ${MEETING_LIMITS.content.toLocaleString('en')} characters.`,
      )
      .meta({ description: 'The original text, at most 200,000 characters; stored exactly as sent.' }),
  })
  .strict()
export type CreateMeetingInput = z.output<typeof CreateMeetingSchema>

export const ListMeetingsQuerySchema = z.object({
  status: z
    .enum(MEETING_STATUSES)
    .default('active')
    .meta({ description: 'Active records by default; `archived` lists archived ones.' }),
  q: z.string().trim().max(200).optional().meta({ description: 'Text in the title or the content.' }),
  team: z.string().trim().max(MEETING_LIMITS.team).optional(),
  domain: z
    .union([z.string(), z.array(z.string())])
    .optional()
    .transform((v) => (v === undefined ? [] : Array.isArray(v) ? v : [v]))
    .meta({ description: 'Domain (repeat for any of several).' }),
  from: IsoDateTimeSchema.optional().meta({ description: 'Meetings on or after this time.' }),
  to: IsoDateTimeSchema.optional().meta({ description: 'Meetings on or before this time.' }),
  page: z.coerce.number().int().min(1).max(100_000).default(1),
  pageSize: z.coerce
    .number()
    .int()
    .min(1)
    .max(MEETING_LIMITS.pageSizeMax)
    .default(MEETING_LIMITS.pageSizeDefault),
})
export type ListMeetingsQuery = z.output<typeof ListMeetingsQuerySchema>

export const MeetingIdParamsSchema = z.object({ id: z.uuid() })

const PersonSchema = z.object({ id: z.string(), name: z.string() }).nullable()

const meetingFields = {
  id: z.string(),
  title: z.string(),
  meetingDate: z.string(),
  source: z.string().nullable(),
  team: z.string().nullable(),
  domain: z.array(z.string()),
  status: z.enum(MEETING_STATUSES),
  revision: z.number().int(),
  contentLength: z.number().int().meta({ description: 'Length of the original text in characters.' }),
  createdBy: PersonSchema,
  createdAt: z.string(),
  archivedAt: z.string().nullable(),
  archivedBy: PersonSchema,
}

export const MeetingListItemSchema = z.object({
  ...meetingFields,
  excerpt: z.string().meta({ description: 'The first 200 characters of the text.' }),
})
export const MeetingSchema = z.object({
  ...meetingFields,
  content: z.string().meta({ description: 'The original text, exactly as recorded.' }),
})
export const MeetingListSchema = z.object({
  items: z.array(MeetingListItemSchema),
  total: z.number().int(),
  page: z.number().int(),
  pageSize: z.number().int(),
})
