import { Migration } from '@mikro-orm/migrations'

/**
 * The embedded engine finds nearest chunks with an index in the service's process (decision 035,
 * app/services/search/chunk-ann.server.ts), not with pgvector's HNSW: PGlite is one backend in that process, so
 * every row inserted into an HNSW graph (~13 ms at 1536 dimensions) and every graph build (minutes at 100,000
 * chunks) held the whole service. Its chunk tables drop the HNSW index and get `seq`, a number that grows with
 * every row written: the process index follows a table by reading the rows past the highest `seq` it holds.
 * PostgreSQL keeps its HNSW indexes and gets no `seq`. PGlite reports a build by Emscripten (`emcc`) in
 * `version()`. A full reindex's shadow table under way is dropped: its run starts again on the new shape.
 */
const TABLES = ['term_chunks', 'wiki_chunks', 'meeting_chunks']

const onEmbedded = (statements: string[]) => `do $$
    begin
      if version() like '%emcc%' then
        ${statements.join('\n        ')}
      end if;
    end $$;`

export class Migration20261205001000_embedded_chunk_seq extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      onEmbedded([
        ...TABLES.flatMap((table) => [
          `drop index if exists ${table}_embedding_idx;`,
          `alter table ${table} add column seq bigint generated always as identity;`,
          `create unique index ${table}_seq_idx on ${table} (seq);`,
          `drop table if exists ${table}_next;`,
        ]),
        `update rag_reindex_runs set cursor_kind = 'term', cursor_id = null, sources_done = 0, chunks_written = 0
          where status = 'building';`,
      ]),
    )
  }

  override async down(): Promise<void> {
    this.addSql(
      onEmbedded(
        TABLES.flatMap((table) => [
          `drop table if exists ${table}_next;`,
          `alter table ${table} drop column seq;`,
          `create index ${table}_embedding_idx on ${table} using hnsw (embedding vector_cosine_ops) with (m = 16, ef_construction = 64);`,
        ]),
      ),
    )
  }
}
