import { Entity, Property, type Opt } from '@mikro-orm/core'
import { BaseEntity } from './base.entity.ts'
import type { AuthType, Role } from '#domain/identity.ts'

/** `password` for ID/password accounts, `sso` for accounts created by an external identity, `agent` for API-only. */

/**
 * An account. The email is stored lowercase and unique case-insensitively (index `users_email_lower_unique`).
 * External identities (SSO) link to an account through their own table, so one account can gain an identity
 * later without changing this one.
 */
@Entity({ tableName: 'users' })
export class User extends BaseEntity {
  @Property({ type: 'text' })
  email!: string

  @Property({ type: 'text' })
  name!: string

  @Property({ type: 'text' })
  role: Opt<Role> = 'viewer'

  @Property({ type: 'text' })
  authType: Opt<AuthType> = 'password'

  /** argon2id hash; null for SSO and agent accounts. Never serialized. */
  @Property({ type: 'text', nullable: true, hidden: true, lazy: true })
  passwordHash: string | null = null

  /**
   * When an admin deactivated the account; null while it is active. A deactivated account cannot sign in and
   * its sessions, keys and proxy identity are refused by the auth gate (docs/decisions/026-deactivating-users.md).
   */
  @Property({ type: 'datetime', columnType: 'timestamptz', nullable: true })
  deactivatedAt: Date | null = null
}
