import { Migration } from '@mikro-orm/migrations'

/**
 * The chatbot's private history (issue 29, docs/decisions/029-chat.md): a user's conversations and their
 * messages. Both belong to the user (`on delete cascade`): deleting the account deletes its history. A
 * conversation's title is its first question, cut; a message is the user's question or the assistant's
 * answer with its citations (jsonb), the search mode and the trace id of its AI run rows, or an assistant turn
 * marked `failed` when the model could not answer. Prompts are never stored (nor in `ai_runs`).
 */
export class Migration20261201003000_chat extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create table chat_conversations (
      id uuid primary key,
      user_id uuid not null references users (id) on delete cascade,
      title text not null,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now()
    );`)
    this.addSql(
      'create index chat_conversations_user_idx on chat_conversations (user_id, updated_at desc, id);',
    )
    this.addSql(`create table chat_messages (
      id uuid primary key,
      conversation_id uuid not null references chat_conversations (id) on delete cascade,
      user_id uuid not null references users (id) on delete cascade,
      position integer not null check (position >= 1),
      role text not null check (role in ('user', 'assistant')),
      content text not null,
      citations jsonb not null default '[]'::jsonb,
      search_mode text check (search_mode in ('hybrid', 'keyword')),
      trace_id text,
      failed boolean not null default false,
      created_at timestamptz not null default now(),
      unique (conversation_id, position)
    );`)
    this.addSql('create index chat_messages_user_idx on chat_messages (user_id);')
  }

  override async down(): Promise<void> {
    this.addSql('drop table if exists chat_messages;')
    this.addSql('drop table if exists chat_conversations;')
  }
}
