import type { ClientInfo } from '#app/services/audit/audit.server.ts'
import type { Actor } from '#domain/identity.ts'

/** An actor that came with an API key: the only kind `/mcp` serves (no cookie, no session). */
export type KeyActor = Extract<Actor, { via: 'key' }>

/**
 * Who is calling over MCP, fixed for one HTTP request: the MCP server is made per request (stateless mode,
 * http.server.ts), so every tool and resource of it closes over its caller instead of reading it from the
 * SDK's `extra`.
 */
export interface McpCaller {
  actor: KeyActor
  /** The origin this service is reached at (`publicOrigin`), for the term page URLs tools hand out. */
  origin: string
  /** Where the request came from, for the audit log. */
  client: ClientInfo
}

/** The absolute address of a path of this service: agents cannot resolve a relative URL against anything. */
export function absoluteUrl(caller: McpCaller, path: string): string {
  return new URL(path, caller.origin).toString()
}

/** A term's page. */
export function termPageUrl(caller: McpCaller, slug: string): string {
  return absoluteUrl(caller, `/terms/${encodeURIComponent(slug)}`)
}
