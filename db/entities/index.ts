import { AppSetting } from './app-setting.entity.ts'
import { ApiKey } from './api-key.entity.ts'
import { AuditLog } from './audit-log.entity.ts'
import { RateLimitBucket } from './rate-limit-bucket.entity.ts'
import { Session } from './session.entity.ts'
import { User } from './user.entity.ts'
import { Attachment } from './attachment.entity.ts'
import { BusinessCategory, Domain } from './classification.entity.ts'
import { Deletion } from './deletion.entity.ts'
import { ImportJob } from './import-job.entity.ts'
import { RagIndexQueue } from './index-queue.entity.ts'
import { TermCandidate } from './term-candidate.entity.ts'
import { Meeting } from './meeting.entity.ts'
import { Relation } from './relation.entity.ts'
import { WikiPage, WikiPageRevision, WikiPageTerm } from './wiki-page.entity.ts'
import { Term, TermCategory, TermDomain, TermNotation, TermOldSlug, TermRevision } from './term.entity.ts'

export const GLOSSARY_ENTITIES = [
  Term,
  TermRevision,
  TermNotation,
  TermOldSlug,
  TermDomain,
  TermCategory,
  Domain,
  BusinessCategory,
  RagIndexQueue,
  Deletion,
  Attachment,
  ImportJob,
  TermCandidate,
]

/** Every entity, listed explicitly (no folder discovery, so the bundled server build sees the same list). */
export const CONTENT_ENTITIES = [Relation, WikiPage, WikiPageRevision, WikiPageTerm, Meeting]

export const ENTITIES = [
  ...GLOSSARY_ENTITIES,
  ...CONTENT_ENTITIES,
  AppSetting,
  User,
  Session,
  ApiKey,
  AuditLog,
  RateLimitBucket,
]
