import crypto from 'node:crypto'
import { z } from 'zod'

/**
 * The offline sync bundle (spec part 8, issue 30; docs/decisions/031-offline-sync.md): what one
 * `*.glossary-sync.json.gz` file holds, as zod schemas every bundle is validated against before anything of it
 * is read into a database. The file is gzip over JSON lines (one record a line, in this order):
 *
 *   header         format, version, release, origin, export time, sequence, full/incremental, the bundle it
 *                  follows, counts, and the FULL manifest (every item the origin carries, changed or not)
 *   item …         domains, then categories, terms, relations, wiki pages (the order they are applied in)
 *   attachment …   body images by content hash, each in its own line (never all in memory at once)
 *   tombstone …    items the origin deleted since the bundle this one follows
 *   end            the number of records before it and the SHA-256 of every byte before its line
 *
 * An item's `hash` is `itemHash(type, content)`: the receiver recomputes it, and compares it with the manifest,
 * so a changed byte of an item is found before anything is written; the end record finds a cut or a change
 * anywhere else. Authors travel as display names only, never as an email or a user id.
 */

export const BUNDLE_FORMAT = 'glossary-sync'
/**
 * The newest bundle format this release writes and reads; a newer one is refused with a clear message. Format 2
 * adds `termLinks` to wiki pages (issue 32). A bundle is written in format 1 when none of its pages has its term
 * links switched off, so an installation of an earlier release (which reads format 1 only) still reads it; one
 * that carries the switch is format 2, which such an installation refuses by name ("update this installation")
 * instead of misreading the page.
 */
export const BUNDLE_FORMAT_VERSION = 2
/** The format of a bundle whose items need nothing newer (see `BUNDLE_FORMAT_VERSION`). */
export const BUNDLE_FORMAT_BASE_VERSION = 1
export const BUNDLE_SUFFIX = '.glossary-sync.json.gz'

/** What travels, in the order a bundle holds and a receiver applies it (relations after both their terms). */
export const SYNC_ITEM_TYPES = ['domain', 'category', 'term', 'relation', 'wiki'] as const
export type SyncItemType = (typeof SYNC_ITEM_TYPES)[number]

const Uuid = z.uuid()
const Sha256 = z.string().regex(/^[0-9a-f]{64}$/, 'a lowercase hex SHA-256')
const Time = z.iso.datetime({ offset: true })

/** One entry of the full manifest: an item the origin carries, with its content hash and revision. */
export const ManifestEntrySchema = z.object({
  type: z.enum(SYNC_ITEM_TYPES),
  id: Uuid,
  hash: Sha256,
  revision: z.int().min(1),
})
export type ManifestEntry = z.output<typeof ManifestEntrySchema>

export const SYNC_KINDS = ['full', 'incremental'] as const
export type SyncKind = (typeof SYNC_KINDS)[number]

export const BundleHeaderSchema = z.object({
  record: z.literal('header'),
  format: z.literal(BUNDLE_FORMAT),
  formatVersion: z.int().min(BUNDLE_FORMAT_BASE_VERSION).max(BUNDLE_FORMAT_VERSION),
  /** The sender's release (package.json version), for the reader's information. */
  release: z.string().min(1).max(40),
  /** The sending installation: a stable UUID made once, and its display name. */
  origin: z.object({ id: Uuid, name: z.string().min(1).max(200) }),
  label: z.string().max(100).nullable(),
  exportedAt: Time,
  /** 1, 2, 3 … per origin: every export takes the next number. */
  sequence: z.int().min(1),
  kind: z.enum(SYNC_KINDS),
  /** The export this one follows (null for the first export of an origin). An incremental needs it applied. */
  previous: z.object({ sequence: z.int().min(1), exportedAt: Time }).nullable(),
  /** Records of each kind in this file (items by type), checked against what the file holds. */
  counts: z.object({
    items: z.record(z.enum(SYNC_ITEM_TYPES), z.int().min(0)),
    attachments: z.int().min(0),
    tombstones: z.int().min(0),
  }),
  manifest: z.array(ManifestEntrySchema),
})
export type BundleHeader = z.output<typeof BundleHeaderSchema>

// ── Items: what each type carries (its `content`, which `hash` covers) ─────────────────────────────────────

const Text = (max: number) => z.string().max(max)

export const DomainContentSchema = z.object({
  key: z.string().min(1).max(64),
  nameKo: Text(200),
  nameEn: Text(200),
  sort: z.int(),
})

export const NotationContentSchema = z.object({
  text: z.string().min(1).max(200),
  kind: z.enum(['preferred', 'admitted', 'deprecated']),
  lang: z.string().max(20).nullable(),
})

/**
 * A term: its full current content (the revision's content, domains and categories by key), its old
 * addresses, and — for a merged term — the origin id of the term it was merged into.
 */
export const TermContentSchema = z.object({
  slug: z.string().min(1).max(120),
  name: z.string().min(1).max(200),
  fullName: z.string().max(200).nullable(),
  nameEn: z.string().max(200).nullable(),
  nameKo: z.string().max(200).nullable(),
  notations: z.array(NotationContentSchema).max(100),
  domains: z.array(z.string().max(64)).max(30),
  categories: z.array(z.string().max(64)).max(30),
  tags: z.array(z.string().max(60)).max(50),
  status: z.enum(['active', 'needs_completion', 'deprecated', 'merged']),
  definition: Text(10_000),
  body: Text(200_000),
  oldSlugs: z.array(z.string().min(1).max(120)),
  mergedInto: Uuid.nullable(),
})

/** An approved relation between two carried terms (origin ids). */
export const RelationContentSchema = z.object({
  sourceTermId: Uuid,
  targetTermId: Uuid,
  relationType: z.enum(['related_to', 'is_a', 'part_of', 'used_in', 'prerequisite_of', 'replaces']),
  evidenceMd: z.string().min(1).max(4000),
})

/** A wiki page with every field a revision records; its linked terms by origin id. */
export const WikiContentSchema = z.object({
  slug: z.string().min(1).max(200),
  title: z.string().min(1).max(300),
  content: Text(200_000),
  summary: z.string().nullable(),
  sourceUrl: z.string().nullable(),
  domain: z.array(z.string()),
  status: z.enum(['draft', 'published', 'archived']),
  termIds: z.array(Uuid),
  /**
   * Present, `false`, only when the page's term links are switched off (issue 32: a display setting without a
   * revision); absent means on, so a page with the default hashes as it did before the setting existed.
   */
  termLinks: z.literal(false).optional(),
})

const itemBase = {
  record: z.literal('item'),
  id: Uuid,
  /** The origin's revision of the item (1 for items without revisions: domains, categories, relations). */
  revision: z.int().min(1),
  hash: Sha256,
  updatedAt: Time,
  /** Who changed it last at the origin, as a display name (never an email or an id); null when unknown. */
  author: z.string().max(320).nullable(),
}

export const BundleItemSchema = z.discriminatedUnion('type', [
  z.object({ ...itemBase, type: z.literal('domain'), content: DomainContentSchema }),
  z.object({ ...itemBase, type: z.literal('category'), content: DomainContentSchema }),
  z.object({ ...itemBase, type: z.literal('term'), content: TermContentSchema }),
  z.object({ ...itemBase, type: z.literal('relation'), content: RelationContentSchema }),
  z.object({ ...itemBase, type: z.literal('wiki'), content: WikiContentSchema }),
])
export type BundleItem = z.output<typeof BundleItemSchema>
export type ItemContent<T extends SyncItemType> = Extract<BundleItem, { type: T }>['content']

/** Image bytes a carried term body or wiki page references (`/api/v1/attachments/<id>`, the origin's id). */
export const BundleAttachmentSchema = z.object({
  record: z.literal('attachment'),
  id: Uuid,
  sha256: Sha256,
  contentType: z.enum(['image/png', 'image/jpeg', 'image/gif', 'image/webp']),
  size: z.int().min(1),
  /** The bytes, base64. */
  data: z.string().min(1),
})
export type BundleAttachment = z.output<typeof BundleAttachmentSchema>

/** An item the origin deleted (or, for a relation, no longer approves) since the bundle this one follows. */
export const BundleTombstoneSchema = z.object({
  record: z.literal('tombstone'),
  type: z.enum(SYNC_ITEM_TYPES),
  id: Uuid,
  deletedAt: Time,
})
export type BundleTombstone = z.output<typeof BundleTombstoneSchema>

export const BundleEndSchema = z.object({
  record: z.literal('end'),
  /** Records before this one, the header included. */
  records: z.int().min(1),
  /** SHA-256 (hex) of every byte of the uncompressed file before this line. */
  sha256: Sha256,
})
export type BundleEnd = z.output<typeof BundleEndSchema>

/** Any record after the header. */
export const BundleBodyRecordSchema = z.discriminatedUnion('record', [
  z.object({ ...itemBase, type: z.enum(SYNC_ITEM_TYPES), content: z.unknown() }),
  BundleAttachmentSchema,
  BundleTombstoneSchema,
  BundleEndSchema,
])

// ── Hashes and names ───────────────────────────────────────────────────────────────────────────────────────

/** JSON with object keys sorted at every level: one value, one text, whatever order it was built in. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`
  }
  return JSON.stringify(value)
}

/**
 * The content hash of an item: SHA-256 of its type and canonical content. The same function at the sender
 * (the manifest), at the receiver on arrival (tampering) and over the receiver's own copy (local edits).
 */
export function itemHash(type: SyncItemType, content: unknown): string {
  return crypto
    .createHash('sha256')
    .update(`${type}\n${canonicalJson(content)}`)
    .digest('hex')
}

/**
 * `<label-or-origin>-<export time>-<seq>.glossary-sync.json.gz`: the label (or the origin's name) as a safe file
 * name part, the export time as `YYYYMMDDTHHMMSSZ`, the sequence number; sorting the names of one origin sorts
 * its bundles in export order.
 */
export function bundleFileName(header: Pick<BundleHeader, 'label' | 'origin' | 'exportedAt' | 'sequence'>) {
  const base =
    (header.label ?? header.origin.name)
      .normalize('NFKC')
      .toLowerCase()
      .replace(/[^\p{L}\p{N}]+/gu, '-')
      .replace(/^-+|-+$/g, '')
      .slice(0, 60) || 'glossary'
  const time = header.exportedAt.replace(/\.\d+/, '').replace(/[-:]/g, '')
  return `${base}-${time}-${String(header.sequence).padStart(6, '0')}${BUNDLE_SUFFIX}`
}
