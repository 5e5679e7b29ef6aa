import { Migration } from '@mikro-orm/migrations'

/**
 * Deactivated accounts (issue 27, docs/decisions/026-deactivating-users.md): an admin can deactivate an account
 * and reactivate it later. While `deactivated_at` is set, the auth gate refuses the account's sessions, API
 * keys and oauth2-proxy identity, and sign-in fails like wrong credentials; its content and authorship stay.
 * Setting the column fires the existing `users_credentials_changed` trigger, so cached keys are dropped at once.
 */
export class Migration20261127001000_users_deactivated extends Migration {
  override async up(): Promise<void> {
    this.addSql('alter table users add column deactivated_at timestamptz;')
  }

  override async down(): Promise<void> {
    this.addSql('alter table users drop column if exists deactivated_at;')
  }
}
