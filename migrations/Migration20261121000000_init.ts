import { Migration } from '@mikro-orm/migrations'

/** The platform: pgvector, the key/value settings table and the worker heartbeats. */
export class Migration20261121000000_init extends Migration {
  override async up(): Promise<void> {
    this.addSql('create extension if not exists vector;')
    this.addSql(`create table app_setting (
      key text primary key,
      value jsonb not null,
      updated_at timestamptz not null default now()
    );`)
    this.addSql(`create table worker_heartbeat (
      id text primary key,
      transport text not null,
      started_at timestamptz not null,
      last_seen_at timestamptz not null
    );`)
  }

  override async down(): Promise<void> {
    this.addSql('drop table if exists worker_heartbeat;')
    this.addSql('drop table if exists app_setting;')
  }
}
