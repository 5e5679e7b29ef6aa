import { z } from 'zod'
import { endpoint } from '#app/api/endpoint.server.ts'
import {
  ATTACHMENT_MAX_BYTES,
  ATTACHMENT_TYPES,
  serveAttachment,
  uploadAttachment,
} from '#app/services/attachments/attachments.server.ts'

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
    handler: async ({ request, actor }) => uploadAttachment({ request, actorId: actor!.user.id }),
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
    handler: async ({ params }) => serveAttachment(params),
  }),
]
