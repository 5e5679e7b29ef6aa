import { Migration } from '@mikro-orm/migrations'

/**
 * One index pipeline driver (issue 28, docs/decisions/027-one-index-driver.md).
 * - `rag_index_queue.locked_by`: the worker (its heartbeat id) whose stage last took a `processing` row, so a
 *   row whose worker stopped beating is returned to `queued` within a minute instead of after ten.
 * - `index_provider_pauses`: a provider (the embedder or the reranker of search) that answered 429, 5xx or
 *   not in time is paused until `paused_until` (its `Retry-After`, or a doubling backoff); while paused no row
 *   that needs it is started, and the rows it failed wait without spending their attempts, for as long as the
 *   outage that began at `since` is within the outage budget. When the pause ends, one call probes the provider
 *   (`probe_until`: taken by one stage, for as long as a call may take) while the others keep waiting.
 */
export class Migration20261128001000_index_driver extends Migration {
  override async up(): Promise<void> {
    this.addSql('alter table rag_index_queue add column locked_by text;')
    this.addSql(`create table index_provider_pauses (
      provider text primary key,
      paused_until timestamptz not null,
      since timestamptz not null,
      failures integer not null,
      reason text not null,
      probe_until timestamptz,
      updated_at timestamptz not null default now()
    );`)
  }

  override async down(): Promise<void> {
    this.addSql('drop table if exists index_provider_pauses;')
    this.addSql('alter table rag_index_queue drop column if exists locked_by;')
  }
}
