import { Migration } from '@mikro-orm/migrations'

/**
 * Single-use SSO flows (issue 26, docs/decisions/018-single-sign-on.md "Round two"): the SHA-256 of each flow
 * `state` whose authorization code was redeemed, until the flow would have expired anyway. A replayed flow
 * cookie with a new code is refused by every web process sharing the database; the hourly cleanup deletes rows
 * past `expires_at`.
 */
export class Migration20261126001000_sso_used_states extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create table sso_used_states (
      state_hash text primary key check (state_hash ~ '^[0-9a-f]{64}$'),
      expires_at timestamptz not null
    );`)
    this.addSql('create index sso_used_states_expires_at_idx on sso_used_states (expires_at);')
  }

  override async down(): Promise<void> {
    this.addSql('drop table if exists sso_used_states;')
  }
}
