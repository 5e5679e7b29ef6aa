import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js'
import { identify } from '#app/lib/auth-gate.server.ts'
import { AppError, toErrorResponse, validationError } from '#app/lib/errors.server.ts'
import { jsonResponse } from '#app/lib/held-bodies.ts'
import { jsonDepthProblem } from '#app/lib/json-depth.ts'
import { log } from '#app/lib/logger.server.ts'
import { publicOrigin } from '#app/lib/public-origin.server.ts'
import { decodeUtf8Text } from '#app/lib/text-input.ts'
import type { KeyActor } from './caller.server.ts'
import { createMcpServer } from './server.server.ts'

/** Where MCP is served (Streamable HTTP), outside `/api/v1`: it is one JSON-RPC endpoint, not a REST resource. */
export const MCP_PATH = '/mcp'

/** The largest request body: a `validate_text` call carries what POST /validate takes (11 MiB). */
export const MCP_MAX_BODY_BYTES = 11 * 1024 * 1024

export interface McpRequestMeta {
  requestId: string
  ip: string
  isHttps: boolean
}

/**
 * One MCP request (the web process's mount in app/server/http.server.ts reads the body, bounded, and hands a
 * Fetch `Request` here). Stateless Streamable HTTP: a new server and transport per POST, JSON answers, no
 * session id. Nothing an MCP session could hold is worth a server-side session here (every tool is one
 * service call; the chat keeps its conversation in the database and takes its id as an argument), and without
 * one any web replica answers any request, as the API does; so GET (a server-to-client stream) and DELETE (end
 * of a session) are 405.
 *
 * Only an API key opens it, through the one auth gate (`identify`): no key, an unknown, revoked or expired key,
 * or a cookie session alone is 401 in the API's envelope. The key's use is noted by the gate as for any API
 * call (`last_used_at`, key-cache.server.ts); each tool checks the key's scope and audits the call
 * (results.server.ts).
 */
export async function handleMcpRequest(
  request: Request,
  body: Uint8Array | undefined,
  meta: McpRequestMeta,
): Promise<Response> {
  try {
    const actor = await identify(request, meta.ip)
    if (actor?.via !== 'key') {
      throw new AppError(
        'unauthorized',
        'The MCP endpoint takes an API key: send "Authorization: Bearer glk_…" (a session cookie does not open it).',
        { headers: { 'WWW-Authenticate': 'Bearer realm="glossary"' } },
      )
    }
    if (request.method !== 'POST') {
      throw new AppError(
        'method_not_allowed',
        `${request.method} is not allowed on ${MCP_PATH}: this server is stateless; send JSON-RPC messages with POST.`,
        { headers: { Allow: 'POST' } },
      )
    }
    return await answer(request, readJsonRpc(body), actor, meta)
  } catch (error) {
    return toErrorResponse(error)
  }
}

/** The body as JSON, under the API's depth limit; malformed JSON is JSON-RPC's parse error. */
function readJsonRpc(body: Uint8Array | undefined): unknown {
  const text = decodeUtf8Text(body ?? new Uint8Array(), '(body)')
  const tooDeep = jsonDepthProblem(text, '(body)')
  if (tooDeep) throw validationError([tooDeep])
  try {
    return JSON.parse(text)
  } catch {
    return PARSE_ERROR
  }
}

const PARSE_ERROR = Symbol('parse error')

async function answer(
  request: Request,
  parsedBody: unknown,
  actor: KeyActor,
  meta: McpRequestMeta,
): Promise<Response> {
  if (parsedBody === PARSE_ERROR) {
    return jsonResponse(
      {
        jsonrpc: '2.0',
        error: { code: -32700, message: 'Parse error: the body is not valid JSON.' },
        id: null,
      },
      { status: 400, headers: { 'Content-Type': 'application/json; charset=utf-8' } },
    )
  }
  const caller = {
    actor,
    origin: publicOrigin({ headers: request.headers, isHttps: meta.isHttps }),
    client: { ip: meta.ip, userAgent: request.headers.get('user-agent') },
  }
  const server = createMcpServer(caller)
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: true,
  })
  try {
    await server.connect(transport)
    // In JSON mode the answer is complete when this resolves: every request of the body has been answered.
    return await transport.handleRequest(request, { parsedBody })
  } finally {
    await server.close().catch((err: unknown) => log().warn({ err }, 'could not close an MCP server'))
  }
}
