import crypto from 'node:crypto'
import { ArrayType, Entity, ManyToOne, PrimaryKey, Property, type Opt } from '@mikro-orm/core'
import { User } from './user.entity.ts'
import type { Scope } from '#domain/identity.ts'

/** An API key `glk_<prefix>_<secret>`: the prefix finds the row, the SHA-256 of the secret proves it. */
@Entity({ tableName: 'api_keys' })
export class ApiKey {
  @PrimaryKey({ type: 'uuid' })
  id: Opt<string> = crypto.randomUUID()

  @ManyToOne(() => User, { deleteRule: 'cascade' })
  user!: User

  @Property({ type: 'text' })
  name!: string

  @Property({ type: 'text' })
  prefix!: string

  @Property({ type: 'text', hidden: true })
  secretHash!: string

  @Property({ type: ArrayType, columnType: 'text[]' })
  scopes!: Scope[]

  @Property({ type: 'datetime', columnType: 'timestamptz' })
  createdAt: Opt<Date> = new Date()

  @Property({ type: 'datetime', columnType: 'timestamptz', nullable: true })
  lastUsedAt: Date | null = null

  @Property({ type: 'datetime', columnType: 'timestamptz', nullable: true })
  revokedAt: Date | null = null

  @Property({ type: 'datetime', columnType: 'timestamptz', nullable: true })
  expiresAt: Date | null = null
}
