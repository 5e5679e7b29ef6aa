import { Migration } from '@mikro-orm/migrations'

/**
 * "Leaves search" becomes a queue row of its own kind (docs/decisions/014-leaving-search.md): a queued row
 * now says what the worker must do with its source, `index` it at the recorded revision or `remove` its
 * chunks. The partial unique index still allows one queued row per source, so the latest intent replaces an
 * earlier one that the worker has not taken yet. Existing rows were all indexing work.
 */
export class Migration20261121000900_index_queue_action extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `alter table rag_index_queue add column action text not null default 'index' check (action in ('index', 'remove'));`,
    )
  }

  override async down(): Promise<void> {
    this.addSql('alter table rag_index_queue drop column if exists action;')
  }
}
