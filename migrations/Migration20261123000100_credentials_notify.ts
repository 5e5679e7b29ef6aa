import { Migration } from '@mikro-orm/migrations'

/**
 * A committed change to API keys or users sends `NOTIFY credentials_changed`, so a process that caches
 * verified keys (the embedded database, where it is the only writer) drops its cache at commit
 * (app/services/auth/key-cache.server.ts, docs/decisions/004-identity.md). `last_used_at` is left out: it
 * changes on use, not on what a key may do. Statement-level triggers: one notification per statement, and
 * PostgreSQL folds identical notifications of one transaction into one.
 */
export class Migration20261123000100_credentials_notify extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create function notify_credentials_changed() returns trigger language plpgsql as $$
begin
  perform pg_notify('credentials_changed', '');
  return null;
end $$;`)
    this.addSql(`create trigger api_keys_credentials_changed
  after insert or delete or update of user_id, prefix, secret_hash, scopes, expires_at, revoked_at on api_keys
  for each statement execute function notify_credentials_changed();`)
    this.addSql(`create trigger api_keys_credentials_truncated after truncate on api_keys
  for each statement execute function notify_credentials_changed();`)
    this.addSql(`create trigger users_credentials_changed after insert or update or delete on users
  for each statement execute function notify_credentials_changed();`)
    this.addSql(`create trigger users_credentials_truncated after truncate on users
  for each statement execute function notify_credentials_changed();`)
  }

  override async down(): Promise<void> {
    this.addSql('drop trigger if exists users_credentials_truncated on users;')
    this.addSql('drop trigger if exists users_credentials_changed on users;')
    this.addSql('drop trigger if exists api_keys_credentials_truncated on api_keys;')
    this.addSql('drop trigger if exists api_keys_credentials_changed on api_keys;')
    this.addSql('drop function if exists notify_credentials_changed();')
  }
}
