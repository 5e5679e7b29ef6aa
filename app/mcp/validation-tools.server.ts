import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import { ValidateSchema } from '#app/schemas/validation.ts'
import { validateText, type Occurrence } from '#app/services/validation/validate.server.ts'
import { termPageUrl, type McpCaller } from './caller.server.ts'
import { RESULT_LIMITS, runTool } from './results.server.ts'

/** `validate_text`: POST /validate for one text, with its `validate` scope. */
export function registerValidationTools(server: McpServer, caller: McpCaller): void {
  server.registerTool(
    'validate_text',
    {
      title: 'Check a text against the glossary',
      description:
        'Checks a text as POST /api/v1/validate does: every use of a term’s name or notation with its finding and the preferred form to write instead. Severities: a deprecated notation is an error (write `preferred`), a deprecated term a warning, a wrong letter case a warning (by default), an admitted notation info, a correct use none. Offsets are UTF-16 code units of the text; lines and columns 1-based. With markup "markdown" only the prose is checked. At most 200 findings are listed (errors and warnings first when there are more); the summary counts them all.',
      inputSchema: {
        text: ValidateSchema.shape.text,
        markup: ValidateSchema.shape.markup,
        includePreferred: ValidateSchema.shape.includePreferred,
      },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    (args) =>
      runTool(caller, { name: 'validate_text', scope: 'validate' }, args, async () => {
        const { occurrences, summary, glossary } = await validateText(args)
        const { shown, omitted } = mostSevereFirst(occurrences, RESULT_LIMITS.occurrences)
        return {
          summary,
          glossaryVersion: glossary.version,
          findings: shown.map((o) => ({
            text: o.text,
            start: o.start,
            end: o.end,
            line: o.line,
            column: o.column,
            finding: o.finding,
            severity: o.severity,
            preferred: o.preferred,
            kind: o.kind,
            term: { slug: o.term.slug, name: o.term.name, status: o.term.status },
            url: termPageUrl(caller, o.term.slug),
          })),
          ...(omitted ? { omittedFindings: omitted, truncated: true } : {}),
        }
      }),
  )
}

const SEVERITY_ORDER = { error: 0, warning: 1, info: 2, none: 3 } as const

/**
 * At most `max` findings in the text's order; when there are more, the most severe are kept (an agent must
 * see what to fix before the correct uses).
 */
function mostSevereFirst(
  occurrences: readonly Occurrence[],
  max: number,
): { shown: Occurrence[]; omitted: number } {
  if (occurrences.length <= max) return { shown: [...occurrences], omitted: 0 }
  const kept = new Set(
    occurrences
      .map((o, index) => ({ o, index }))
      .sort((a, b) => SEVERITY_ORDER[a.o.severity] - SEVERITY_ORDER[b.o.severity] || a.index - b.index)
      .slice(0, max)
      .map(({ index }) => index),
  )
  return { shown: occurrences.filter((_, index) => kept.has(index)), omitted: occurrences.length - max }
}
