import { Migration } from '@mikro-orm/migrations'

/**
 * On a PostgreSQL server the chunk tables' HNSW graphs are built with `ef_construction = 128` instead of
 * pgvector's default 64 (issue 28; `HNSW_TUNING` in app/services/search/store.server.ts, decision 016 "Speed"):
 * at 100,000 chunks the default graph reached recall@10 0.936 at `ef_search` 200, the wider one 0.966 at 100,
 * so searches get both faster and better. The graphs are rebuilt here, so search never runs at the narrower
 * breadth on an old graph: at 100,000 chunks that is a minute or two of this migration. A shadow table of a full
 * reindex under way only gets the option (the run rebuilds or replaces it).
 *
 * The embedded engine keeps 64: there every chunk the pipeline indexes is inserted into the graph, 1.45× slower
 * at 128. PGlite reports a build by Emscripten (`emcc`) in `version()`.
 */
const TABLES = ['term_chunks', 'wiki_chunks', 'meeting_chunks']

function setBreadth(efConstruction: number, rebuild: boolean): string {
  const statements = TABLES.flatMap((table) => [
    `alter index ${table}_embedding_idx set (ef_construction = ${efConstruction});`,
    ...(rebuild ? [`reindex index ${table}_embedding_idx;`] : []),
    `alter index if exists ${table}_next_embedding_idx set (ef_construction = ${efConstruction});`,
  ])
  return `do $$
    begin
      if version() not like '%emcc%' then
        set local maintenance_work_mem = '1GB';
        ${statements.join('\n        ')}
      end if;
    end $$;`
}

export class Migration20261204001000_hnsw_build_breadth extends Migration {
  override async up(): Promise<void> {
    this.addSql(setBreadth(128, true))
  }

  override async down(): Promise<void> {
    this.addSql(setBreadth(64, false))
  }
}
