import crypto from 'node:crypto'
import { BlobType, Entity, PrimaryKey, Property, type Opt } from '@mikro-orm/core'

/** An uploaded body image. The bytes live in the database so backups and offline sync carry them. */
@Entity({ tableName: 'attachments' })
export class Attachment {
  @PrimaryKey({ type: 'uuid' })
  id: Opt<string> = crypto.randomUUID()

  @Property({ type: 'text' })
  sha256!: string

  /** The type detected from the magic bytes (never the client's claim). */
  @Property({ type: 'text' })
  contentType!: string

  @Property({ type: 'integer' })
  size!: number

  @Property({ type: BlobType, lazy: true })
  bytes!: Buffer

  @Property({ type: 'uuid', nullable: true })
  createdById: string | null = null

  @Property({ type: 'datetime', columnType: 'timestamptz' })
  createdAt: Opt<Date> = new Date()
}
