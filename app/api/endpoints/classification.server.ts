import { z } from 'zod'
import { endpoint, type Endpoint } from '#app/api/endpoint.server.ts'
import {
  ClassificationCreateSchema,
  ClassificationItemSchema,
  ClassificationParamsSchema,
  ClassificationUpdateSchema,
} from '#app/schemas/terms.ts'
import {
  createClassification,
  deleteClassification,
  listClassification,
  updateClassification,
  type ClassificationKind,
} from '#app/services/terms/classification.server.ts'

const admin = { kind: 'session', minRole: 'admin' } as const

function classificationEndpoints(
  kind: ClassificationKind,
  path: string,
  noun: string,
  Noun: string,
): Endpoint[] {
  return [
    endpoint({
      method: 'GET',
      path,
      operationId: `list${Noun}s`,
      summary: `The ${noun}s of the classification scheme`,
      tag: 'classification',
      access: { kind: 'scoped', scope: 'read' },
      response: z.object({ items: z.array(ClassificationItemSchema) }),
      handler: async () => listClassification({ kind }),
    }),
    endpoint({
      method: 'POST',
      path,
      operationId: `create${Noun}`,
      summary: `Add a ${noun} (admin)`,
      tag: 'classification',
      access: admin,
      body: ClassificationCreateSchema,
      successStatus: 201,
      response: ClassificationItemSchema,
      errors: ['conflict'],
      handler: async ({ body }) => createClassification({ kind, input: body }),
    }),
    endpoint({
      method: 'PATCH',
      path: `${path}/{key}`,
      operationId: `update${Noun}`,
      summary: `Rename or re-sort a ${noun} (admin); queues every term carrying it for indexing`,
      tag: 'classification',
      access: admin,
      params: ClassificationParamsSchema,
      body: ClassificationUpdateSchema,
      response: ClassificationItemSchema,
      errors: ['not_found'],
      handler: async ({ params, body }) => updateClassification({ kind, key: params.key, input: body }),
    }),
    endpoint({
      method: 'DELETE',
      path: `${path}/{key}`,
      operationId: `delete${Noun}`,
      summary: `Delete a ${noun} (admin); terms carrying it get a new revision without it`,
      tag: 'classification',
      access: admin,
      params: ClassificationParamsSchema,
      response: z.object({ affectedTerms: z.number().int() }),
      errors: ['not_found'],
      handler: async ({ params, actor }) =>
        deleteClassification({ kind, key: params.key, actorId: actor!.user.id }),
    }),
  ]
}

/** Administration of domains and business categories. */
export const CLASSIFICATION_ENDPOINTS = [
  ...classificationEndpoints('domain', '/domains', 'domain', 'Domain'),
  ...classificationEndpoints('category', '/categories', 'business category', 'Category'),
]
