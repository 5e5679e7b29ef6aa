import { z } from 'zod'
import { STATUS, type ErrorCode } from '#app/lib/errors.server.ts'
import type { Endpoint } from './endpoint.server.ts'

/**
 * Generates the OpenAPI 3.1 document from the endpoint table: the same zod schemas the router parses with, so
 * the document cannot drift from the routes (a test also compares both).
 */

type JsonSchema = Record<string, unknown>

const ErrorEnvelopeSchema = z
  .object({
    error: z.object({
      code: z.string().meta({ description: 'Stable machine-readable code, e.g. validation_failed.' }),
      message: z.string().meta({ description: 'Human-readable explanation.' }),
      details: z
        .object({
          problems: z
            .array(z.object({ path: z.string(), message: z.string(), code: z.string().optional() }))
            .optional(),
        })
        .loose()
        .optional(),
    }),
  })
  .meta({ description: 'The common error envelope.' })

function toSchema(schema: z.ZodType, io: 'input' | 'output'): JsonSchema {
  const json = z.toJSONSchema(schema, { io, unrepresentable: 'any', target: 'draft-2020-12' }) as JsonSchema
  delete json.$schema
  return json
}

function parameters(schema: z.ZodType | undefined, location: 'path' | 'query'): JsonSchema[] {
  if (!schema) return []
  const json = toSchema(schema, 'input')
  const properties = (json.properties ?? {}) as Record<string, JsonSchema>
  const required = new Set((json.required as string[] | undefined) ?? [])
  return Object.entries(properties).map(([name, property]) => {
    const { description, ...rest } = property
    return {
      name,
      in: location,
      required: location === 'path' || required.has(name),
      ...(description ? { description } : {}),
      schema: rest,
    }
  })
}

function security(endpoint: Endpoint): Record<string, string[]>[] | undefined {
  switch (endpoint.access.kind) {
    case 'public':
      return []
    case 'session':
      return [{ cookieSession: [] }]
    case 'scoped':
      return [{ cookieSession: [] }, { apiKey: [endpoint.access.scope] }]
  }
}

function accessNote(endpoint: Endpoint): string {
  const access = endpoint.access
  if (access.kind === 'public') return 'No authentication.'
  if (access.kind === 'session') {
    return `Signed-in session${access.minRole ? ` with role ${access.minRole} or higher` : ''}; API keys are refused.`
  }
  return `Session (role ${access.minRole ?? 'viewer'} or higher) or an API key with the \`${access.scope}\` scope.`
}

function errorResponses(endpoint: Endpoint): Record<string, unknown> {
  const codes = new Set<ErrorCode>(endpoint.errors ?? [])
  codes.add('internal_error')
  if (endpoint.access.kind !== 'public') {
    codes.add('unauthorized')
    codes.add('forbidden')
  }
  if (endpoint.body || endpoint.query || endpoint.params) codes.add('validation_failed')
  const byStatus = new Map<number, ErrorCode[]>()
  for (const code of codes) byStatus.set(STATUS[code], [...(byStatus.get(STATUS[code]) ?? []), code])
  const out: Record<string, unknown> = {}
  for (const [status, list] of [...byStatus].sort((a, b) => a[0] - b[0])) {
    out[String(status)] = {
      description: `Error: ${list.join(', ')}`,
      content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorEnvelope' } } },
    }
  }
  return out
}

export function buildOpenApiDocument(endpoints: Endpoint[], version: string): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {}
  for (const endpoint of endpoints) {
    const status = String(endpoint.successStatus ?? 200)
    const operation: Record<string, unknown> = {
      operationId: endpoint.operationId,
      summary: endpoint.summary,
      description: [endpoint.description, accessNote(endpoint)].filter(Boolean).join('\n\n'),
      tags: [endpoint.tag],
      security: security(endpoint),
      parameters: [...parameters(endpoint.params, 'path'), ...parameters(endpoint.query, 'query')],
      responses: {
        [status]: {
          description: endpoint.ndjson
            ? 'Success. As `application/x-ndjson`: a stream with one such object per line.'
            : 'Success',
          ...(endpoint.response && status !== '204'
            ? {
                content: {
                  'application/json': { schema: toSchema(endpoint.response, 'output') },
                  ...(endpoint.ndjson
                    ? { 'application/x-ndjson': { schema: toSchema(endpoint.ndjson, 'output') } }
                    : {}),
                },
              }
            : {}),
        },
        ...errorResponses(endpoint),
      },
    }
    if (endpoint.body) {
      operation.requestBody = {
        required: !endpoint.body.safeParse(undefined).success,
        content: { 'application/json': { schema: toSchema(endpoint.body, 'input') } },
      }
    } else if (endpoint.rawBody) {
      operation.requestBody = {
        required: true,
        description: endpoint.rawBody.description,
        content: Object.fromEntries(endpoint.rawBody.contentTypes.map((type) => [type, {}])),
      }
    }
    paths[endpoint.path] ??= {}
    paths[endpoint.path]![endpoint.method.toLowerCase()] = operation
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Terminology Glossary Service API',
      version,
      description:
        'Every path is relative to /api/v1. Errors use the envelope `{ error: { code, message, details } }`.',
    },
    servers: [{ url: '/api/v1' }],
    paths,
    components: {
      schemas: { ErrorEnvelope: toSchema(ErrorEnvelopeSchema, 'output') },
      securitySchemes: {
        cookieSession: { type: 'apiKey', in: 'cookie', name: 'glossary_session' },
        apiKey: { type: 'http', scheme: 'bearer', bearerFormat: 'glk_<prefix>_<secret>' },
      },
    },
  }
}
