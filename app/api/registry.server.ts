import { z } from 'zod'
import { RELEASE } from '#domain/release.ts'
import { endpoint, type Endpoint } from './endpoint.server.ts'
import { ADMIN_USER_ENDPOINTS } from './endpoints/admin-users.server.ts'
import { IDENTITY_ENDPOINTS } from './endpoints/identity.server.ts'
import { SSO_ENDPOINTS } from './endpoints/sso.server.ts'
import { EXPORT_ENDPOINTS } from './endpoints/share.server.ts'
import { GLOSSARY_ENDPOINTS } from './endpoints/terms.server.ts'
import { MEETING_ENDPOINTS } from './endpoints/meetings.server.ts'
import { SEARCH_ENDPOINTS } from './endpoints/search.server.ts'
import { CHAT_ENDPOINTS } from './endpoints/chat.server.ts'
import { AI_OBSERVABILITY_ENDPOINTS } from './endpoints/ai-observability.server.ts'
import { AI_PROVIDER_ENDPOINTS } from './endpoints/ai-provider.server.ts'
import { RELATION_ENDPOINTS } from './endpoints/relations.server.ts'
import { WIKI_ENDPOINTS } from './endpoints/wiki.server.ts'
import { buildOpenApiDocument } from './openapi.server.ts'
import { Router } from './router.server.ts'

const openApiEndpoint = endpoint({
  method: 'GET',
  path: '/openapi',
  operationId: 'getOpenApi',
  summary: 'This document: the machine-readable description of the API',
  tag: 'meta',
  access: { kind: 'public' },
  response: z.object({ openapi: z.string(), paths: z.record(z.string(), z.unknown()) }).loose(),
  handler: async () => openApiDocument(),
})

/** Every API endpoint. A feature adds its list here; the router and the OpenAPI document read only this. */
export const ENDPOINTS: Endpoint[] = [
  openApiEndpoint,
  ...IDENTITY_ENDPOINTS,
  ...ADMIN_USER_ENDPOINTS,
  ...SSO_ENDPOINTS,
  ...GLOSSARY_ENDPOINTS,
  ...EXPORT_ENDPOINTS,
  ...RELATION_ENDPOINTS,
  ...WIKI_ENDPOINTS,
  ...MEETING_ENDPOINTS,
  ...SEARCH_ENDPOINTS,
  ...CHAT_ENDPOINTS,
  ...AI_OBSERVABILITY_ENDPOINTS,
  ...AI_PROVIDER_ENDPOINTS,
]

let compiledRouter: Router | undefined
let document: Record<string, unknown> | undefined

export function router(): Router {
  compiledRouter ??= new Router(ENDPOINTS)
  return compiledRouter
}

export function openApiDocument(): Record<string, unknown> {
  document ??= buildOpenApiDocument(ENDPOINTS, RELEASE)
  return document
}
