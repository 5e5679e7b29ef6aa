import { Entity, PrimaryKey, Property } from '@mikro-orm/core'

/**
 * A fixed-window counter shared by every web process (`<bucket>:<key>` → requests since `windowStart`).
 * Written only by the one atomic upsert in app/services/rate-limit/store.server.ts.
 */
@Entity({ tableName: 'rate_limit_buckets' })
export class RateLimitBucket {
  @PrimaryKey({ type: 'text' })
  key!: string

  @Property({ type: 'datetime', columnType: 'timestamptz' })
  windowStart!: Date

  @Property({ type: 'integer' })
  count!: number
}
