import { Migration } from '@mikro-orm/migrations'

/**
 * The release of the schema (issue 31, spec "Versioning": the web application, the migrator and the worker
 * always run the same release; docs/decisions/032-operations.md). One row, written by `glossary migrate` after
 * it applied the migrations (db/migrator.ts `applyMigrations`): the release of the code that migrated, when, and
 * how many migrations it had applied. `glossary web` and `glossary worker` refuse to start while it differs from
 * their own release, and `/readyz` answers 503.
 */
export class Migration20261203001000_release extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create table glossary_release (
      id boolean primary key default true check (id),
      release text not null,
      migrations integer not null,
      last_migration text not null,
      recorded_at timestamptz not null default now()
    );`)
  }

  override async down(): Promise<void> {
    this.addSql('drop table glossary_release;')
  }
}
