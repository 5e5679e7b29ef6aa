import { Migration } from '@mikro-orm/migrations'

/**
 * Full reindex into shadow tables (issue 28, docs/decisions/028-full-reindex-runs.md).
 * - `rag_reindex_runs`: one full reindex. It builds `term_chunks_next`, `wiki_chunks_next` and
 *   `meeting_chunks_next` from every searchable source, source by source in id order (`cursor_kind`,
 *   `cursor_id` say how far it got, so a worker that takes over resumes there), then swaps them in for the
 *   live chunk tables in one transaction. `holder` is the worker (heartbeat id) building it. At most one run
 *   is active (`building`) at a time.
 * - `serving`: after a change of embedding model, the settings the live tables were embedded with (provider,
 *   base URL, model, and the key and header values as stored, encrypted): search embeds its queries with them
 *   until the swap, so it keeps answering from the old index. Null when the live tables are in the run's space.
 * - `rag_index_queue.run_id`: the queue row of each source the run covers, queued with the run in the same
 *   transaction. The relay leaves these rows to the run; the swap marks them `ready`. Saving a source again
 *   clears it (the row is then ordinary work); a run that fails or is replaced clears it too.
 */
export class Migration20261129001000_reindex_runs extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create table rag_reindex_runs (
      id uuid primary key,
      status text not null check (status in ('building', 'done', 'failed', 'cancelled')),
      space text not null,
      chunk_size integer not null,
      chunk_overlap integer not null,
      cursor_kind text not null default 'term' check (cursor_kind in ('term', 'wiki', 'meeting', 'index', 'swap')),
      cursor_id uuid,
      sources_total integer not null default 0,
      sources_done integer not null default 0,
      chunks_written integer not null default 0,
      chunks_embedded integer not null default 0,
      holder text,
      error text,
      serving jsonb,
      requested_by_id uuid references users (id) on delete set null,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now(),
      finished_at timestamptz
    );`)
    this.addSql(
      "create unique index rag_reindex_runs_one_building on rag_reindex_runs ((true)) where status = 'building';",
    )
    this.addSql(
      'alter table rag_index_queue add column run_id uuid references rag_reindex_runs (id) on delete set null;',
    )
    this.addSql('create index rag_index_queue_run_idx on rag_index_queue (run_id) where run_id is not null;')
  }

  override async down(): Promise<void> {
    this.addSql('drop index if exists rag_index_queue_run_idx;')
    this.addSql('alter table rag_index_queue drop column if exists run_id;')
    for (const table of ['term_chunks_next', 'wiki_chunks_next', 'meeting_chunks_next'])
      this.addSql(`drop table if exists ${table};`)
    this.addSql('drop table if exists rag_reindex_runs;')
  }
}
