import { Migration } from '@mikro-orm/migrations'

/**
 * Identity: the audit log and the shared rate-limit buckets.
 *
 * `audit_log.actor_user_id` has no foreign key on purpose: an audit trail must keep naming the account that
 * acted after that account is deleted (the `actor_label` keeps the email it had). Setup needs no table: it is
 * serialized with a transaction-scoped advisory lock (see app/services/auth/locks.server.ts).
 */
export class Migration20261121000300_identity extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create table audit_log (
      id uuid primary key,
      at timestamptz not null default now(),
      action text not null,
      actor_user_id uuid,
      actor_label text,
      target_type text,
      target_id text,
      ip text,
      user_agent text,
      details jsonb not null default '{}'::jsonb
    );`)
    this.addSql('create index audit_log_at_idx on audit_log (at desc);')
    this.addSql('create index audit_log_action_at_idx on audit_log (action, at desc);')
    this.addSql('create index audit_log_actor_at_idx on audit_log (actor_user_id, at desc);')
    this.addSql(`create table rate_limit_buckets (
      key text primary key,
      window_start timestamptz not null,
      count integer not null
    );`)
    this.addSql('create index rate_limit_buckets_window_start_idx on rate_limit_buckets (window_start);')
  }

  override async down(): Promise<void> {
    this.addSql('drop table if exists rate_limit_buckets;')
    this.addSql('drop table if exists audit_log;')
  }
}
