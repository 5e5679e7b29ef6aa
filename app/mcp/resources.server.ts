import { ResourceTemplate, type McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import { ErrorCode, McpError, type ReadResourceResult } from '@modelcontextprotocol/sdk/types.js'
import { expectedError } from '#app/lib/errors.server.ts'
import { log } from '#app/lib/logger.server.ts'
import { textDefect } from '#app/lib/text-input.ts'
import { getTerm } from '#app/services/terms/read.server.ts'
import { styleSummary } from '#app/services/validation/style-summary.server.ts'
import type { McpCaller } from './caller.server.ts'
import { errorLine, missingScopeMessage } from './results.server.ts'
import { termView } from './term-tools.server.ts'

export const STYLE_SUMMARY_URI = 'glossary://style-summary'
export const TERM_URI_TEMPLATE = 'glossary://term/{slug}'

/**
 * The resources: a term by its address (`glossary://term/{slug}`, Markdown) and the glossary's style summary
 * (`glossary://style-summary`), both with the `read` scope. A resource cannot answer a tool error, so a
 * refusal is a JSON-RPC error with the same one line, and no data.
 */
export function registerResources(server: McpServer, caller: McpCaller): void {
  server.registerResource(
    'style-summary',
    STYLE_SUMMARY_URI,
    {
      title: 'Glossary style summary',
      description:
        'The glossary’s writing rules in a few kilobytes: forms not to write and what to write instead, deprecated terms, and the preferred forms. Keep it in context while writing; check single forms with lookup_terms.',
      mimeType: 'text/markdown',
    },
    (uri) =>
      readResource(caller, 'style-summary', async () => {
        const summary = await styleSummary()
        return { contents: [{ uri: uri.href, mimeType: 'text/markdown', text: summary.text }] }
      }),
  )

  server.registerResource(
    'term',
    // Not listed: a glossary has thousands of terms; an agent finds one with search_glossary or get_term.
    new ResourceTemplate(TERM_URI_TEMPLATE, { list: undefined }),
    {
      title: 'A glossary term',
      description:
        'One term by its slug (an id or an old slug also works): definition, notations with their kinds, status, revision and the URL of its page, as Markdown.',
      mimeType: 'text/markdown',
    },
    (uri, variables) =>
      readResource(caller, 'term', async () => {
        const slug = decodedSlug(String(variables.slug ?? ''))
        const term = termView(caller, await getTerm({ idOrSlug: slug }))
        return { contents: [{ uri: uri.href, mimeType: 'text/markdown', text: termMarkdown(term) }] }
      }),
  )
}

/** The slug of a term address, percent-decoded; malformed or invalid text is the caller's mistake. */
function decodedSlug(raw: string): string {
  let slug: string | undefined
  try {
    slug = decodeURIComponent(raw)
  } catch {
    slug = undefined
  }
  if (slug === undefined || !slug || textDefect(slug)) {
    throw new McpError(ErrorCode.InvalidParams, `"${raw.slice(0, 100)}" is not a term's slug.`)
  }
  return slug
}

/** Reads a resource for `caller`: the `read` scope first, failures as one line. */
async function readResource(
  caller: McpCaller,
  name: string,
  read: () => Promise<ReadResourceResult>,
): Promise<ReadResourceResult> {
  if (!caller.actor.scopes.includes('read')) {
    throw new McpError(ErrorCode.InvalidRequest, missingScopeMessage('read', `the ${name} resource`))
  }
  try {
    return await read()
  } catch (error) {
    if (error instanceof McpError) throw error
    const known = expectedError(error)
    if (known) throw new McpError(ErrorCode.InvalidParams, errorLine(known))
    log().error({ err: error, resource: name }, 'mcp resource failed')
    throw new McpError(ErrorCode.InternalError, 'internal_error: Something went wrong on the server.')
  }
}

/** A term as Markdown: the definition first, then what a writer needs (forms and their kinds). */
function termMarkdown(term: ReturnType<typeof termView>): string {
  const lines = [`# ${term.name}`, '']
  if (term.fullName) lines.push(`Full name: ${term.fullName}`)
  if (term.nameEn) lines.push(`English: ${term.nameEn}`)
  if (term.nameKo) lines.push(`Korean: ${term.nameKo}`)
  lines.push(`Status: ${term.status} · revision ${term.revision} · ${term.url}`, '')
  if (term.mergedInto) lines.push(`Merged into: ${term.mergedInto.name} (${term.mergedInto.slug})`, '')
  lines.push('## Definition', '', term.definition || '(none)', '')
  if (term.notations.length) {
    lines.push('## Notations', '')
    for (const n of term.notations) lines.push(`- ${n.text} (${n.kind}${n.lang ? `, ${n.lang}` : ''})`)
    lines.push('')
  }
  const classes = [...term.domains, ...term.categories]
  if (classes.length) lines.push(`Domains and categories: ${classes.join(', ')}`)
  if (term.tags.length) lines.push(`Tags: ${term.tags.join(', ')}`)
  if (term.body) lines.push('', '## Notes', '', term.body)
  return `${lines.join('\n').trimEnd()}\n`
}
