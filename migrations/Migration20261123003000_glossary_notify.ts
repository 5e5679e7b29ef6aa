import { Migration } from '@mikro-orm/migrations'

/**
 * A committed change of the glossary version (`app_setting` key `glossary.version`, bumped by every save that
 * changes what the matcher knows) sends `NOTIFY glossary_changed`, so the embedded database's only process
 * learns of it at commit instead of reading the version once a second on the web thread
 * (app/services/validation/matcher-cache.server.ts, docs/decisions/013-letter-case.md, "Speed of the request
 * path").
 */
export class Migration20261123003000_glossary_notify extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create function notify_glossary_changed() returns trigger language plpgsql as $$
begin
  perform pg_notify('glossary_changed', '');
  return null;
end $$;`)
    this.addSql(`create trigger app_setting_glossary_changed after insert or update on app_setting
  for each row when (new.key = 'glossary.version') execute function notify_glossary_changed();`)
  }

  override async down(): Promise<void> {
    this.addSql('drop trigger if exists app_setting_glossary_changed on app_setting;')
    this.addSql('drop function if exists notify_glossary_changed();')
  }
}
