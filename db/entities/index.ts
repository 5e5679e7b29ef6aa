import { AppSetting } from './app-setting.entity.ts'
import { ApiKey } from './api-key.entity.ts'
import { AuditLog } from './audit-log.entity.ts'
import { RateLimitBucket } from './rate-limit-bucket.entity.ts'
import { Session } from './session.entity.ts'
import { SsoUsedState } from './sso-used-state.entity.ts'
import { User } from './user.entity.ts'
import { ChatConversation, ChatMessage } from './chat.entity.ts'
import { Attachment } from './attachment.entity.ts'
import { BusinessCategory, Domain } from './classification.entity.ts'
import { Deletion } from './deletion.entity.ts'
import { ImportJob } from './import-job.entity.ts'
import { IndexProviderPause, RagIndexQueue, RagReindexRun } from './index-queue.entity.ts'
import { AiRunLatencyRollup, AiRunRollup } from './ai-run-rollup.entity.ts'
import { AiRun, MeetingChunk, RagConfig, RagPendingChunk, TermChunk, WikiChunk } from './rag.entity.ts'
import { AiProviderConfig } from './ai-provider.entity.ts'
import { TermCandidate } from './term-candidate.entity.ts'
import { Meeting } from './meeting.entity.ts'
import { Relation } from './relation.entity.ts'
import { WikiPage, WikiPageRevision, WikiPageTerm } from './wiki-page.entity.ts'
import { Term, TermCategory, TermDomain, TermNotation, TermOldSlug, TermRevision } from './term.entity.ts'
import {
  SyncAppliedBundle,
  SyncExport,
  SyncExportManifestEntry,
  SyncItem,
  SyncOrigin,
} from './sync.entity.ts'

/**
 * The entities: MikroORM's metadata of every table, kept as the typed description of the schema next to the
 * hand-written migrations (a column added by a migration is added here too). They are schema-only: no
 * service loads, creates or flushes them. Every statement on these tables is raw SQL in its area's
 * data-access module (`app/services/<area>/store.server.ts`, decision 006: set-based writes, explicit lock
 * order, the same SQL on PGlite and PostgreSQL). Tests use them to read rows back for their assertions
 * (`em().findOne(ApiKey, …)`), and a future `em`-based read of a table needs no new metadata.
 *
 * Listed explicitly (no folder discovery), so the bundled server build sees the same list.
 */
export const ENTITIES = [
  User,
  Session,
  ApiKey,
  AuditLog,
  AppSetting,
  RateLimitBucket,
  SsoUsedState,
  Term,
  TermRevision,
  TermNotation,
  TermOldSlug,
  TermDomain,
  TermCategory,
  Domain,
  BusinessCategory,
  RagIndexQueue,
  IndexProviderPause,
  RagReindexRun,
  Deletion,
  Attachment,
  ImportJob,
  TermCandidate,
  Relation,
  WikiPage,
  WikiPageRevision,
  WikiPageTerm,
  Meeting,
  RagConfig,
  TermChunk,
  WikiChunk,
  MeetingChunk,
  RagPendingChunk,
  AiRun,
  AiProviderConfig,
  AiRunRollup,
  AiRunLatencyRollup,
  ChatConversation,
  ChatMessage,
  SyncExport,
  SyncExportManifestEntry,
  SyncOrigin,
  SyncAppliedBundle,
  SyncItem,
]
