import crypto from 'node:crypto'
import { Entity, PrimaryKey, Property, type Opt } from '@mikro-orm/core'

/**
 * One audit record: who did what to which item, from where. `actorUserId` is a plain column (no foreign key),
 * so the record still names the actor after the account is deleted; `actorLabel` keeps its email then.
 * `details` never holds a password, token or secret (recordAudit strips such keys as a second line of defence).
 */
@Entity({ tableName: 'audit_log' })
export class AuditLog {
  @PrimaryKey({ type: 'uuid' })
  id: Opt<string> = crypto.randomUUID()

  @Property({ type: 'datetime', columnType: 'timestamptz' })
  at: Opt<Date> = new Date()

  @Property({ type: 'text' })
  action!: string

  @Property({ type: 'uuid', nullable: true })
  actorUserId: string | null = null

  @Property({ type: 'text', nullable: true })
  actorLabel: string | null = null

  @Property({ type: 'text', nullable: true })
  targetType: string | null = null

  @Property({ type: 'text', nullable: true })
  targetId: string | null = null

  @Property({ type: 'text', nullable: true })
  ip: string | null = null

  @Property({ type: 'text', nullable: true })
  userAgent: string | null = null

  @Property({ type: 'json' })
  details: Opt<Record<string, unknown>> = {}
}
