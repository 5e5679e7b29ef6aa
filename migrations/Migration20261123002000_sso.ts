import { Migration } from '@mikro-orm/migrations'

/**
 * Single sign-on (docs/decisions/018-single-sign-on.md): the one row of SSO settings (the client secret
 * encrypted in its own column, the server-filled fields beside it) and the SHA-256 of identities whose account
 * was deleted (spec accounts rule 5), so that proxy headers alone do not recreate the account.
 */
export class Migration20261123002000_sso extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create table sso_config (
      id smallint primary key default 1 check (id = 1),
      settings jsonb not null default '{}'::jsonb,
      client_secret_encrypted text,
      last_claim_keys text[] not null default '{}',
      last_login_at timestamptz,
      updated_by text,
      updated_at timestamptz not null default now()
    );`)
    this.addSql(`create table sso_identity_blocks (
      identity_hash text primary key check (identity_hash ~ '^[0-9a-f]{64}$'),
      created_at timestamptz not null default now()
    );`)
  }

  override async down(): Promise<void> {
    this.addSql('drop table if exists sso_identity_blocks;')
    this.addSql('drop table if exists sso_config;')
  }
}
