import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { matcherCache } from '#app/services/validation/matcher-cache.server.ts'
import { STYLE_SUMMARY_MAX_CHARS } from '#app/services/validation/style-summary.server.ts'
import { RESULT_LIMITS } from '#app/mcp/results.server.ts'
import { createApiKey, createTerm, createUser } from '#tests/factories.ts'
import { useApiServer, type Json } from '#tests/http.ts'
import { useTestDb } from '#tests/setup/db.ts'

useTestDb()
const server = useApiServer()

/**
 * What keeps MCP answers small enough for an agent's context (issue 32): capped lists that say how much they
 * left out, cut texts that say so, and a style summary that stops at its size with a note.
 */

let client: Client

async function call(name: string, args: Record<string, unknown>) {
  const result = (await client.callTool({ name, arguments: args })) as CallToolResult
  const text = result.content.map((c) => (c.type === 'text' ? c.text : '')).join('')
  expect(result.isError ?? false, text).toBe(false)
  return JSON.parse(text) as Json
}

const LONG = 'x'.repeat(170)

beforeAll(async () => {
  const agent = await createUser({ authType: 'agent' })
  await createTerm({
    name: 'Widget',
    slug: 'widget',
    definition: 'd'.repeat(9000),
    notations: [{ text: 'Wdgt', kind: 'deprecated', lang: null }],
  })
  // Enough long deprecated notations that the style summary cannot hold them all.
  for (let i = 0; i < 80; i++) {
    const n = String(i).padStart(2, '0')
    await createTerm({
      name: `Bound ${n} ${LONG}`,
      slug: `bound-${n}`,
      notations: [{ text: `Old ${n} ${LONG}`, kind: 'deprecated', lang: null }],
    })
  }
  await matcherCache.whenIdle()
  client = new Client({ name: 'bounds-test', version: '1.0.0' })
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${server.url()}/mcp`), {
      requestInit: { headers: await createApiKey(agent.user.id, ['read', 'validate']) },
    }),
  )
})

afterAll(async () => {
  await client?.close()
})

describe('bounded answers', () => {
  it('validate_text lists at most 200 findings, errors first, and counts them all', async () => {
    const text = `${'Widget. '.repeat(100)}${'Wdgt. '.repeat(150)}`
    const json = await call('validate_text', { text })
    expect(json.summary).toMatchObject({ occurrences: 250, error: 150, none: 100 })
    expect(json.findings).toHaveLength(RESULT_LIMITS.occurrences)
    expect(json.findings.filter((f: Json) => f.severity === 'error')).toHaveLength(150)
    expect(json).toMatchObject({ omittedFindings: 50, truncated: true })
    // Still in the text's order.
    const starts = json.findings.map((f: Json) => f.start)
    expect(starts).toEqual([...starts].sort((a, b) => a - b))
  })

  it('lookup_terms lists at most 300 matches and says how many it left out', async () => {
    const json = await call('lookup_terms', { texts: Array.from({ length: 500 }, () => 'Wdgt') })
    expect(json.found).toBe(500)
    const shown = json.results.reduce((sum: number, r: Json) => sum + r.matches.length, 0)
    expect(shown).toBe(RESULT_LIMITS.matches)
    expect(json).toMatchObject({ omittedMatches: 200, truncated: true })
  })

  it('get_term cuts a long definition and says so', async () => {
    const json = await call('get_term', { term: 'widget' })
    expect(json.definition.length).toBeLessThan(RESULT_LIMITS.textChars + 100)
    expect(json.definition).toMatch(/… \[truncated: 5000 more characters\]$/)
  })

  it('the style summary stops at its size and says how much it left out', async () => {
    const read = await client.readResource({ uri: 'glossary://style-summary' })
    const text = (read.contents[0] as { text: string }).text
    expect(text.length).toBeLessThanOrEqual(STYLE_SUMMARY_MAX_CHARS)
    expect(text).toContain(`- Old 00 ${LONG} → Bound 00 ${LONG}`)
    expect(text).not.toContain(`- Old 79 ${LONG}`)
    expect(text).toMatch(
      /\(\d+ more lines not shown: check a form with the lookup_terms or validate_text tools\.\)\n$/,
    )
  })
})
