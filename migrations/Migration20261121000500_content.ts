import { Migration } from '@mikro-orm/migrations'

/**
 * Relations between terms (with review state and an opaque concurrency token), wiki knowledge pages with
 * immutable revisions and term links, and legacy meeting records. See docs/decisions/008-relations.md and
 * docs/decisions/009-wiki-and-meetings.md.
 */
export class Migration20261121000500_content extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create table relations (
      id uuid primary key,
      source_term_id uuid not null references terms (id) on delete cascade,
      target_term_id uuid not null references terms (id) on delete cascade,
      relation_type text not null
        check (relation_type in ('related_to', 'is_a', 'part_of', 'used_in', 'prerequisite_of', 'replaces')),
      evidence_md text not null check (char_length(evidence_md) between 1 and 4000),
      source_revision integer not null check (source_revision >= 1),
      target_revision integer not null check (target_revision >= 1),
      status text not null default 'proposed' check (status in ('proposed', 'approved', 'rejected')),
      version uuid not null,
      proposed_by_id uuid references users (id) on delete set null,
      reviewed_by_id uuid references users (id) on delete set null,
      reviewed_at timestamptz,
      edited_by_id uuid references users (id) on delete set null,
      edited_at timestamptz,
      reversed_from_id uuid references relations (id) on delete set null,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now(),
      check (source_term_id <> target_term_id),
      constraint relations_source_target_type_unique unique (source_term_id, target_term_id, relation_type)
    );`)
    // The unique constraint serves lookups by source; these serve the other filters and the list order.
    this.addSql('create index relations_target_idx on relations (target_term_id);')
    this.addSql('create index relations_updated_idx on relations (updated_at desc, id);')
    this.addSql('create index relations_status_updated_idx on relations (status, updated_at desc, id);')
    this.addSql('create index relations_type_updated_idx on relations (relation_type, updated_at desc, id);')

    this.addSql(`create table wiki_pages (
      id uuid primary key,
      slug text not null,
      title text not null check (char_length(title) between 1 and 300),
      content text not null check (char_length(content) <= 200000),
      summary text,
      source_url text check (source_url is null or source_url ~* '^https?://'),
      domain text[] not null default '{}',
      status text not null default 'draft' check (status in ('draft', 'published', 'archived')),
      revision integer not null default 1 check (revision >= 1),
      created_by_id uuid references users (id) on delete set null,
      updated_by_id uuid references users (id) on delete set null,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now(),
      deleted_at timestamptz,
      -- What \`q\` searches, lowercased once on write: LIKE on it is several times faster than ILIKE on three columns.
      search_text text generated always as (lower(title || E'\\n' || coalesce(summary, '') || E'\\n' || content)) stored
    );`)
    this.addSql('create unique index wiki_pages_slug_unique on wiki_pages (slug);')
    this.addSql('create index wiki_pages_status_updated_idx on wiki_pages (status, updated_at desc, id);')
    this.addSql('create index wiki_pages_updated_idx on wiki_pages (updated_at desc, id);')
    this.addSql('create index wiki_pages_domain_idx on wiki_pages using gin (domain);')
    // Every edit is one immutable, complete snapshot: the page's history and its audit record at once.
    this.addSql(`create table wiki_page_revisions (
      id uuid primary key,
      page_id uuid not null references wiki_pages (id) on delete cascade,
      revision integer not null check (revision >= 1),
      slug text not null,
      title text not null,
      content text not null,
      summary text,
      source_url text,
      domain text[] not null default '{}',
      status text not null,
      term_slugs text[] not null default '{}',
      author_id uuid references users (id) on delete set null,
      author_label text,
      created_at timestamptz not null default now(),
      unique (page_id, revision)
    );`)
    this.addSql(`create table wiki_page_terms (
      page_id uuid not null references wiki_pages (id) on delete cascade,
      term_id uuid not null references terms (id) on delete cascade,
      primary key (page_id, term_id)
    );`)
    this.addSql('create index wiki_page_terms_term_idx on wiki_page_terms (term_id);')

    this.addSql(`create table meetings (
      id uuid primary key,
      title text not null check (char_length(title) between 1 and 300),
      meeting_date timestamptz not null,
      source text,
      team text,
      domain text[] not null default '{}',
      content text not null check (char_length(content) between 1 and 200000),
      status text not null default 'active' check (status in ('active', 'archived')),
      revision integer not null default 1 check (revision >= 1),
      created_by_id uuid references users (id) on delete set null,
      archived_by_id uuid references users (id) on delete set null,
      archived_at timestamptz,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now()
    );`)
    this.addSql('create index meetings_status_date_idx on meetings (status, meeting_date desc, id);')
    this.addSql('create index meetings_team_idx on meetings (team);')
    this.addSql('create index meetings_domain_idx on meetings using gin (domain);')
  }

  override async down(): Promise<void> {
    for (const table of ['meetings', 'wiki_page_terms', 'wiki_page_revisions', 'wiki_pages', 'relations']) {
      this.addSql(`drop table if exists ${table};`)
    }
  }
}
