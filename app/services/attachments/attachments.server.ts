import crypto from 'node:crypto'
import { AppError } from '#app/lib/errors.server.ts'
import { em } from '#db/orm.ts'
import { isUuid } from '#domain/ids.ts'
import {
  ATTACHMENT_TYPES,
  insertOrFindImage,
  selectImage,
  selectUnreferencedImages,
  deleteUnreferencedImages,
  type AttachmentType,
} from './store.server.ts'

/**
 * Body images. Only PNG, JPEG, GIF and WebP, recognized by their magic bytes (the declared type must agree),
 * at most 5 MB. The API serves them back with the stored type, `nosniff`, `inline` and a sandboxing CSP, so a
 * crafted file can never run as a page (app/api/endpoints/attachments.server.ts). Identical bytes are stored once (SHA-256). The hourly cleanup removes those that
 * no revision body references (`findUnreferencedAttachments`).
 */
export const ATTACHMENT_MAX_BYTES = 5 * 1024 * 1024
export { ATTACHMENT_TYPES, type AttachmentType }

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
  const stored = await insertOrFindImage(em(), {
    sha256,
    contentType: actual,
    bytes,
    actorId: options.actorId,
  })
  return { ...stored, url: `/api/v1/attachments/${stored.id}` }
}

/** A stored image: its bytes, type and digest (the API serves it with sandboxing headers). */
export async function readAttachment(options: {
  id: string
}): Promise<{ bytes: Buffer; contentType: AttachmentType; sha256: string }> {
  const found = isUuid(options.id) ? await selectImage(em(), options.id) : undefined
  if (!found) throw new AppError('not_found', 'No such attachment.')
  return found
}

/**
 * Attachments older than `olderThan` that no revision's body (hence no current body either) references by
 * id. The cleanup job deletes these.
 */
export async function findUnreferencedAttachments(
  olderThan: Date,
): Promise<{ id: string; createdAt: string }[]> {
  return selectUnreferencedImages(em(), olderThan)
}

/** The cleanup's step: deletes attachments older than `olderThan` that no revision references; answers how many. */
export async function deleteUnreferencedAttachments(olderThan: Date): Promise<number> {
  return deleteUnreferencedImages(em(), olderThan)
}
