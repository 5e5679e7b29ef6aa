/**
 * The states and kinds of relations, wiki pages, meetings, term candidates, import jobs and index-queue rows,
 * declared once (no imports; entities, zod schemas, services and pages import them from here).
 */

export const RELATION_TYPES = [
  'related_to',
  'is_a',
  'part_of',
  'used_in',
  'prerequisite_of',
  'replaces',
] as const
export type RelationType = (typeof RELATION_TYPES)[number]

export const RELATION_STATUSES = ['proposed', 'approved', 'rejected'] as const
export type RelationStatus = (typeof RELATION_STATUSES)[number]

export const WIKI_STATUSES = ['draft', 'published', 'archived'] as const
export type WikiStatus = (typeof WIKI_STATUSES)[number]

export const MEETING_STATUSES = ['active', 'archived'] as const
export type MeetingStatus = (typeof MEETING_STATUSES)[number]

export const CANDIDATE_STATUSES = ['open', 'dismissed', 'promoted'] as const
export type CandidateStatus = (typeof CANDIDATE_STATUSES)[number]

export const IMPORT_JOB_STATUSES = ['running', 'succeeded', 'failed'] as const
export type ImportJobStatus = (typeof IMPORT_JOB_STATUSES)[number]

/** The spec's index queue states: `queued → processing → ready | failed`. */
export const INDEX_QUEUE_STATUSES = ['queued', 'processing', 'ready', 'failed'] as const
export type IndexQueueStatus = (typeof INDEX_QUEUE_STATUSES)[number]

/** What the worker does with a queued source: index it at the recorded revision, or remove its chunks. */
export const INDEX_QUEUE_ACTIONS = ['index', 'remove'] as const
export type IndexQueueAction = (typeof INDEX_QUEUE_ACTIONS)[number]
