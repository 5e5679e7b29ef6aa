import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startService, type RunningService } from './harness.ts'
import { apiOf, useAdminAndViewer } from './use-app.ts'

/**
 * The MCP server of the built app (issue 32), as an agent meets it: the SDK's own client over Streamable HTTP
 * against `glossary start`, authenticated by an API key made through the API: it lists the tools, calls them,
 * and a revoked key is refused. (tests/integration/mcp/ covers every tool and rule in depth.)
 */
const app = {} as { service: RunningService }
beforeAll(async () => {
  app.service = await startService('start')
})
afterAll(async () => {
  await app.service?.stop()
})
const accounts = useAdminAndViewer(app)
const api = apiOf(app)

async function issueKey(scopes: string[]): Promise<{ id: string; token: string }> {
  const res = await api('/keys', { method: 'POST', cookie: accounts.admin, body: { name: 'agent', scopes } })
  expect(res.status, await res.clone().text()).toBe(201)
  const body = (await res.json()) as { key: { id: string }; token: string }
  return { id: body.key.id, token: body.token }
}

async function connect(token: string): Promise<Client> {
  const client = new Client({ name: 'glossary-e2e', version: '1.0.0' })
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${app.service.url}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${token}` } },
    }),
  )
  return client
}

const textOf = (result: CallToolResult) => (result.content[0] as { text: string }).text

describe('MCP on the running service', () => {
  beforeAll(async () => {
    const res = await api('/terms', {
      method: 'POST',
      cookie: accounts.admin,
      body: {
        name: 'Settlement ledger',
        definition: 'The book into which every account settles.',
        notations: [{ text: 'SL book', kind: 'deprecated', lang: null }],
      },
    })
    expect(res.status).toBe(201)
  })

  it('lists the tools and answers them for a key with the scopes', async () => {
    const { token } = await issueKey(['read', 'validate'])
    const client = await connect(token)
    try {
      const tools = (await client.listTools()).tools.map((t) => t.name).sort()
      expect(tools).toEqual(['ask_glossary', 'get_term', 'lookup_terms', 'search_glossary', 'validate_text'])
      const term = (await client.callTool({
        name: 'get_term',
        arguments: { term: 'Settlement ledger' },
      })) as CallToolResult
      expect(term.isError).toBeFalsy()
      expect(textOf(term)).toContain('The book into which every account settles.')
      const checked = (await client.callTool({
        name: 'validate_text',
        arguments: { text: 'Close the SL book at six.' },
      })) as CallToolResult
      expect(textOf(checked)).toContain('Settlement ledger')
      expect(textOf(checked)).toContain('deprecated-notation')
    } finally {
      await client.close()
    }
  })

  it('refuses a key that was revoked', async () => {
    const { id, token } = await issueKey(['read'])
    const client = await connect(token)
    await client.close()
    const revoked = await api(`/keys/${id}`, { method: 'DELETE', cookie: accounts.admin })
    expect(revoked.status).toBeLessThan(300)
    await expect(connect(token)).rejects.toThrow()
    const res = await fetch(`${app.service.url}/mcp`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${token}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    })
    expect(res.status).toBe(401)
  })
})
