import { Migration } from '@mikro-orm/migrations'

/**
 * Search by meaning (issue 12, docs/decisions/016-index-pipeline.md): the one row of search settings with its
 * secrets encrypted, a chunk table per source kind (terms, wiki pages, meetings) with `vector(1536)` columns
 * and cosine HNSW indexes, the staging table the pipeline's stages hand chunks through (payloads carry ids
 * only), the AI run records every provider call writes (never a prompt, a text, a vector or a secret), and
 * what the queue needs for retries (`available_at`) and its history (`finished_at`).
 */
export class Migration20261123001000_rag extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create table rag_config (
      id smallint primary key default 1 check (id = 1),
      enabled boolean not null default false,
      chat_enabled boolean not null default false,
      embedding_provider text not null default 'alpha_compatible'
        check (embedding_provider in ('alpha_compatible', 'beta')),
      embedding_base_url text not null default '' check (embedding_base_url = '' or embedding_base_url ~* '^https?://'),
      embedding_model text not null default '',
      embedding_api_key text,
      embedding_headers jsonb not null default '[]',
      reranker_enabled boolean not null default false,
      reranker_provider text not null default 'gamma_compatible'
        check (reranker_provider in ('gamma_compatible', 'alpha_compatible')),
      reranker_base_url text not null default '' check (reranker_base_url = '' or reranker_base_url ~* '^https?://'),
      reranker_model text not null default '',
      reranker_api_key text,
      reranker_headers jsonb not null default '[]',
      chunk_size integer not null default 1200 check (chunk_size between 400 and 8000),
      chunk_overlap integer not null default 150 check (chunk_overlap >= 0 and chunk_overlap < chunk_size),
      top_k integer not null default 10 check (top_k between 1 and 50),
      updated_by_id uuid references users (id) on delete set null,
      updated_at timestamptz not null default now()
    );`)
    this.addSql('insert into rag_config (id) values (1);')

    // One table per source kind: their filters differ (term status, wiki status, meeting team and date) and a
    // search never mixes them. `model` is the embedding space (provider, base URL and model): search reads only
    // chunks of the current space, and (model, content_hash) finds an embedding to reuse.
    this.addSql(`create table term_chunks (
      id uuid primary key,
      term_id uuid not null references terms (id) on delete cascade,
      revision integer not null,
      source_field text not null,
      chunk_index integer not null,
      content text not null,
      content_hash text not null,
      model text not null,
      embedding vector(1536) not null,
      created_at timestamptz not null default now()
    );`)
    this.addSql(`create table wiki_chunks (
      id uuid primary key,
      page_id uuid not null references wiki_pages (id) on delete cascade,
      revision integer not null,
      chunk_index integer not null,
      start_offset integer not null,
      end_offset integer not null,
      content text not null,
      content_hash text not null,
      model text not null,
      embedding vector(1536) not null,
      created_at timestamptz not null default now()
    );`)
    this.addSql(`create table meeting_chunks (
      id uuid primary key,
      meeting_id uuid not null references meetings (id) on delete cascade,
      revision integer not null,
      chunk_index integer not null,
      start_offset integer not null,
      end_offset integer not null,
      content text not null,
      content_hash text not null,
      model text not null,
      embedding vector(1536) not null,
      created_at timestamptz not null default now()
    );`)
    for (const [table, owner] of [
      ['term_chunks', 'term_id'],
      ['wiki_chunks', 'page_id'],
      ['meeting_chunks', 'meeting_id'],
    ] as const) {
      this.addSql(`create index ${table}_owner_idx on ${table} (${owner});`)
      this.addSql(`create index ${table}_reuse_idx on ${table} (model, content_hash);`)
      // m = 16, ef_construction = 64 (pgvector's defaults); recall is tuned per query with hnsw.ef_search.
      this.addSql(
        `create index ${table}_embedding_idx on ${table} using hnsw (embedding vector_cosine_ops) with (m = 16, ef_construction = 64);`,
      )
    }

    // What the chunk stage produced for one queue row, waiting for its embedding and the upsert.
    this.addSql(`create table rag_pending_chunks (
      queue_id uuid not null references rag_index_queue (id) on delete cascade,
      chunk_index integer not null,
      source_field text,
      start_offset integer,
      end_offset integer,
      content text not null,
      embed_text text not null,
      content_hash text not null,
      embedding vector(1536),
      primary key (queue_id, chunk_index)
    );`)

    this.addSql(`alter table rag_index_queue
      add column available_at timestamptz not null default now(),
      add column finished_at timestamptz;`)
    this.addSql(
      "create index rag_index_queue_claim_idx on rag_index_queue (available_at) where status = 'queued';",
    )
    this.addSql('create index rag_index_queue_source_idx on rag_index_queue (source_type, source_id);')

    // One row per provider call. The chatbot adds `llm` calls sharing a chat request's trace id; the
    // observability page aggregates by task, model, outcome and time. Never a prompt, a text, a vector or a secret.
    this.addSql(`create table ai_runs (
      id uuid primary key,
      trace_id text not null,
      task text not null check (task in ('embedding', 'reranker', 'llm', 'models')),
      purpose text not null check (purpose in ('index', 'search', 'test', 'chat', 'models')),
      provider text not null,
      model text not null,
      status text not null default 'running' check (status in ('running', 'succeeded', 'failed')),
      failure_class text check (failure_class in
        ('authentication', 'model_not_found', 'rate_limited', 'provider_unavailable', 'timeout')),
      http_status integer,
      items integer not null default 0,
      input_tokens integer,
      output_tokens integer,
      total_tokens integer,
      latency_ms integer,
      started_at timestamptz not null default now(),
      finished_at timestamptz
    );`)
    this.addSql('create index ai_runs_started_idx on ai_runs (started_at);')
    this.addSql('create index ai_runs_task_model_idx on ai_runs (task, model, started_at);')
    this.addSql('create index ai_runs_trace_idx on ai_runs (trace_id);')
  }

  override async down(): Promise<void> {
    for (const table of [
      'ai_runs',
      'rag_pending_chunks',
      'meeting_chunks',
      'wiki_chunks',
      'term_chunks',
      'rag_config',
    ]) {
      this.addSql(`drop table if exists ${table};`)
    }
    this.addSql('drop index if exists rag_index_queue_claim_idx;')
    this.addSql('drop index if exists rag_index_queue_source_idx;')
    this.addSql(
      'alter table rag_index_queue drop column if exists available_at, drop column if exists finished_at;',
    )
  }
}
