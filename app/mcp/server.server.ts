import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import { RELEASE } from '#domain/release.ts'
import type { McpCaller } from './caller.server.ts'
import { registerChatTools } from './chat-tools.server.ts'
import { registerResources } from './resources.server.ts'
import { registerTermTools } from './term-tools.server.ts'
import { registerValidationTools } from './validation-tools.server.ts'

const INSTRUCTIONS =
  'The organization’s glossary: look up and check terms before you write them. Read glossary://style-summary once and keep it in context; use validate_text on a draft and write the `preferred` form of every finding; get_term and search_glossary explain a term; ask_glossary answers a question with citations.'

/**
 * The MCP server of one request for one caller: every tool and resource closes over the caller (the key's
 * actor), so nothing of one request reaches another. Made per request in stateless mode (http.server.ts).
 */
export function createMcpServer(caller: McpCaller): McpServer {
  const server = new McpServer(
    { name: 'glossary', title: 'Glossary', version: RELEASE },
    { instructions: INSTRUCTIONS },
  )
  registerTermTools(server, caller)
  registerValidationTools(server, caller)
  registerChatTools(server, caller)
  registerResources(server, caller)
  return server
}
