import { Entity, ManyToOne, PrimaryKey, Property, type Opt } from '@mikro-orm/core'
import { User } from './user.entity.ts'

/**
 * Schema-only descriptions of the chatbot's private history (migration 20261201003000, decision 029). Raw SQL
 * owns them in `app/services/chat/store.server.ts`. Both cascade with their user: deleting an account deletes
 * its history.
 */

/** One conversation of one user; its title is the first question, cut. */
@Entity({ tableName: 'chat_conversations' })
export class ChatConversation {
  @PrimaryKey({ type: 'uuid' })
  id!: string

  @ManyToOne(() => User, { deleteRule: 'cascade' })
  user!: User

  @Property({ type: 'text' })
  title!: string

  @Property({ type: 'datetime', columnType: 'timestamptz' })
  createdAt: Opt<Date> = new Date()

  @Property({ type: 'datetime', columnType: 'timestamptz' })
  updatedAt: Opt<Date> = new Date()
}

/** One turn: the user's question, or the assistant's answer with its citations (or `failed`). */
@Entity({ tableName: 'chat_messages' })
export class ChatMessage {
  @PrimaryKey({ type: 'uuid' })
  id!: string

  @ManyToOne(() => ChatConversation, { deleteRule: 'cascade' })
  conversation!: ChatConversation

  @ManyToOne(() => User, { deleteRule: 'cascade' })
  user!: User

  /** 1, 2, … within the conversation: the order of the turns. */
  @Property({ type: 'integer' })
  position!: number

  @Property({ type: 'text' })
  role!: 'user' | 'assistant'

  @Property({ type: 'text' })
  content!: string

  @Property({ type: 'json', columnType: 'jsonb' })
  citations: Opt<unknown[]> = []

  @Property({ type: 'text', nullable: true })
  searchMode: 'hybrid' | 'keyword' | null = null

  @Property({ type: 'text', nullable: true })
  traceId: string | null = null

  @Property({ type: 'boolean' })
  failed: Opt<boolean> = false

  @Property({ type: 'datetime', columnType: 'timestamptz' })
  createdAt: Opt<Date> = new Date()
}
