import { Migration } from '@mikro-orm/migrations'

/**
 * The glossary core (docs/decisions/006-term-model.md): terms with immutable revisions, their notations
 * denormalized for search and matching, old addresses, the classification scheme, the durable index queue
 * (an outbox written in the same transaction as every save), deletion tombstones, attachments, import jobs
 * and term candidates.
 */
export class Migration20261121000400_glossary extends Migration {
  override async up(): Promise<void> {
    for (const table of ['domains', 'business_categories']) {
      this.addSql(`create table ${table} (
        id uuid primary key,
        key text not null unique check (key ~ '^[a-z0-9][a-z0-9_-]{0,63}$'),
        name_ko text not null,
        name_en text not null,
        sort integer not null default 0,
        created_at timestamptz not null default now(),
        updated_at timestamptz not null default now()
      );`)
    }
    this.addSql(`create table terms (
      id uuid primary key,
      slug text not null,
      name text not null,
      full_name text,
      name_en text,
      name_ko text,
      status text not null check (status in ('active', 'needs_completion', 'deprecated', 'merged')),
      tags text[] not null default '{}',
      revision integer not null check (revision >= 1),
      content_hash text not null,
      search_text text not null,
      change_version bigint not null default 0,
      merged_into_id uuid references terms (id) on delete set null,
      created_by_id uuid references users (id) on delete set null,
      updated_by_id uuid references users (id) on delete set null,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now(),
      deleted_at timestamptz,
      deleted_by_id uuid references users (id) on delete set null,
      check ((status = 'merged') = (merged_into_id is not null) or deleted_at is not null)
    );`)
    // A deleted term frees its slug; merged terms keep theirs (it is an old address of the survivor).
    this.addSql('create unique index terms_slug_unique on terms (slug) where deleted_at is null;')
    this.addSql('create index terms_status_idx on terms (status) where deleted_at is null;')
    this.addSql('create index terms_updated_at_idx on terms (updated_at);')
    // The glossary version of the transaction that last changed the row: matchers reload only newer rows.
    this.addSql('create index terms_change_version_idx on terms (change_version);')
    this.addSql('create index terms_tags_idx on terms using gin (tags);')
    this.addSql('create index terms_name_idx on terms (lower(name));')
    this.addSql(`create table term_revisions (
      id uuid primary key,
      term_id uuid not null references terms (id) on delete cascade,
      revision integer not null check (revision >= 1),
      content jsonb not null,
      content_hash text not null,
      note text not null default '',
      author_id uuid references users (id) on delete set null,
      created_at timestamptz not null default now(),
      unique (term_id, revision)
    );`)
    this.addSql(`create table term_notations (
      id uuid primary key,
      term_id uuid not null references terms (id) on delete cascade,
      text text not null,
      normalized text not null,
      kind text not null check (kind in ('preferred', 'admitted', 'deprecated')),
      lang text,
      source text not null check (source in ('name', 'full_name', 'name_en', 'name_ko', 'notation')),
      position integer not null default 0
    );`)
    this.addSql('create index term_notations_term_idx on term_notations (term_id);')
    this.addSql('create index term_notations_prefix_idx on term_notations (normalized text_pattern_ops);')
    this.addSql(`create table term_old_slugs (
      slug text primary key,
      term_id uuid not null references terms (id) on delete cascade,
      created_at timestamptz not null default now()
    );`)
    this.addSql('create index term_old_slugs_term_idx on term_old_slugs (term_id);')
    this.addSql(`create table term_domains (
      term_id uuid not null references terms (id) on delete cascade,
      domain_id uuid not null references domains (id) on delete cascade,
      position integer not null default 0,
      primary key (term_id, domain_id)
    );`)
    this.addSql('create index term_domains_domain_idx on term_domains (domain_id);')
    this.addSql(`create table term_categories (
      term_id uuid not null references terms (id) on delete cascade,
      category_id uuid not null references business_categories (id) on delete cascade,
      position integer not null default 0,
      primary key (term_id, category_id)
    );`)
    this.addSql('create index term_categories_category_idx on term_categories (category_id);')

    this.addSql(`create table rag_index_queue (
      id uuid primary key,
      source_type text not null check (source_type in ('term', 'wiki', 'meeting')),
      source_id uuid not null,
      revision integer not null,
      status text not null default 'queued' check (status in ('queued', 'processing', 'ready', 'failed')),
      attempts integer not null default 0,
      error text check (error is null or length(error) <= 2000),
      locked_at timestamptz,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now()
    );`)
    // One source has at most one queued row: saving again moves its revision forward instead of piling up.
    this.addSql(
      "create unique index rag_index_queue_one_queued on rag_index_queue (source_type, source_id) where status = 'queued';",
    )
    this.addSql('create index rag_index_queue_status_idx on rag_index_queue (status, created_at);')

    this.addSql(`create table deletions (
      id uuid primary key,
      entity_type text not null,
      entity_id uuid not null,
      deleted_at timestamptz not null default now(),
      deleted_by_id uuid references users (id) on delete set null,
      unique (entity_type, entity_id)
    );`)
    this.addSql('create index deletions_deleted_at_idx on deletions (deleted_at);')

    this.addSql(`create table attachments (
      id uuid primary key,
      sha256 text not null unique check (sha256 ~ '^[0-9a-f]{64}$'),
      content_type text not null check (content_type in ('image/png', 'image/jpeg', 'image/gif', 'image/webp')),
      size integer not null check (size > 0),
      bytes bytea not null,
      created_by_id uuid references users (id) on delete set null,
      created_at timestamptz not null default now()
    );`)
    this.addSql('create index attachments_created_at_idx on attachments (created_at);')

    this.addSql(`create table import_jobs (
      id uuid primary key,
      status text not null check (status in ('running', 'succeeded', 'failed')),
      format text not null check (format in ('csv', 'json')),
      total integer not null default 0,
      processed integer not null default 0,
      created integer not null default 0,
      updated integer not null default 0,
      unchanged integer not null default 0,
      errors integer not null default 0,
      error text,
      report jsonb,
      created_by_id uuid references users (id) on delete set null,
      created_at timestamptz not null default now(),
      finished_at timestamptz
    );`)

    this.addSql(`create table term_candidates (
      id uuid primary key,
      text text not null,
      normalized text not null unique,
      status text not null default 'open' check (status in ('open', 'dismissed', 'promoted')),
      count integer not null default 0,
      sightings jsonb not null default '[]',
      first_seen_at timestamptz not null default now(),
      last_seen_at timestamptz not null default now(),
      promoted_term_id uuid references terms (id) on delete set null,
      decided_by_id uuid references users (id) on delete set null
    );`)
    this.addSql('create index term_candidates_open_idx on term_candidates (status, count desc);')
  }

  override async down(): Promise<void> {
    for (const table of [
      'term_candidates',
      'import_jobs',
      'attachments',
      'deletions',
      'rag_index_queue',
      'term_categories',
      'term_domains',
      'term_old_slugs',
      'term_notations',
      'term_revisions',
      'terms',
      'business_categories',
      'domains',
    ]) {
      this.addSql(`drop table if exists ${table};`)
    }
  }
}
