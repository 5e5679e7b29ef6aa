import crypto from 'node:crypto'
import { Entity, ManyToOne, PrimaryKey, Property, type Opt } from '@mikro-orm/core'
import { User } from './user.entity.ts'

/** A signed-in browser. Only the SHA-256 of the cookie token is stored. */
@Entity({ tableName: 'sessions' })
export class Session {
  @PrimaryKey({ type: 'uuid' })
  id: Opt<string> = crypto.randomUUID()

  @Property({ type: 'text', hidden: true })
  tokenHash!: string

  @ManyToOne(() => User, { deleteRule: 'cascade' })
  user!: User

  @Property({ type: 'datetime', columnType: 'timestamptz' })
  createdAt: Opt<Date> = new Date()

  @Property({ type: 'datetime', columnType: 'timestamptz' })
  expiresAt!: Date

  @Property({ type: 'text', nullable: true })
  ip: string | null = null

  @Property({ type: 'text', nullable: true })
  userAgent: string | null = null
}
