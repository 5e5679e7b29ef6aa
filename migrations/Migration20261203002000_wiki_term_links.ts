import { Migration } from '@mikro-orm/migrations'

/**
 * Term links per wiki page (issue 32): whether readers see the uses of glossary terms on the page linked to
 * them with their definitions. A display setting of the page, not part of its content: switching it writes no
 * revision. On by default, for existing pages too.
 */
export class Migration20261203002000_wiki_term_links extends Migration {
  override async up(): Promise<void> {
    this.addSql('alter table wiki_pages add column term_links boolean not null default true;')
  }

  override async down(): Promise<void> {
    this.addSql('alter table wiki_pages drop column term_links;')
  }
}
