import crypto from 'node:crypto'
import { PrimaryKey, Property, type Opt } from '@mikro-orm/core'

/**
 * UUID primary key made by the application (offline sync identifies items by the origin's UUID, so ids are
 * never sequence numbers), plus creation and update times.
 */
export abstract class BaseEntity {
  @PrimaryKey({ type: 'uuid' })
  id: Opt<string> = crypto.randomUUID()

  @Property({ type: 'datetime', columnType: 'timestamptz' })
  createdAt: Opt<Date> = new Date()

  @Property({ type: 'datetime', columnType: 'timestamptz', onUpdate: () => new Date() })
  updatedAt: Opt<Date> = new Date()
}
