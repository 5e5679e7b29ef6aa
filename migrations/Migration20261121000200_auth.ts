import { Migration } from '@mikro-orm/migrations'

/**
 * Sessions and API keys. Both store only a SHA-256 hash of their secret. `user_identities` links an account
 * to an external identity (SSO, later) without changing `users`.
 */
export class Migration20261121000200_auth extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create table sessions (
      id uuid primary key,
      token_hash text not null unique,
      user_id uuid not null references users (id) on delete cascade,
      created_at timestamptz not null default now(),
      expires_at timestamptz not null,
      ip text,
      user_agent text
    );`)
    this.addSql('create index sessions_user_id_idx on sessions (user_id);')
    this.addSql('create index sessions_expires_at_idx on sessions (expires_at);')
    this.addSql(`create table api_keys (
      id uuid primary key,
      user_id uuid not null references users (id) on delete cascade,
      name text not null,
      prefix text not null unique check (prefix ~ '^[0-9a-f]{8}$'),
      secret_hash text not null,
      scopes text[] not null,
      created_at timestamptz not null default now(),
      last_used_at timestamptz,
      revoked_at timestamptz,
      expires_at timestamptz
    );`)
    this.addSql('create index api_keys_user_id_idx on api_keys (user_id);')
    this.addSql(`create table user_identities (
      id uuid primary key,
      user_id uuid not null references users (id) on delete cascade,
      provider text not null,
      subject text not null,
      created_at timestamptz not null default now(),
      unique (provider, subject)
    );`)
  }

  override async down(): Promise<void> {
    this.addSql('drop table if exists user_identities;')
    this.addSql('drop table if exists api_keys;')
    this.addSql('drop table if exists sessions;')
  }
}
