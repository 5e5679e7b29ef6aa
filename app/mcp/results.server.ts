import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js'
import { expectedError, type AppError, type Problem } from '#app/lib/errors.server.ts'
import { log } from '#app/lib/logger.server.ts'
import { textProblems } from '#app/lib/text-input.ts'
import { auditActorOf, recordAudit } from '#app/services/audit/audit.server.ts'
import type { Scope } from '#domain/identity.ts'
import type { McpCaller } from './caller.server.ts'

/**
 * What every tool call goes through: the key's scope (the same as the REST endpoint the tool mirrors), the
 * API's text rule on the arguments, the service call, an audit row (`mcp.tool_call`: the key's account and
 * key, the tool, how it ended; never the arguments) and one log line; a failure becomes a tool error
 * (`isError: true`, one clear line, never data), never a JSON-RPC error, so the agent reads why.
 *
 * Results are bounded: an agent keeps them in its context, so lists are capped and long texts cut, and the
 * answer says so (`truncated`, `omitted`).
 */
export const RESULT_LIMITS = {
  /** Items of a list answer (terms, search hits, citations). */
  items: 50,
  /** Findings of one `validate_text` answer. */
  occurrences: 200,
  /** Matches of one `lookup_terms` answer, over all texts. */
  matches: 300,
  /** Characters of one long text (a definition, a body, a passage, an answer). */
  textChars: 4000,
  /** Characters of a snippet or passage in a list. */
  snippetChars: 500,
  /** Characters of one tool answer as a whole: past it the answer is refused rather than cut mid-JSON. */
  resultChars: 200_000,
} as const

/** A long text cut to `max` characters (never inside a surrogate pair), with a mark that it was cut. */
export function clip(text: string, max: number = RESULT_LIMITS.textChars): string {
  if (text.length <= max) return text
  let end = max
  const code = text.charCodeAt(end - 1)
  if (code >= 0xd800 && code <= 0xdbff) end--
  return `${text.slice(0, end)}… [truncated: ${text.length - end} more characters]`
}

/** The first `max` items and how many were left out (0 when none). */
export function capList<T>(items: readonly T[], max: number): { items: T[]; omitted: number } {
  return { items: items.slice(0, max), omitted: Math.max(0, items.length - max) }
}

/** A tool's answer: its data as one JSON text (what MCP clients hand to the model). */
export function jsonResult(data: unknown): CallToolResult {
  const text = JSON.stringify(data)
  if (text.length > RESULT_LIMITS.resultChars) {
    return errorResult(
      `The answer would be ${text.length} characters, more than the ${RESULT_LIMITS.resultChars} this server returns; ask for less (a shorter text, fewer items).`,
    )
  }
  return { content: [{ type: 'text', text }] }
}

/** A tool error: one line for the agent, no data. */
export function errorResult(message: string): CallToolResult {
  return { content: [{ type: 'text', text: message }], isError: true }
}

/** The message of a key that lacks `scope`: the same words as the API's 403. */
export function missingScopeMessage(scope: Scope, what: string): string {
  return `forbidden: This API key lacks the "${scope}" scope, which ${what} needs.`
}

/** An expected failure in one line: its code, its message and the first problems of a refused input. */
export function errorLine(error: AppError): string {
  const problems = (error.details?.problems ?? []) as Problem[]
  const listed = problems
    .slice(0, 5)
    .map((p) => `${p.path}: ${p.message}`)
    .join('; ')
  return `${error.code}: ${error.message}${listed ? ` (${listed})` : ''}`
}

export interface ToolRule {
  name: string
  /** The scope of the REST endpoint the tool mirrors. */
  scope: Scope
}

/**
 * Runs one tool call for `caller` under `rule` (scope, text rule, error mapping, log line). `call` is the
 * service call; what it returns is the tool's JSON answer, already bounded by the tool.
 */
export async function runTool(
  caller: McpCaller,
  rule: ToolRule,
  args: unknown,
  call: () => Promise<unknown>,
): Promise<CallToolResult> {
  const started = process.hrtime.bigint()
  const outcome = async (result: CallToolResult, code: string): Promise<CallToolResult> => {
    const ms = Number(process.hrtime.bigint() - started) / 1e6
    // Who called what and how it ended; never the arguments (texts an agent sends may be anything).
    log().info(
      { tool: rule.name, keyId: caller.actor.keyId, userId: caller.actor.user.id, outcome: code, ms },
      'mcp tool call',
    )
    // Audited as the key's call (issue 32). A record that cannot be written never fails the call it describes.
    await recordAudit({
      action: 'mcp.tool_call',
      actor: auditActorOf(caller.actor),
      target: { type: 'api_key', id: caller.actor.keyId },
      client: caller.client,
      details: { tool: rule.name, outcome: code },
    }).catch((err: unknown) => log().warn({ err, tool: rule.name }, 'mcp tool call: audit record failed'))
    return result
  }
  if (!caller.actor.scopes.includes(rule.scope)) {
    return outcome(errorResult(missingScopeMessage(rule.scope, rule.name)), 'forbidden')
  }
  const problems = textProblems(args, '')
  if (problems.length) {
    const first = problems.map((p) => `${p.path || '(argument)'} ${p.message}`).join('; ')
    return outcome(errorResult(`validation_failed: ${first}`), 'validation_failed')
  }
  try {
    return outcome(jsonResult(await call()), 'ok')
  } catch (error) {
    const known = expectedError(error)
    if (known) return outcome(errorResult(errorLine(known)), known.code)
    log().error({ err: error, tool: rule.name }, 'mcp tool failed')
    return outcome(errorResult('internal_error: Something went wrong on the server.'), 'internal_error')
  }
}
