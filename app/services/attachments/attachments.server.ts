import crypto from 'node:crypto'
import { AppError } from '#app/lib/errors.server.ts'
import { em } from '#db/orm.ts'
import { isUuid } from '#domain/ids.ts'

/**
 * Body images. Only PNG, JPEG, GIF and WebP, recognized by their magic bytes (the declared type must agree),
 * at most 5 MB. The API serves them back with the stored type, `nosniff`, `inline` and a sandboxing CSP, so a
 * crafted file can never run as a page (app/api/endpoints/attachments.server.ts). Identical bytes are stored once (SHA-256). The hourly cleanup removes those that
 * no revision body references (`findUnreferencedAttachments`).
 */
export const ATTACHMENT_MAX_BYTES = 5 * 1024 * 1024
export const ATTACHMENT_TYPES = ['image/png', 'image/jpeg', 'image/gif', 'image/webp'] as const
export type AttachmentType = (typeof ATTACHMENT_TYPES)[number]

export interface AttachmentDto {
  id: string
  url: string
  contentType: AttachmentType
  size: number
  sha256: string
  createdAt: string
}

/** The image type the bytes really are, or null. */
export function sniffImageType(bytes: Uint8Array): AttachmentType | null {
  const starts = (sig: number[], at = 0) => sig.every((b, i) => bytes[at + i] === b)
  if (starts([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return 'image/png'
  if (starts([0xff, 0xd8, 0xff])) return 'image/jpeg'
  if (starts([0x47, 0x49, 0x46, 0x38]) && (bytes[4] === 0x37 || bytes[4] === 0x39) && bytes[5] === 0x61) {
    return 'image/gif'
  }
  if (starts([0x52, 0x49, 0x46, 0x46]) && starts([0x57, 0x45, 0x42, 0x50], 8)) return 'image/webp'
  return null
}

const iso = (v: Date | string) => (v instanceof Date ? v : new Date(v)).toISOString()

/**
 * Stores an uploaded image (or returns the existing one with the same bytes). `declaredType` is what the client
 * said the file is; it must agree with the bytes (or be absent / `application/octet-stream`).
 */
export async function storeAttachment(options: {
  bytes: Uint8Array
  declaredType: string
  actorId: string
}): Promise<AttachmentDto> {
  const { bytes } = options
  const declared = options.declaredType.split(';')[0]!.trim().toLowerCase()
  if (bytes.length === 0) throw new AppError('bad_request', 'The upload is empty.')
  if (bytes.length > ATTACHMENT_MAX_BYTES) {
    throw new AppError('payload_too_large', `Images may be at most ${ATTACHMENT_MAX_BYTES} bytes.`)
  }
  const actual = sniffImageType(bytes)
  if (!actual) {
    throw new AppError('unsupported_media_type', 'Only PNG, JPEG, GIF and WebP images can be uploaded.')
  }
  const normalizedDeclared = declared === 'image/jpg' ? 'image/jpeg' : declared
  if (
    normalizedDeclared &&
    normalizedDeclared !== 'application/octet-stream' &&
    normalizedDeclared !== actual
  ) {
    throw new AppError('unsupported_media_type', `The file is ${actual}, not ${declared}.`)
  }
  const sha256 = crypto.createHash('sha256').update(bytes).digest('hex')
  const manager = em()
  await manager.execute(
    `insert into attachments (id, sha256, content_type, size, bytes, created_by_id, created_at)
     values (?, ?, ?, ?, decode(?, 'base64'), ?, now()) on conflict (sha256) do nothing`,
    [
      crypto.randomUUID(),
      sha256,
      actual,
      bytes.length,
      Buffer.from(bytes).toString('base64'),
      options.actorId,
    ],
    'run',
  )
  const rows = await manager.execute<
    { id: string; content_type: AttachmentType; size: number; sha256: string; created_at: Date | string }[]
  >('select id, content_type, size, sha256, created_at from attachments where sha256 = ?', [sha256])
  const r = rows[0]!
  return {
    id: r.id,
    url: `/api/v1/attachments/${r.id}`,
    contentType: r.content_type,
    size: r.size,
    sha256: r.sha256,
    createdAt: iso(r.created_at),
  }
}

/** A stored image: its bytes, type and digest (the API serves it with sandboxing headers). */
export async function readAttachment(options: {
  id: string
}): Promise<{ bytes: Buffer; contentType: AttachmentType; sha256: string }> {
  if (!isUuid(options.id)) throw new AppError('not_found', 'No such attachment.')
  const rows = await em().execute<{ content_type: AttachmentType; sha256: string; b64: string }[]>(
    `select content_type, sha256, encode(bytes, 'base64') as b64 from attachments where id = ?`,
    [options.id],
  )
  const r = rows[0]
  if (!r) throw new AppError('not_found', 'No such attachment.')
  return {
    bytes: Buffer.from(r.b64.replace(/\s+/g, ''), 'base64'),
    contentType: r.content_type,
    sha256: r.sha256,
  }
}

/**
 * Attachments older than `olderThan` that no revision's body (hence no current body either) references by
 * id. The cleanup job deletes these.
 */
export async function findUnreferencedAttachments(
  olderThan: Date,
): Promise<{ id: string; createdAt: string }[]> {
  const rows = await em().execute<{ id: string; created_at: Date | string }[]>(
    `select a.id, a.created_at from attachments a
      where a.created_at < ?
        and not exists (select 1 from term_revisions r where strpos(r.content ->> 'body', a.id::text) > 0)
      order by a.created_at`,
    [olderThan.toISOString()],
  )
  return rows.map((r) => ({ id: r.id, createdAt: iso(r.created_at) }))
}
