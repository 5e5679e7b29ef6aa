import { Entity, PrimaryKey, Property, type Opt } from '@mikro-orm/core'

/**
 * Settings an administrator changes at run time (password-login switch, SSO, search configuration), one JSON
 * value per key. Kept in the database so every web process sees the same value.
 */
@Entity({ tableName: 'app_setting' })
export class AppSetting {
  @PrimaryKey({ type: 'text' })
  key!: string

  @Property({ type: 'json' })
  value!: unknown

  @Property({ type: 'datetime', columnType: 'timestamptz', onUpdate: () => new Date() })
  updatedAt: Opt<Date> = new Date()
}
