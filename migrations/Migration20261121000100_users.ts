import { Migration } from '@mikro-orm/migrations'

/** Accounts. Email uniqueness is case-insensitive through the spec's index name. */
export class Migration20261121000100_users extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create table users (
      id uuid primary key,
      email text not null check (email = lower(email)),
      name text not null,
      role text not null check (role in ('viewer', 'editor', 'admin')),
      auth_type text not null check (auth_type in ('password', 'sso', 'agent')),
      password_hash text,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now()
    );`)
    this.addSql('create unique index users_email_lower_unique on users (lower(email));')
  }

  override async down(): Promise<void> {
    this.addSql('drop table if exists users;')
  }
}
