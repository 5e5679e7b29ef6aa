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

/**
 * Entities the code reads and writes through the EntityManager (`em.find`, `em.create`, `nativeUpdate`):
 * accounts, sessions, API keys, the audit log and, in tests, settings.
 */
export const MANAGED_ENTITIES = [User, Session, ApiKey, AuditLog, AppSetting]

/**
 * Schema-only entities: MikroORM's metadata of the tables that raw SQL owns (decision 006: set-based writes,
 * explicit lock order). No service loads them; every statement on these tables is in its area's data-access
 * module (`app/services/<area>/store.server.ts`). They are kept as the typed description of the schema next
 * to the hand-written migrations, and so that a future `em`-based read of one of these tables needs no new
 * metadata. A column added by a migration is added here too.
 */
export const SCHEMA_ONLY_ENTITIES = [
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
  Relation,
  WikiPage,
  WikiPageRevision,
  WikiPageTerm,
  Meeting,
  RateLimitBucket,
]

/** Every entity, listed explicitly (no folder discovery, so the bundled server build sees the same list). */
export const ENTITIES = [...MANAGED_ENTITIES, ...SCHEMA_ONLY_ENTITIES]
