import { Entity, Property } from '@mikro-orm/core'
import { BaseEntity } from './base.entity.ts'

/** A domain of the classification scheme (admin-managed); `key` is what terms and filters use. */
@Entity({ tableName: 'domains' })
export class Domain extends BaseEntity {
  @Property({ type: 'text' })
  key!: string

  @Property({ type: 'text' })
  nameKo!: string

  @Property({ type: 'text' })
  nameEn!: string

  @Property({ type: 'integer' })
  sort = 0
}

/** A business category of the classification scheme (admin-managed). */
@Entity({ tableName: 'business_categories' })
export class BusinessCategory extends BaseEntity {
  @Property({ type: 'text' })
  key!: string

  @Property({ type: 'text' })
  nameKo!: string

  @Property({ type: 'text' })
  nameEn!: string

  @Property({ type: 'integer' })
  sort = 0
}
