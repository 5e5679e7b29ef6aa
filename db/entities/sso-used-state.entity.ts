import { Entity, PrimaryKey, Property } from '@mikro-orm/core'

/**
 * A redeemed SSO flow: the SHA-256 of its `state`, kept until the flow would have expired (decision 018).
 * Written only by the single insert in app/services/sso/store.server.ts; the hourly cleanup deletes old rows.
 */
@Entity({ tableName: 'sso_used_states' })
export class SsoUsedState {
  @PrimaryKey({ type: 'text' })
  stateHash!: string

  @Property({ type: 'datetime', columnType: 'timestamptz' })
  expiresAt!: Date
}
