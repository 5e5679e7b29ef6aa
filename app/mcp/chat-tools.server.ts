import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import { ChatRequestSchema } from '#app/schemas/chat.ts'
import { askChat } from '#app/services/chat/chat.server.ts'
import { absoluteUrl, type McpCaller } from './caller.server.ts'
import { capList, clip, RESULT_LIMITS, runTool } from './results.server.ts'

/**
 * `ask_glossary`: the chatbot (POST /chat) for an API key. A conversation belongs to a user, and a key always
 * belongs to one (a person's personal key, or an agent account's key: an `agent` user), so the key's user owns
 * the conversation, as a session's user does on the chat page; its per-user rate limit and the switch
 * `chatEnabled` apply unchanged (they are the service's). The REST endpoint stays session-only; here the
 * `read` scope is asked, as for the other reading tools: the answer reads the glossary, and the only row it
 * writes is the caller's own history.
 */
export function registerChatTools(server: McpServer, caller: McpCaller): void {
  server.registerTool(
    'ask_glossary',
    {
      title: 'Ask the glossary',
      description:
        'Asks the glossary’s chatbot a question. The answer is written from glossary terms, published wiki pages and meeting records, cites them by label ([G1] a term, [W1] a wiki page, [M1] a meeting) and lists the citations with their URLs. Pass `conversationId` from an earlier answer to ask a follow-up in the same conversation. Fails when an administrator has not switched the chatbot on.',
      inputSchema: {
        question: ChatRequestSchema.shape.message,
        conversationId: ChatRequestSchema.shape.conversationId,
      },
      annotations: { readOnlyHint: false, openWorldHint: false },
    },
    (args) =>
      runTool(caller, { name: 'ask_glossary', scope: 'read' }, args, async () => {
        const answer = await askChat({
          userId: caller.actor.user.id,
          message: args.question,
          conversationId: args.conversationId,
        })
        const citations = capList(answer.citations, RESULT_LIMITS.items)
        return {
          conversationId: answer.conversationId,
          answer: clip(answer.answer, RESULT_LIMITS.textChars * 4),
          searchMode: answer.searchMode,
          citations: citations.items.map((c) => ({
            label: c.label,
            type: c.type,
            title: c.title,
            ...(c.slug === undefined ? {} : { slug: c.slug }),
            ...(c.revision === undefined ? {} : { revision: c.revision }),
            ...(c.meetingDate === undefined ? {} : { meetingDate: c.meetingDate }),
            official: c.official,
            url: absoluteUrl(caller, c.url),
            snippet: clip(c.snippet, RESULT_LIMITS.snippetChars),
          })),
          ...(citations.omitted ? { omittedCitations: citations.omitted, truncated: true } : {}),
        }
      }),
  )
}
