import type { EntityManager } from '@mikro-orm/postgresql'
import { countChanged, iso, parseJson } from '#db/sql.ts'

/**
 * The SQL of the chatbot's private history (`chat_conversations`, `chat_messages`; decision 029). Every
 * statement names the owner, so one user's rows never reach another's request. Rules are in chat.server.ts.
 */

export interface ConversationRow {
  id: string
  title: string
  createdAt: string
  updatedAt: string
}

export interface MessageRow {
  id: string
  role: 'user' | 'assistant'
  content: string
  createdAt: string
  citations: unknown[]
  searchMode: 'hybrid' | 'keyword' | null
  traceId: string | null
  failed: boolean
}

interface ConversationDbRow {
  id: string
  title: string
  created_at: Date | string
  updated_at: Date | string
}

const conversationOf = (r: ConversationDbRow): ConversationRow => ({
  id: r.id,
  title: r.title,
  createdAt: iso(r.created_at),
  updatedAt: iso(r.updated_at),
})

export async function insertConversation(
  manager: EntityManager,
  row: { id: string; userId: string; title: string },
): Promise<void> {
  await manager.execute(
    'insert into chat_conversations (id, user_id, title, created_at, updated_at) values (?, ?, ?, now(), now())',
    [row.id, row.userId, row.title],
    'run',
  )
}

/** The user's conversation, or undefined when there is none of that id for this user. */
export async function selectConversation(
  manager: EntityManager,
  userId: string,
  id: string,
): Promise<ConversationRow | undefined> {
  const [row] = await manager.execute<ConversationDbRow[]>(
    'select id, title, created_at, updated_at from chat_conversations where id = ? and user_id = ?',
    [id, userId],
  )
  return row && conversationOf(row)
}

/** The user's conversations, the one changed last first. */
export async function selectConversations(
  manager: EntityManager,
  userId: string,
  limit: number,
): Promise<ConversationRow[]> {
  const rows = await manager.execute<ConversationDbRow[]>(
    `select id, title, created_at, updated_at from chat_conversations where user_id = ?
      order by updated_at desc, id desc limit ?`,
    [userId, limit],
  )
  return rows.map(conversationOf)
}

/** Deletes the user's conversation (its messages cascade); answers whether there was one. */
export async function deleteConversationRow(
  manager: EntityManager,
  userId: string,
  id: string,
): Promise<boolean> {
  return (
    (await countChanged(manager, 'delete from chat_conversations where id = ? and user_id = ?', [
      id,
      userId,
    ])) > 0
  )
}

/** The account-deletion step: every conversation of the user (messages cascade); answers how many. */
export async function deleteConversationsOf(manager: EntityManager, userId: string): Promise<number> {
  return countChanged(manager, 'delete from chat_conversations where user_id = ?', [userId])
}

interface MessageDbRow {
  id: string
  role: 'user' | 'assistant'
  content: string
  created_at: Date | string
  citations: unknown
  search_mode: 'hybrid' | 'keyword' | null
  trace_id: string | null
  failed: boolean
}

const messageOf = (r: MessageDbRow): MessageRow => ({
  id: r.id,
  role: r.role,
  content: r.content,
  createdAt: iso(r.created_at),
  citations: parseJson<unknown[]>(r.citations) ?? [],
  searchMode: r.search_mode,
  traceId: r.trace_id,
  failed: r.failed,
})

const MESSAGE_COLUMNS = 'id, role, content, created_at, citations, search_mode, trace_id, failed'

/** The conversation's turns in order (the caller checked the owner). */
export async function selectMessages(manager: EntityManager, conversationId: string): Promise<MessageRow[]> {
  const rows = await manager.execute<MessageDbRow[]>(
    `select ${MESSAGE_COLUMNS} from chat_messages where conversation_id = ? order by position`,
    [conversationId],
  )
  return rows.map(messageOf)
}

/** The conversation's last `limit` turns, in order (the prompt's history). */
export async function selectRecentMessages(
  manager: EntityManager,
  conversationId: string,
  limit: number,
): Promise<MessageRow[]> {
  const rows = await manager.execute<MessageDbRow[]>(
    `select * from (select ${MESSAGE_COLUMNS}, position from chat_messages where conversation_id = ?
                     order by position desc limit ?) m order by position`,
    [conversationId, limit],
  )
  return rows.map(messageOf)
}

/**
 * Appends a turn at the conversation's next position and marks the conversation changed. The conversation row
 * is locked first, so two requests on one conversation append one after the other.
 */
export async function appendMessage(
  manager: EntityManager,
  message: {
    id: string
    conversationId: string
    userId: string
    role: 'user' | 'assistant'
    content: string
    citations: unknown[]
    searchMode: 'hybrid' | 'keyword' | null
    traceId: string | null
    failed: boolean
  },
): Promise<void> {
  await manager.transactional(async (tx) => {
    await tx.execute(
      'update chat_conversations set updated_at = now() where id = ?',
      [message.conversationId],
      'run',
    )
    await tx.execute(
      `insert into chat_messages (id, conversation_id, user_id, position, role, content, citations, search_mode,
                                  trace_id, failed, created_at)
       select ?, ?, ?, coalesce(max(position), 0) + 1, ?, ?, ?::jsonb, ?, ?, ?, clock_timestamp()
         from chat_messages where conversation_id = ?`,
      [
        message.id,
        message.conversationId,
        message.userId,
        message.role,
        message.content,
        JSON.stringify(message.citations),
        message.searchMode,
        message.traceId,
        message.failed,
        message.conversationId,
      ],
      'run',
    )
  })
}
