import { Migration } from '@mikro-orm/migrations'

/**
 * The AI (LLM) provider of the chat (issue 29): one row, like `rag_config`. `api_key` and each header's value in
 * `headers` (`[{ name, value }]`) are AES-256-GCM ciphertext (a cleared header value is `''`), never returned by
 * the API. `temperature` 0–2 and `max_tokens` 1–32,000 are the bounds of `LLM_LIMITS` (domain/rag.ts).
 */
export class Migration20261201002000_ai_provider extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create table ai_provider_config (
      id smallint primary key default 1 check (id = 1),
      provider text not null default 'alpha_compatible' check (provider in ('alpha_compatible')),
      base_url text not null default '' check (base_url = '' or base_url ~* '^https?://'),
      model text not null default '',
      api_key text,
      headers jsonb not null default '[]',
      temperature double precision not null default 0.2 check (temperature >= 0 and temperature <= 2),
      max_tokens integer not null default 1024 check (max_tokens between 1 and 32000),
      updated_by_id uuid references users (id) on delete set null,
      updated_at timestamptz not null default now()
    );`)
    this.addSql('insert into ai_provider_config (id) values (1);')
  }

  override async down(): Promise<void> {
    this.addSql('drop table if exists ai_provider_config;')
  }
}
