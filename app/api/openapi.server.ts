import { z } from 'zod'
import { STATUS, type ErrorCode } from '#app/lib/errors.server.ts'
import { MAX_JSON_DEPTH } from '#app/lib/json-depth.ts'
import { SLUG_PATTERN, SLUG_PATTERN_PORTABLE } from '#app/schemas/terms.ts'
import { API_TAGS, type Endpoint } from './endpoint.server.ts'

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

/**
 * Patterns the server matches in Unicode mode (`\p{…}`), by source, and the form the document gives instead.
 * Tools that read the document compile patterns without Unicode mode, where `\p{Ll}` means the text `p{Ll}`
 * and the document's own examples fail; each portable form is one that both kinds of engine read alike.
 */
const PORTABLE_PATTERNS = new Map([[SLUG_PATTERN.source, SLUG_PATTERN_PORTABLE.source]])
const UNICODE_MODE_ONLY = /\\[pP]\{|\\u\{/

function portablePattern(pattern: string): string {
  if (!UNICODE_MODE_ONLY.test(pattern)) return pattern
  const portable = PORTABLE_PATTERNS.get(pattern)
  if (!portable) throw new Error(`The pattern /${pattern}/ needs Unicode mode; give it a portable form.`)
  return portable
}

function toSchema(schema: z.ZodType, io: 'input' | 'output'): JsonSchema {
  const json = z.toJSONSchema(schema, {
    io,
    unrepresentable: 'any',
    target: 'draft-2020-12',
    override: ({ jsonSchema }) => {
      // zod writes one pattern as `pattern`, several as an `allOf` of `{ pattern }`.
      for (const node of [jsonSchema, ...(jsonSchema.allOf ?? [])]) {
        if (typeof node === 'object' && typeof node.pattern === 'string')
          node.pattern = portablePattern(node.pattern)
      }
    },
  }) as JsonSchema
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
      // The key's scope goes in `x-required-scopes`: linters read scopes in a requirement as OAuth scopes, which
      // a bearer scheme does not define (docs/decisions/011-openapi-document.md).
      return [{ cookieSession: [] }, { apiKey: [] }]
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
  // Every operation decodes its query string and applies the text rule to it (handler.server.ts), so malformed
  // percent-encoding or a NUL in the query answers 400 on any operation.
  codes.add('validation_failed')
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

/** The success body by media type: JSON, the NDJSON stream, and the endpoint's other media types. */
function successContent(endpoint: Endpoint): Record<string, unknown> | undefined {
  const content: Record<string, unknown> = {}
  if (endpoint.response) content['application/json'] = { schema: toSchema(endpoint.response, 'output') }
  if (endpoint.ndjson) content['application/x-ndjson'] = { schema: toSchema(endpoint.ndjson, 'output') }
  for (const [type, schema] of Object.entries(endpoint.media ?? {})) {
    // Binary content has no schema: OpenAPI 3.1 describes it by the media type alone.
    content[type] = schema ? { schema: toSchema(schema, 'output') } : {}
  }
  return Object.keys(content).length ? content : undefined
}

export function buildOpenApiDocument(endpoints: Endpoint[], version: string): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {}
  for (const endpoint of endpoints) {
    const status = String(endpoint.successStatus ?? 200)
    const content = status === '204' ? undefined : successContent(endpoint)
    const operation: Record<string, unknown> = {
      operationId: endpoint.operationId,
      summary: endpoint.summary,
      description: [endpoint.description, accessNote(endpoint)].filter(Boolean).join('\n\n'),
      tags: [endpoint.tag],
      security: security(endpoint),
      ...(endpoint.access.kind === 'scoped' ? { 'x-required-scopes': [endpoint.access.scope] } : {}),
      parameters: [...parameters(endpoint.params, 'path'), ...parameters(endpoint.query, 'query')],
      responses: {
        [status]: {
          description: endpoint.ndjson
            ? 'Success. As `application/x-ndjson`: a stream with one such object per line.'
            : 'Success',
          ...(content ? { content } : {}),
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
  const used = new Set(endpoints.map((e) => e.tag))
  return {
    openapi: '3.1.0',
    info: {
      title: 'Terminology Glossary Service API',
      version,
      description:
        'Every path is relative to /api/v1. Errors use the envelope `{ error: { code, message, details } }`. An operation that API keys may call names the scope the key needs in `x-required-scopes` (one of `read`, `write`, `validate`). ' +
        `A JSON body may nest arrays and objects at most ${MAX_JSON_DEPTH} levels deep: a deeper one answers 400 \`validation_failed\` with the problem \`{ path: "(body)", code: "too_deep" }\`, checked before the body is parsed.` +
        ' For AI agents the same keys and scopes open an MCP server at /mcp (Streamable HTTP, outside /api/v1, not described here: its tools list themselves).',
      // On-premises: whoever runs this installation answers for it; there is no vendor address to give.
      contact: { name: 'The administrators of this glossary installation' },
      // package.json is `private` and names no open-source license; `LicenseRef-` is SPDX's form for a license
      // that is not on its list (docs/decisions/011-openapi-document.md).
      license: { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' },
    },
    servers: [{ url: '/api/v1' }],
    tags: Object.entries(API_TAGS)
      .filter(([name]) => used.has(name as keyof typeof API_TAGS))
      .map(([name, description]) => ({ name, description })),
    paths,
    components: {
      schemas: { ErrorEnvelope: toSchema(ErrorEnvelopeSchema, 'output') },
      securitySchemes: {
        cookieSession: {
          type: 'apiKey',
          in: 'cookie',
          name: 'glossary_session',
          description: 'The session of a signed-in user (the web pages use it).',
        },
        apiKey: {
          type: 'http',
          scheme: 'bearer',
          bearerFormat: 'glk_<prefix>_<secret>',
          description:
            'An API key as `Authorization: Bearer glk_…`. A key holds scopes (`read`, `write`, `validate`); the one an operation needs is its `x-required-scopes`.',
        },
      },
    },
  }
}
