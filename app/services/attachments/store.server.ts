import type { EntityManager } from '@mikro-orm/postgresql'
import { countChanged, iso } from '#db/sql.ts'

/**
 * The data access of body images: every SQL statement on `attachments`. Bytes travel as base64 text in both
 * directions, which PGlite and node-postgres handle alike (a `bytea` parameter is not portable between them).
 * What may be stored is decided in attachments.server.ts.
 */

export const ATTACHMENT_TYPES = ['image/png', 'image/jpeg', 'image/gif', 'image/webp'] as const
export type AttachmentType = (typeof ATTACHMENT_TYPES)[number]

/**
 * Stores an image unless the same bytes (SHA-256) are stored already, and returns the stored row either
 * way: identical uploads share one row.
 */
export async function insertOrFindImage(
  manager: EntityManager,
  image: { sha256: string; contentType: AttachmentType; bytes: Uint8Array; actorId: string | null },
): Promise<{ id: string; contentType: AttachmentType; size: number; sha256: string; createdAt: string }> {
  await manager.execute(
    `insert into attachments (id, sha256, content_type, size, bytes, created_by_id, created_at)
     values (gen_random_uuid(), ?, ?, ?, decode(?, 'base64'), ?, now()) on conflict (sha256) do nothing`,
    [
      image.sha256,
      image.contentType,
      image.bytes.length,
      Buffer.from(image.bytes).toString('base64'),
      image.actorId,
    ],
    'run',
  )
  const rows = await manager.execute<
    { id: string; content_type: AttachmentType; size: number; sha256: string; created_at: Date | string }[]
  >('select id, content_type, size, sha256, created_at from attachments where sha256 = ?', [image.sha256])
  const r = rows[0]!
  return {
    id: r.id,
    contentType: r.content_type,
    size: r.size,
    sha256: r.sha256,
    createdAt: iso(r.created_at),
  }
}

/** A stored image's bytes, type and digest, or undefined. */
export async function selectImage(
  manager: EntityManager,
  id: string,
): Promise<{ bytes: Buffer; contentType: AttachmentType; sha256: string } | undefined> {
  const rows = await manager.execute<{ content_type: AttachmentType; sha256: string; b64: string }[]>(
    `select content_type, sha256, encode(bytes, 'base64') as b64 from attachments where id = ?`,
    [id],
  )
  const r = rows[0]
  return (
    r && {
      bytes: Buffer.from(r.b64.replace(/\s+/g, ''), 'base64'),
      contentType: r.content_type,
      sha256: r.sha256,
    }
  )
}

/** Images older than `olderThan` whose id no term revision's body mentions, oldest first. */
export async function selectUnreferencedImages(
  manager: EntityManager,
  olderThan: Date,
): Promise<{ id: string; createdAt: string }[]> {
  const rows = await manager.execute<{ id: string; created_at: Date | string }[]>(
    `select a.id, a.created_at from attachments a
      where a.created_at < ?
        and not exists (select 1 from term_revisions r where strpos(r.content ->> 'body', a.id::text) > 0)
      order by a.created_at`,
    [olderThan.toISOString()],
  )
  return rows.map((r) => ({ id: r.id, createdAt: iso(r.created_at) }))
}

/**
 * Deletes images older than `olderThan` that no term revision references, in one statement (so an image a
 * save references meanwhile is never taken); answers how many.
 */
export async function deleteUnreferencedImages(manager: EntityManager, olderThan: Date): Promise<number> {
  return countChanged(
    manager,
    `delete from attachments a
      where a.created_at < ?
        and not exists (select 1 from term_revisions r where strpos(r.content ->> 'body', a.id::text) > 0)`,
    [olderThan.toISOString()],
  )
}
