import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { getConfig } from '#app/lib/config.server.ts'
import { setLogDestination } from '#app/lib/logger.server.ts'
import { flushKeyUses } from '#app/services/auth/key-cache.server.ts'
import { matcherCache } from '#app/services/validation/matcher-cache.server.ts'
import { em } from '#db/orm.ts'
import { createApiKey, createTerm, createUser, type TestUser } from '#tests/factories.ts'
import { dispatch, useApiServer, type Json } from '#tests/http.ts'
import { drainIndexQueue } from '#tests/index-queue.ts'
import { startStandIn, STAND_IN_CHAT_MODEL, type StandIn } from '#tests/provider-stand-in.ts'
import { captureLogLines } from '#tests/log-lines.ts'
import { useTestDb } from '#tests/setup/db.ts'

useTestDb()
const server = useApiServer()

/**
 * MCP at /mcp (issue 32) with the SDK's own client over Streamable HTTP, against the web process on a real
 * 127.0.0.1 port: the tools and resources an agent sees, each tool's answer from the services, the key's
 * scopes (a tool error, never data), the HTTP refusals (401 in the API's envelope), the key's use recorded,
 * and search by meaning and the chatbot through provider stand-ins.
 */

let admin: TestUser
let agent: TestUser
/** The agent account's key with every scope a reader needs. */
let fullKey: Record<string, string>
let embed: StandIn
let llm: StandIn
const terms: Record<string, { id: string; slug: string }> = {}
const logLines: string[] = []
const clients: Client[] = []

async function connect(headers: Record<string, string>): Promise<Client> {
  const client = new Client({ name: 'glossary-test', version: '1.0.0' })
  const transport = new StreamableHTTPClientTransport(new URL(`${server.url()}/mcp`), {
    requestInit: { headers },
  })
  await client.connect(transport)
  clients.push(client)
  return client
}

async function call(client: Client, name: string, args: Record<string, unknown>) {
  const result = (await client.callTool({ name, arguments: args })) as CallToolResult
  const text = result.content.map((c) => (c.type === 'text' ? c.text : '')).join('')
  return {
    isError: result.isError === true,
    text,
    json: result.isError ? undefined : (JSON.parse(text) as Json),
  }
}

/** A raw POST to /mcp (for what the SDK's client would not send). */
async function post(headers: Record<string, string>, body: unknown) {
  const res = await fetch(`${server.url()}/mcp`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...headers,
    },
    body: JSON.stringify(body),
  })
  const text = await res.text()
  return {
    status: res.status,
    headers: res.headers,
    text,
    json: text ? (JSON.parse(text) as Json) : undefined,
  }
}

const INITIALIZE = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
}

beforeAll(async () => {
  captureLogLines(logLines)
  admin = await createUser({ role: 'admin' })
  agent = await createUser({ role: 'viewer', authType: 'agent' })
  fullKey = await createApiKey(agent.user.id, ['read', 'validate'])
  for (const [key, input] of Object.entries({
    gateway: {
      name: 'API Gateway',
      nameKo: 'API 게이트웨이',
      definition: 'The single entry point that routes calls to services.',
      notations: [
        { text: 'API GW', kind: 'admitted' as const, lang: 'en' },
        { text: 'API 관문', kind: 'deprecated' as const, lang: 'ko' },
      ],
    },
    batch: { name: 'Settlement Batch', definition: 'Nightly job that closes the ledger of the day.' },
    old: {
      name: 'Mainframe Link',
      definition: 'The former way to reach the ledger.',
      status: 'deprecated' as const,
    },
  })) {
    const term = await createTerm(input)
    terms[key] = { id: term.id, slug: term.slug }
  }
  await matcherCache.whenIdle()
})

afterEach(async () => {
  for (const client of clients.splice(0)) await client.close()
})

afterAll(async () => {
  setLogDestination()
  await embed?.close()
  await llm?.close()
})

describe('what an agent sees', () => {
  it('lists the tools with their input schemas and the resources', async () => {
    const client = await connect(fullKey)
    expect(client.getServerVersion()?.name).toBe('glossary')
    expect(client.getInstructions()).toMatch(/style-summary/)
    const { tools } = await client.listTools()
    expect(tools.map((t) => t.name).sort()).toEqual([
      'ask_glossary',
      'get_term',
      'lookup_terms',
      'search_glossary',
      'validate_text',
    ])
    const validate = tools.find((t) => t.name === 'validate_text')!
    expect(Object.keys(validate.inputSchema.properties ?? {}).sort()).toEqual([
      'includePreferred',
      'markup',
      'text',
    ])
    expect(validate.inputSchema.required).toEqual(['text'])
    const { resources } = await client.listResources()
    expect(resources.map((r) => r.uri)).toEqual(['glossary://style-summary'])
    const { resourceTemplates } = await client.listResourceTemplates()
    expect(resourceTemplates.map((r) => r.uriTemplate)).toEqual(['glossary://term/{slug}'])
  })

  it('answers without a session: no Mcp-Session-Id, and GET and DELETE are 405', async () => {
    const init = await post(fullKey, INITIALIZE)
    expect(init.status).toBe(200)
    expect(init.headers.get('mcp-session-id')).toBeNull()
    expect(init.json.result.serverInfo.name).toBe('glossary')
    expect(init.headers.get('x-request-id')).toBeTruthy()
    expect(init.headers.get('content-security-policy')).toContain("default-src 'none'")
    for (const method of ['GET', 'DELETE']) {
      const res = await fetch(`${server.url()}/mcp`, { method, headers: fullKey })
      expect(res.status).toBe(405)
      expect(res.headers.get('allow')).toBe('POST')
      expect(((await res.json()) as Json).error.code).toBe('method_not_allowed')
    }
  })
})

describe('tools', () => {
  it('lookup_terms: the terms of the notations, with the preferred form', async () => {
    const client = await connect(fullKey)
    const { isError, json } = await call(client, 'lookup_terms', {
      texts: ['API GW', 'API 관문', 'nothing here'],
    })
    expect(isError).toBe(false)
    expect(json.asked).toBe(3)
    expect(json.found).toBe(2)
    expect(json.notFound).toEqual(['nothing here'])
    const [admitted, deprecated] = json.results
    expect(admitted.matches[0]).toMatchObject({
      term: { slug: terms.gateway!.slug, name: 'API Gateway' },
      notation: 'API GW',
      kind: 'admitted',
      finding: 'admitted-notation',
      preferred: 'API Gateway',
    })
    expect(admitted.matches[0].url).toBe(`${getConfig().allowedOrigins[0]}/terms/${terms.gateway!.slug}`)
    expect(deprecated.matches[0]).toMatchObject({ kind: 'deprecated', preferred: 'API 게이트웨이' })
  })

  it('validate_text: findings with the preferred form, markup as the API takes it', async () => {
    const client = await connect(fullKey)
    const text = 'Calls go through the API 관문. `API 관문` in code is not prose.'
    const plain = await call(client, 'validate_text', { text })
    expect(plain.isError).toBe(false)
    expect(plain.json.summary).toMatchObject({ occurrences: 2, error: 2 })
    expect(plain.json.findings[0]).toMatchObject({
      text: 'API 관문',
      start: text.indexOf('API 관문'),
      line: 1,
      finding: 'deprecated-notation',
      severity: 'error',
      preferred: 'API 게이트웨이',
      term: { slug: terms.gateway!.slug },
    })
    const markdown = await call(client, 'validate_text', { text, markup: 'markdown' })
    expect(markdown.json.summary.occurrences).toBe(1)
    const refused = await call(client, 'validate_text', { text, markup: 'html' })
    expect(refused.isError).toBe(true)
  })

  it('get_term: by slug, by id and by name or notation; an unknown one is a tool error', async () => {
    const client = await connect(fullKey)
    const bySlug = await call(client, 'get_term', { term: terms.gateway!.slug })
    expect(bySlug.json).toMatchObject({
      id: terms.gateway!.id,
      name: 'API Gateway',
      status: 'active',
      revision: 1,
      definition: 'The single entry point that routes calls to services.',
    })
    expect(bySlug.json.notations).toContainEqual({ text: 'API 관문', kind: 'deprecated', lang: 'ko' })
    expect(bySlug.json.url).toMatch(new RegExp(`^https?://[^/]+/terms/${terms.gateway!.slug}$`))
    expect((await call(client, 'get_term', { term: terms.gateway!.id })).json.id).toBe(terms.gateway!.id)
    expect((await call(client, 'get_term', { term: 'api gw' })).json.id).toBe(terms.gateway!.id)
    expect((await call(client, 'get_term', { term: 'Settlement Batch' })).json.id).toBe(terms.batch!.id)
    const unknown = await call(client, 'get_term', { term: 'no such thing' })
    expect(unknown).toMatchObject({ isError: true })
    expect(unknown.text).toMatch(/^not_found: /)
  })

  it('search_glossary: names only while search by meaning is off, and says so', async () => {
    const client = await connect(fullKey)
    const { json } = await call(client, 'search_glossary', { query: 'gateway' })
    expect(json.meaningSearch).toBe('off')
    expect(json.note).toMatch(/name and notation matches only/)
    expect(json.byName.items.map((t: Json) => t.slug)).toEqual([terms.gateway!.slug])
    expect(json.byMeaning).toBeUndefined()
  })

  it('ask_glossary says so while the chatbot is off', async () => {
    const client = await connect(fullKey)
    const result = await call(client, 'ask_glossary', { question: 'What is the API gateway?' })
    expect(result.isError).toBe(true)
    expect(result.text).toMatch(/^rag_not_ready: The chatbot is switched off/)
  })

  it('refuses text the API refuses (the text rule) as a tool error', async () => {
    const client = await connect(fullKey)
    const result = await call(client, 'lookup_terms', { texts: ['bad\u0000text'] })
    expect(result.isError).toBe(true)
    expect(result.text).toMatch(/^validation_failed: .*NUL/)
  })
})

describe('resources', () => {
  it('reads a term as Markdown and the style summary', async () => {
    const client = await connect(fullKey)
    const term = await client.readResource({ uri: `glossary://term/${terms.gateway!.slug}` })
    const text = (term.contents[0] as { text: string }).text
    expect(term.contents[0]!.mimeType).toBe('text/markdown')
    expect(text).toMatch(/^# API Gateway\n/)
    expect(text).toContain('- API 관문 (deprecated, ko)')
    expect(text).toContain('The single entry point that routes calls to services.')

    const summary = await client.readResource({ uri: 'glossary://style-summary' })
    const rules = (summary.contents[0] as { text: string }).text
    expect(rules).toContain('- API 관문 → API 게이트웨이')
    expect(rules).toContain('- Mainframe Link')
    expect(rules).toMatch(/- API Gateway: .*API 게이트웨이/)
    await expect(client.readResource({ uri: 'glossary://term/no-such-term' })).rejects.toThrow(/not_found/)
    await expect(client.readResource({ uri: 'glossary://term/%E0%A4%A' })).rejects.toThrow(
      /is not a term's slug/,
    )
  })
})

describe('access', () => {
  it('a key without the tool’s scope gets a tool error and no data', async () => {
    const readOnly = await connect(await createApiKey(agent.user.id, ['read']))
    const refused = await call(readOnly, 'validate_text', { text: 'API 관문' })
    expect(refused.isError).toBe(true)
    expect(refused.text).toBe(
      'forbidden: This API key lacks the "validate" scope, which validate_text needs.',
    )
    expect(refused.text).not.toContain('게이트웨이')

    const validateOnly = await connect(await createApiKey(agent.user.id, ['validate']))
    for (const [name, args] of [
      ['lookup_terms', { texts: ['API GW'] }],
      ['get_term', { term: terms.gateway!.slug }],
      ['search_glossary', { query: 'gateway' }],
      ['ask_glossary', { question: 'What is the API gateway?' }],
    ] as const) {
      const result = await call(validateOnly, name, args)
      expect(result.isError, name).toBe(true)
      expect(result.text).toContain('lacks the "read" scope')
      expect(result.text).not.toContain('API Gateway')
    }
    await expect(validateOnly.readResource({ uri: 'glossary://style-summary' })).rejects.toThrow(
      /lacks the "read" scope/,
    )
    expect((await call(validateOnly, 'validate_text', { text: 'API 관문' })).isError).toBe(false)
  })

  it('no key, a cookie session alone, an unknown and a revoked key are 401 in the envelope', async () => {
    const { token, id } = await issue(['read'])
    const revokedKey = { authorization: `Bearer ${token}` }
    expect((await post(revokedKey, INITIALIZE)).status).toBe(200)
    const revoke = await dispatch(`/keys/${id}`, { method: 'DELETE', headers: agent.sessionHeaders })
    expect(revoke.status).toBe(204)
    for (const headers of [
      {} as Record<string, string>,
      { cookie: admin.sessionHeaders.cookie! },
      { authorization: 'Bearer glk_00000000_notarealkeynotarealkeynotarealkey' },
      revokedKey,
    ]) {
      const res = await post(headers, INITIALIZE)
      expect(res.status).toBe(401)
      expect(res.json.error.code).toBe('unauthorized')
      expect(res.headers.get('www-authenticate')).toMatch(/^Bearer/)
    }
    await expect(connect({})).rejects.toThrow()
  })

  it('records the key’s use, as an API call does, audits the call and logs it, never its arguments', async () => {
    const { token, id } = await issue(['read'])
    const client = await connect({ authorization: `Bearer ${token}` })
    await call(client, 'lookup_terms', { texts: ['secret-ish text qzxvbkw'] })
    await flushKeyUses()
    const [row] = await em().execute<{ last_used_at: Date | null }[]>(
      'select last_used_at from api_keys where id = ?',
      [id],
    )
    expect(row!.last_used_at).not.toBeNull()
    const line = logLines
      .map((l) => JSON.parse(l) as Json)
      .find((l) => l.tool === 'lookup_terms' && l.keyId === id)
    expect(line).toMatchObject({ msg: 'mcp tool call', outcome: 'ok', userId: agent.user.id })
    expect(logLines.join('\n')).not.toContain('qzxvbkw')
    // Audited as the key's call: its account and key, the tool and how it ended, never the arguments.
    const audits = await em().execute<
      { actor_user_id: string; actor_label: string; target_id: string; details: unknown }[]
    >(
      `select actor_user_id, actor_label, target_id, details from audit_log
        where action = 'mcp.tool_call' and target_id = ?`,
      [id],
    )
    expect(audits).toHaveLength(1)
    expect(audits[0]).toMatchObject({ actor_user_id: agent.user.id, target_id: id })
    expect(audits[0]!.actor_label).toContain(`(key ${id})`)
    const details =
      typeof audits[0]!.details === 'string' ? JSON.parse(audits[0]!.details) : audits[0]!.details
    expect(details).toEqual({ tool: 'lookup_terms', outcome: 'ok' })
    expect(JSON.stringify(audits)).not.toContain('qzxvbkw')
  })
})

/** A key of the agent whose id the test needs. */
async function issue(scopes: ('read' | 'validate')[]) {
  const { issueApiKey } = await import('#app/services/auth/api-keys.server.ts')
  const { key, token } = await issueApiKey({ userId: agent.user.id, name: 'mcp test', scopes })
  return { token, id: key.id }
}

describe('with search by meaning and the chatbot on', () => {
  beforeAll(async () => {
    embed = await startStandIn()
    llm = await startStandIn()
    const rag = await dispatch('/admin/rag-config', {
      method: 'PATCH',
      headers: admin.sessionHeaders,
      body: {
        enabled: true,
        chatEnabled: true,
        embeddingBaseUrl: embed.url,
        embeddingModel: 'text-embed-small',
        chunkSize: 400,
        chunkOverlap: 50,
      },
    })
    expect(rag.status, await rag.clone().text()).toBe(200)
    const provider = await dispatch('/admin/ai-provider', {
      method: 'PATCH',
      headers: admin.sessionHeaders,
      body: { provider: 'alpha_compatible', baseUrl: llm.url, model: STAND_IN_CHAT_MODEL },
    })
    expect(provider.status, await provider.clone().text()).toBe(200)
    await drainIndexQueue()
  })

  it('search_glossary also searches by meaning', async () => {
    const client = await connect(fullKey)
    const { json } = await call(client, 'search_glossary', { query: 'nightly job that closes the ledger' })
    expect(json.meaningSearch).toBe('on')
    expect(json.byName.items).toEqual([])
    expect(json.byMeaning.items[0]).toMatchObject({ slug: terms.batch!.slug, name: 'Settlement Batch' })
    expect(json.byMeaning.items[0].url).toMatch(new RegExp(`/terms/${terms.batch!.slug}$`))
  })

  it('search_glossary keeps the name matches when the provider fails, and says so', async () => {
    const client = await connect(fullKey)
    embed.failAll(500)
    try {
      const { json } = await call(client, 'search_glossary', { query: 'Settlement Batch' })
      expect(json.meaningSearch).toBe('failed')
      expect(json.note).toMatch(/^Search by meaning failed/)
      expect(json.byName.items.map((t: Json) => t.slug)).toEqual([terms.batch!.slug])
    } finally {
      embed.failAll(null)
    }
  })

  it('ask_glossary answers with citations, in a conversation of the key’s user', async () => {
    const client = await connect(fullKey)
    const first = await call(client, 'ask_glossary', { question: 'Which nightly job closes the ledger?' })
    expect(first.isError, first.text).toBe(false)
    expect(first.json.answer).toMatch(/\[G1\]/)
    const cited = first.json.citations.find((c: Json) => c.label === 'G1')
    expect(cited).toMatchObject({ type: 'term', slug: terms.batch!.slug, official: true })
    expect(cited.url).toMatch(new RegExp(`^https?://[^/]+/terms/${terms.batch!.slug}\\?revision=1$`))
    const [owner] = await em().execute<{ user_id: string }[]>(
      'select user_id from chat_conversations where id = ?',
      [first.json.conversationId],
    )
    expect(owner!.user_id).toBe(agent.user.id)
    const followUp = await call(client, 'ask_glossary', {
      question: 'And when does it run?',
      conversationId: first.json.conversationId,
    })
    expect(followUp.json.conversationId).toBe(first.json.conversationId)
    // Another user's conversation is not found, as on the chat page.
    const other = await connect(await createApiKey(admin.user.id, ['read']))
    const foreign = await call(other, 'ask_glossary', {
      question: 'And then?',
      conversationId: first.json.conversationId,
    })
    expect(foreign.isError).toBe(true)
    expect(foreign.text).toMatch(/^not_found: /)
  })
})
