import type { z } from 'zod'
import type { Access } from '#app/lib/auth-gate.server.ts'
import type { ErrorCode } from '#app/lib/errors.server.ts'
import type { Actor } from '#domain/identity.ts'

export type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE'

/** The groups of operations (OpenAPI tags) with what each holds, in the order the document lists them. */
export const API_TAGS = {
  meta: 'The machine-readable description of this API.',
  accounts: 'First setup, registration, signing in and out, and the signed-in account.',
  keys: 'Personal API keys of the signed-in user.',
  admin: 'Accounts, agent keys and the audit log, for administrators.',
  sso: 'Single sign-on settings and the password-login switch, for administrators.',
  terms: 'Glossary terms: listing, search, lookup, editing, revisions and merging.',
  classification: 'The domains and business categories that classify terms.',
  validation: 'Checking texts against the glossary, as JSON or SARIF 2.1.0.',
  candidates: 'Notations found in validated texts that look like terms but are not in the glossary.',
  import: 'Importing terms from CSV or JSON, and following import jobs.',
  export: 'The glossary as files other tools read: CSV, TBX, SKOS, and Vale and prh linter rules.',
  attachments: 'Images for the Markdown bodies of terms.',
  relations: 'Proposed and reviewed relations between terms.',
  wiki: 'Wiki pages and their revisions.',
  meetings: 'Meeting records (legacy).',
  search: 'Search by meaning over terms, wiki pages and meetings, and its settings and index (admin).',
  chat: 'The chatbot: questions answered from cited glossary terms, wiki pages and meeting records, and your private history.',
  'ai-provider':
    "The chat's AI (LLM) provider: address, model, key, custom headers and answer settings (admin).",
} as const
export type Tag = keyof typeof API_TAGS

/** What a handler gets: the parsed inputs, who is calling, and response headers it may add (cookies). */
export interface HandlerContext<P, Q, B> {
  request: Request
  params: P
  query: Q
  body: B
  /** null only for `public` endpoints. */
  actor: Actor | null
  /** Headers merged into the response (for example Set-Cookie). */
  responseHeaders: Headers
  requestId: string
  /** Client address (X-Forwarded-For only when the proxy is trusted). */
  ip: string
  /** Whether the request reached us over HTTPS (X-Forwarded-Proto only when the proxy is trusted). */
  isHttps: boolean
}

/** Where the API lives; every endpoint `path` is relative to it. */
export const API_PREFIX = '/api/v1'

/** Whether a URL path is the API's: its prefix, or below it. */
export function isApiPath(path: string): boolean {
  return path === API_PREFIX || path.startsWith(`${API_PREFIX}/`)
}

/**
 * One API operation: its place in the URL space, who may call it, the zod schemas of its inputs (which the
 * router parses with and the OpenAPI document is generated from) and the service call it makes.
 */
export interface Endpoint<
  P extends z.ZodType = z.ZodType,
  Q extends z.ZodType = z.ZodType,
  B extends z.ZodType = z.ZodType,
> {
  method: Method
  /** Relative to /api/v1, OpenAPI style: `/terms/{idOrSlug}`. */
  path: string
  operationId: string
  summary: string
  description?: string
  tag: Tag
  access: Access
  params?: P
  query?: Q
  /** JSON body schema; `raw` endpoints read the request themselves (uploads, CSV). */
  body?: B
  rawBody?: { contentTypes: string[]; description: string }
  /** Largest accepted body in bytes (default 1 MiB). */
  maxBodyBytes?: number
  successStatus?: number
  /** Response body schema for the document (not enforced at run time). */
  response?: z.ZodType
  /**
   * Success bodies in other media types, which the handler answers as a Response of that type: the schema of
   * the body, or `null` for binary content (images).
   */
  media?: Record<string, z.ZodType | null>
  /**
   * The answer's JSON bytes, from an encoder written for this endpoint's answer (the term lookup's,
   * app/api/lookup-answer.server.ts; the validation's, validate-answer.server.ts): the same bytes as
   * `JSON.stringify`, faster on a hot path.
   */
  encode?(answer: never): Uint8Array
  /** Schema of each line when the client asks for a stream (`Accept: application/x-ndjson`). */
  ndjson?: z.ZodType
  /** Error codes worth listing in the document besides the common ones. */
  errors?: ErrorCode[]
  handler(ctx: HandlerContext<z.output<P>, z.output<Q>, z.output<B>>): Promise<unknown>
}

/** Declares an endpoint with its types inferred from its schemas. */
export function endpoint<
  P extends z.ZodType = z.ZodType<Record<string, never>>,
  Q extends z.ZodType = z.ZodType<Record<string, never>>,
  B extends z.ZodType = z.ZodType<undefined>,
>(def: Endpoint<P, Q, B>): Endpoint {
  return def as unknown as Endpoint
}
