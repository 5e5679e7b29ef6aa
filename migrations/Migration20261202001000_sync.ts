import { Migration } from '@mikro-orm/migrations'

/**
 * Offline one-way sync (spec part 8, issue 30; docs/decisions/031-offline-sync.md).
 *
 * Sender: `sync_exports` is the history of this installation's bundles (the sequence each took, full or
 * incremental, the one it follows); `sync_export_manifest` is the manifest of the last one (every carried item
 * with its content hash), which the next incremental export is measured against — what changed is what it
 * carries, what left the manifest is a tombstone. The installation's own origin id and name are the
 * `sync.origin` row of `app_setting`.
 *
 * Receiver: `sync_origins` holds per sending installation the last bundle applied (rule g: older ones are
 * skipped; rule f: an incremental must follow it); `sync_applied_bundles` is the history the admin screen
 * shows; `sync_items` maps each origin item to the local item it became (rule a: items are the origin's UUIDs,
 * local items are never mistaken for them) with the origin's hash last applied and the local copy's hash right
 * after (a different local hash later is a local edit, rule d).
 */
export class Migration20261202001000_sync extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create table sync_exports (
      id uuid primary key,
      sequence integer not null unique check (sequence >= 1),
      kind text not null check (kind in ('full', 'incremental')),
      exported_at timestamptz not null,
      previous_sequence integer,
      label text,
      file_name text not null,
      counts jsonb not null,
      created_by_id uuid references users (id) on delete set null
    );`)
    this.addSql(`create table sync_export_manifest (
      item_type text not null check (item_type in ('domain', 'category', 'term', 'relation', 'wiki')),
      item_id uuid not null,
      hash text not null,
      revision integer not null,
      primary key (item_type, item_id)
    );`)
    this.addSql(`create table sync_origins (
      id uuid primary key,
      name text not null,
      last_sequence integer not null,
      last_exported_at timestamptz not null,
      last_applied_at timestamptz not null
    );`)
    this.addSql(`create table sync_applied_bundles (
      id uuid primary key,
      origin_id uuid not null references sync_origins (id) on delete cascade,
      origin_name text not null,
      sequence integer not null,
      kind text not null check (kind in ('full', 'incremental')),
      exported_at timestamptz not null,
      file_name text not null,
      counts jsonb not null,
      applied_by_id uuid references users (id) on delete set null,
      applied_by_label text,
      applied_at timestamptz not null default now(),
      unique (origin_id, sequence)
    );`)
    this.addSql('create index sync_applied_bundles_applied_idx on sync_applied_bundles (applied_at desc);')
    this.addSql(`create table sync_items (
      origin_id uuid not null references sync_origins (id) on delete cascade,
      item_type text not null check (item_type in ('domain', 'category', 'term', 'relation', 'wiki')),
      origin_item_id uuid not null,
      local_id uuid not null,
      origin_hash text not null,
      origin_revision integer not null,
      local_hash text not null,
      primary key (origin_id, item_type, origin_item_id)
    );`)
    this.addSql('create unique index sync_items_local_idx on sync_items (item_type, local_id);')
  }

  override async down(): Promise<void> {
    for (const table of [
      'sync_items',
      'sync_applied_bundles',
      'sync_origins',
      'sync_export_manifest',
      'sync_exports',
    ]) {
      this.addSql(`drop table if exists ${table};`)
    }
  }
}
