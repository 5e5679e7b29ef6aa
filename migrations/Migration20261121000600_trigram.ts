import { Migration } from '@mikro-orm/migrations'

/**
 * Substring search (`GET /terms?q=`, `GET /wiki?q=`) is `LIKE '%…%'` over normalized text; trigram GIN
 * indexes let Postgres answer it without reading every row once the glossary grows (pg_trgm ships with
 * PostgreSQL's contrib and with PGlite).
 */
export class Migration20261121000600_trigram extends Migration {
  override async up(): Promise<void> {
    this.addSql('create extension if not exists pg_trgm;')
    this.addSql('create index terms_search_text_trgm on terms using gin (search_text gin_trgm_ops);')
    this.addSql(
      'create index wiki_pages_search_text_trgm on wiki_pages using gin (search_text gin_trgm_ops);',
    )
  }

  override async down(): Promise<void> {
    this.addSql('drop index if exists wiki_pages_search_text_trgm;')
    this.addSql('drop index if exists terms_search_text_trgm;')
  }
}
