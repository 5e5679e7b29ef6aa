import { z } from 'zod'
import { endpoint } from '#app/api/endpoint.server.ts'
import { AppError } from '#app/lib/errors.server.ts'
import {
  ATTACHMENT_MAX_BYTES,
  ATTACHMENT_TYPES,
  readAttachment,
  storeAttachment,
} from '#app/services/attachments/attachments.server.ts'

/** The upload of a request: a raw image body, or the first file of a multipart form. */
async function readUpload(request: Request): Promise<{ bytes: Uint8Array; declaredType: string }> {
  const declaredLength = Number(request.headers.get('content-length') ?? '0')
  if (declaredLength > ATTACHMENT_MAX_BYTES + 64 * 1024) {
    throw new AppError('payload_too_large', `Images may be at most ${ATTACHMENT_MAX_BYTES} bytes.`)
  }
  const type = (request.headers.get('content-type') ?? '').split(';')[0]!.trim().toLowerCase()
  if (type === 'multipart/form-data') {
    let form: FormData
    try {
      form = await request.formData()
    } catch {
      throw new AppError('bad_request', 'The multipart body cannot be read.')
    }
    const file = [...form.values()].find((v): v is File => typeof v !== 'string')
    if (!file) throw new AppError('bad_request', 'The form holds no file.')
    return { bytes: new Uint8Array(await file.arrayBuffer()), declaredType: file.type }
  }
  return { bytes: new Uint8Array(await request.arrayBuffer()), declaredType: type }
}

/** A stored image with headers that keep a crafted file from ever running as a page. */
async function serveAttachment(id: string): Promise<Response> {
  const { bytes, contentType, sha256 } = await readAttachment({ id })
  return new Response(new Uint8Array(bytes), {
    status: 200,
    headers: {
      'Content-Type': contentType,
      'Content-Length': String(bytes.length),
      'X-Content-Type-Options': 'nosniff',
      'Content-Disposition': 'inline',
      'Content-Security-Policy': "default-src 'none'; img-src 'self'; style-src 'unsafe-inline'; sandbox",
      'Cache-Control': 'private, max-age=31536000, immutable',
      ETag: `"${sha256}"`,
    },
  })
}

/** Body images for term Markdown. */
export const ATTACHMENT_ENDPOINTS = [
  endpoint({
    method: 'POST',
    path: '/attachments',
    operationId: 'uploadAttachment',
    summary: 'Upload a body image (PNG, JPEG, GIF, WebP; at most 5 MB)',
    description:
      "Send the image as the raw body with its content type, or as multipart/form-data (the first file). The type is checked by the file's magic bytes. Reference it from Markdown as `![alt](/api/v1/attachments/{id})`.",
    tag: 'attachments',
    access: { kind: 'scoped', scope: 'write', minRole: 'editor' },
    rawBody: { contentTypes: [...ATTACHMENT_TYPES, 'multipart/form-data'], description: 'The image.' },
    maxBodyBytes: ATTACHMENT_MAX_BYTES,
    successStatus: 201,
    response: z.object({
      id: z.uuid(),
      url: z.string(),
      contentType: z.enum(ATTACHMENT_TYPES),
      size: z.number().int(),
      sha256: z.string(),
      createdAt: z.iso.datetime(),
    }),
    errors: ['payload_too_large', 'unsupported_media_type', 'bad_request'],
    handler: async ({ request, actor }) =>
      storeAttachment({ ...(await readUpload(request)), actorId: actor!.user.id }),
  }),
  endpoint({
    method: 'GET',
    path: '/attachments/{id}',
    operationId: 'getAttachment',
    summary: 'An uploaded image, served with its stored type and sandboxing headers',
    tag: 'attachments',
    access: { kind: 'scoped', scope: 'read' },
    params: z.object({ id: z.uuid() }),
    media: Object.fromEntries(ATTACHMENT_TYPES.map((type) => [type, null])),
    errors: ['not_found'],
    handler: async ({ params }) => serveAttachment(params.id),
  }),
]
