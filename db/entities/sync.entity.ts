import { Entity, ManyToOne, PrimaryKey, PrimaryKeyProp, Property, type Opt } from '@mikro-orm/core'
import { User } from './user.entity.ts'

/**
 * Schema-only descriptions of the offline sync tables (migration 20261202001000, decision 031). Raw SQL owns
 * them in `app/services/sync/*store*.server.ts`. Sender side: the history of this installation's bundles and
 * the manifest of the last one. Receiver side: the origins it applied bundles of, their history, and the map of
 * origin items to local ones.
 */

type SyncKind = 'full' | 'incremental'
type SyncItemType = 'domain' | 'category' | 'term' | 'relation' | 'wiki'

/** One bundle this installation exported: the sequence it took and the export it follows. */
@Entity({ tableName: 'sync_exports' })
export class SyncExport {
  @PrimaryKey({ type: 'uuid' })
  id!: string

  @Property({ type: 'integer', unique: true })
  sequence!: number

  @Property({ type: 'text' })
  kind!: SyncKind

  @Property({ type: 'datetime', columnType: 'timestamptz' })
  exportedAt!: Date

  @Property({ type: 'integer', nullable: true })
  previousSequence: number | null = null

  @Property({ type: 'text', nullable: true })
  label: string | null = null

  @Property({ type: 'text' })
  fileName!: string

  @Property({ type: 'json', columnType: 'jsonb' })
  counts!: unknown

  @ManyToOne(() => User, { nullable: true, deleteRule: 'set null' })
  createdBy: User | null = null
}

/** One item of the last export's manifest: what the next incremental export is measured against. */
@Entity({ tableName: 'sync_export_manifest' })
export class SyncExportManifestEntry {
  [PrimaryKeyProp]?: ['itemType', 'itemId']

  @PrimaryKey({ type: 'text' })
  itemType!: SyncItemType

  @PrimaryKey({ type: 'uuid' })
  itemId!: string

  @Property({ type: 'text' })
  hash!: string

  @Property({ type: 'integer' })
  revision!: number
}

/** A sending installation this one applied bundles of, with the last one applied (rules f and g). */
@Entity({ tableName: 'sync_origins' })
export class SyncOrigin {
  @PrimaryKey({ type: 'uuid' })
  id!: string

  @Property({ type: 'text' })
  name!: string

  @Property({ type: 'integer' })
  lastSequence!: number

  @Property({ type: 'datetime', columnType: 'timestamptz' })
  lastExportedAt!: Date

  @Property({ type: 'datetime', columnType: 'timestamptz' })
  lastAppliedAt!: Date
}

/** One applied bundle, as the admin screen's history lists it. */
@Entity({ tableName: 'sync_applied_bundles' })
export class SyncAppliedBundle {
  @PrimaryKey({ type: 'uuid' })
  id!: string

  @ManyToOne(() => SyncOrigin, { deleteRule: 'cascade' })
  origin!: SyncOrigin

  @Property({ type: 'text' })
  originName!: string

  @Property({ type: 'integer' })
  sequence!: number

  @Property({ type: 'text' })
  kind!: SyncKind

  @Property({ type: 'datetime', columnType: 'timestamptz' })
  exportedAt!: Date

  @Property({ type: 'text' })
  fileName!: string

  @Property({ type: 'json', columnType: 'jsonb' })
  counts!: unknown

  @ManyToOne(() => User, { nullable: true, deleteRule: 'set null' })
  appliedBy: User | null = null

  @Property({ type: 'text', nullable: true })
  appliedByLabel: string | null = null

  @Property({ type: 'datetime', columnType: 'timestamptz' })
  appliedAt: Opt<Date> = new Date()
}

/**
 * An origin item and the local item it became (rule a), with the origin's hash and revision last applied and
 * the local copy's hash right after (a different local hash later is a local edit, rule d).
 */
@Entity({ tableName: 'sync_items' })
export class SyncItem {
  [PrimaryKeyProp]?: ['origin', 'itemType', 'originItemId']

  @ManyToOne(() => SyncOrigin, { primary: true, deleteRule: 'cascade' })
  origin!: SyncOrigin

  @PrimaryKey({ type: 'text' })
  itemType!: SyncItemType

  @PrimaryKey({ type: 'uuid' })
  originItemId!: string

  @Property({ type: 'uuid' })
  localId!: string

  @Property({ type: 'text' })
  originHash!: string

  @Property({ type: 'integer' })
  originRevision!: number

  @Property({ type: 'text' })
  localHash!: string
}
