import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { openApiDocument } from '#app/api/registry.server.ts'
import { AppError } from '#app/lib/errors.server.ts'
import { chatModelFor, loadLlmSettings } from '#app/services/ai/llm-settings.server.ts'
import { em } from '#db/orm.ts'
import { createApiKey, createUser, type TestUser } from '#tests/factories.ts'
import { dispatch } from '#tests/http.ts'
import { STAND_IN_CHAT_MODEL, startStandIn, type StandIn } from '#tests/provider-stand-in.ts'
import { useTestDb } from '#tests/setup/db.ts'

useTestDb()

/**
 * The chat's AI (LLM) provider settings (issue 29): admin session only; the search settings' secret rules (a
 * write-only key and header values, empty keeps, `null` deletes, at most 20 headers, no line breaks, http(s)
 * only, secrets follow their address); the model list and the one-token test against the provider stand-in on
 * 127.0.0.1; the audit records of both settings pages naming fields, never values; and what the chat runs with
 * (`loadLlmSettings`, `chatModelFor`).
 */

let admin: TestUser
let editor: TestUser
let provider: StandIn
let other: StandIn
const SECRET = 'sk-llm-SECRET-value-1234567890'
const HEADER_SECRET = 'hdr-llm-SECRET-abcdef'

beforeAll(async () => {
  admin = await createUser({ role: 'admin' })
  editor = await createUser({ role: 'editor' })
  provider = await startStandIn()
  other = await startStandIn()
})
afterAll(async () => {
  await provider.close()
  await other.close()
})

type Json = Record<string, unknown>
const patch = (body: unknown, headers = admin.sessionHeaders) =>
  dispatch('/admin/ai-provider', { method: 'PATCH', headers, body })
const read = async (): Promise<Json> => {
  const res = await dispatch('/admin/ai-provider', { headers: admin.sessionHeaders })
  expect(res.status).toBe(200)
  const text = await res.text()
  expect(text).not.toContain('SECRET')
  return JSON.parse(text) as Json
}
const errorOf = async (res: Response) =>
  ((await res.json()) as { error: { code: string; details?: Json } }).error

async function lastAudit(action: string): Promise<{ details: Json; row: string }> {
  const [row] = await em().execute<{ details: string; row: string }[]>(
    `select details::text as details, row_to_json(a)::text as row
       from audit_log a where action = ? order by at desc, id desc limit 1`,
    [action],
  )
  expect(row, `an audit record ${action}`).toBeDefined()
  return { details: JSON.parse(row!.details) as Json, row: row!.row }
}

describe('GET/PATCH /admin/ai-provider', () => {
  it('defaults: not configured, no key, the documented temperature and answer length', async () => {
    expect(await read()).toMatchObject({
      provider: 'alpha_compatible',
      baseUrl: '',
      model: '',
      hasApiKey: false,
      customHeaders: [],
      temperature: 0.2,
      maxTokens: 1024,
      configured: false,
      secretsReadable: true,
    })
    expect(await loadLlmSettings()).toBeNull()
  })

  it('admin session only: none 401, editor 403, an admin API key 403 (every operation)', async () => {
    const key = await createApiKey(admin.user.id, ['read', 'write'])
    const calls: [string, string][] = [
      ['GET', '/admin/ai-provider'],
      ['PATCH', '/admin/ai-provider'],
      ['POST', '/admin/ai-provider/test'],
      ['POST', '/admin/ai-provider/models'],
    ]
    for (const [method, path] of calls) {
      const body = method === 'GET' ? undefined : {}
      expect((await dispatch(path, { method, body })).status, `${method} ${path}`).toBe(401)
      expect((await dispatch(path, { method, body, headers: editor.sessionHeaders })).status).toBe(403)
      expect((await dispatch(path, { method, body, headers: key })).status).toBe(403)
    }
  })

  it.each([
    [{ baseUrl: 'ftp://x.example' }],
    [{ baseUrl: 'file:///etc/passwd' }],
    [{ baseUrl: 'https://user:pw@x.example' }],
    [{ baseUrl: 'https://x.example/v1?key=1' }],
    [{ provider: 'beta' }],
    [{ temperature: -0.1 }],
    [{ temperature: 2.01 }],
    [{ maxTokens: 0 }],
    [{ maxTokens: 32_001 }],
    [{ maxTokens: 1.5 }],
    [{ apiKey: 'a\nb' }],
    [{ customHeaders: [{ name: 'X-A', value: 'a\r\nInjected: 1' }] }],
    [{ customHeaders: [{ name: 'Bad Name', value: 'v' }] }],
    [{ customHeaders: [{ name: 'Host', value: 'v' }] }],
    [
      {
        customHeaders: [
          { name: 'X-A', value: '1' },
          { name: 'x-a', value: '2' },
        ],
      },
    ],
    [{ customHeaders: Array.from({ length: 21 }, (_, i) => ({ name: `X-H${i}`, value: 'v' })) }],
    [{ customHeaders: [{ name: 'X-New' }] }],
    [{ hasApiKey: true }],
  ])('refuses %j with 400 validation_failed', async (body) => {
    const res = await patch(body)
    expect(res.status, await res.clone().text()).toBe(400)
    expect((await errorOf(res)).code).toBe('validation_failed')
  })

  it('accepts the bounds: temperature 0 and 2, maxTokens 1 and 32,000, 20 headers', async () => {
    expect((await patch({ temperature: 0, maxTokens: 1 })).status).toBe(200)
    expect((await patch({ temperature: 2, maxTokens: 32_000 })).status).toBe(200)
    const twenty = Array.from({ length: 20 }, (_, i) => ({ name: `X-H${i}`, value: `v${i}` }))
    const res = await patch({ customHeaders: twenty })
    expect(res.status).toBe(200)
    expect(((await res.json()) as Json).customHeaders).toHaveLength(20)
    await patch({ temperature: 0.2, maxTokens: 1024, customHeaders: [] })
  })

  it('key and headers are write-only: kept when omitted or empty, deleted by null or by a missing row', async () => {
    let res = await patch({
      baseUrl: `${provider.url}/`,
      model: STAND_IN_CHAT_MODEL,
      apiKey: SECRET,
      customHeaders: [
        { name: 'X-Tenant', value: HEADER_SECRET },
        { name: 'X-Other', value: 'other-SECRET' },
      ],
    })
    expect(res.status, await res.clone().text()).toBe(200)
    const text = await res.text()
    expect(text).not.toContain('SECRET')
    let config = JSON.parse(text) as Json
    expect(config).toMatchObject({
      baseUrl: provider.url, // trailing slash dropped; endpoints are appended
      hasApiKey: true,
      configured: true,
      clearedSecrets: [],
      customHeaders: [
        { name: 'X-Tenant', configured: true },
        { name: 'X-Other', configured: true },
      ],
    })
    const [stored] = await em().execute<{ api_key: string; headers: string }[]>(
      'select api_key, headers::text as headers from ai_provider_config',
    )
    expect(JSON.stringify(stored)).not.toContain('SECRET')
    expect(stored!.api_key).toMatch(/^v1:/)

    res = await patch({ apiKey: '', customHeaders: [{ name: 'X-Tenant', value: '' }] })
    config = (await res.json()) as Json
    expect(config.hasApiKey).toBe(true)
    expect(config.customHeaders).toEqual([{ name: 'X-Tenant', configured: true }])
    expect(((await (await patch({ temperature: 0.5 })).json()) as Json).hasApiKey).toBe(true)

    // What the chat runs with: the secrets decrypted, the stored answer settings.
    const settings = await loadLlmSettings()
    expect(settings).toEqual({
      provider: 'alpha_compatible',
      target: {
        baseUrl: provider.url,
        model: STAND_IN_CHAT_MODEL,
        apiKey: SECRET,
        headers: { 'X-Tenant': HEADER_SECRET },
      },
      temperature: 0.5,
      maxTokens: 1024,
    })
    const chat = chatModelFor(settings!, { purpose: 'chat', traceId: crypto.randomUUID() })
    const answer = await chat.complete([{ role: 'user', content: 'What is [G1]?' }])
    expect(answer.text).toBe('Answer citing [G1].')
    const sent = provider.requests.findLast((r) => r.path.endsWith('/chat/completions'))!
    expect(sent.headers.authorization).toBe(`Bearer ${SECRET}`)
    expect(sent.headers['x-tenant']).toBe(HEADER_SECRET)
    expect(sent.headers['x-other']).toBeUndefined()

    res = await patch({ apiKey: null })
    expect(((await res.json()) as Json).hasApiKey).toBe(false)
    res = await patch({ apiKey: SECRET })
    expect(((await res.json()) as Json).hasApiKey).toBe(true)
  })

  it('a changed base URL clears the stored secrets not sent again; a key sent with it is kept', async () => {
    await patch({ customHeaders: [{ name: 'X-Tenant', value: HEADER_SECRET }] })
    let res = await patch({ baseUrl: other.url })
    let config = (await res.json()) as Json
    expect(config).toMatchObject({
      baseUrl: other.url,
      hasApiKey: false,
      customHeaders: [{ name: 'X-Tenant', configured: false }],
      clearedSecrets: ['apiKey', 'customHeaders'],
    })
    // a header whose value was cleared is not sent at all
    expect((await loadLlmSettings())!.target.headers).toEqual({})
    res = await patch({
      baseUrl: provider.url,
      apiKey: SECRET,
      customHeaders: [{ name: 'X-Tenant', value: HEADER_SECRET }],
    })
    config = (await res.json()) as Json
    expect(config).toMatchObject({
      hasApiKey: true,
      customHeaders: [{ name: 'X-Tenant', configured: true }],
      clearedSecrets: [],
    })
  })

  it('a stored secret that cannot be decrypted: the settings say so, the chat and the test answer 503', async () => {
    const [saved] = await em().execute<{ k: string }[]>('select api_key as k from ai_provider_config')
    await em().execute(`update ai_provider_config set api_key = 'v1:AAAAbroken'`)
    expect((await read()).secretsReadable).toBe(false)
    const failure = await loadLlmSettings().catch((error: unknown) => error)
    expect(failure).toBeInstanceOf(AppError)
    expect((failure as AppError).code).toBe('rag_not_ready')
    const res = await dispatch('/admin/ai-provider/test', { method: 'POST', headers: admin.sessionHeaders })
    expect(res.status).toBe(503)
    expect((await errorOf(res)).code).toBe('rag_not_ready')
    await em().execute('update ai_provider_config set api_key = ?', [saved!.k])
    expect((await read()).secretsReadable).toBe(true)
  })
})

describe('POST /admin/ai-provider/test and /models', () => {
  it('test: a one-token completion with the stored settings, recorded as an llm run of purpose test', async () => {
    provider.requests.length = 0
    const res = await dispatch('/admin/ai-provider/test', { method: 'POST', headers: admin.sessionHeaders })
    expect(res.status, await res.clone().text()).toBe(200)
    const body = (await res.json()) as Json
    expect(body).toEqual({ ok: true, model: STAND_IN_CHAT_MODEL, latencyMs: expect.any(Number) })
    expect(provider.lastChat()).toMatchObject({ model: STAND_IN_CHAT_MODEL, max_tokens: 1, temperature: 0 })
    expect(provider.requests[0]!.headers.authorization).toBe(`Bearer ${SECRET}`)
    const [run] = await em().execute<Json[]>(
      `select task, purpose, provider, model, status, row_to_json(r)::text as row
         from ai_runs r where task = 'llm' and purpose = 'test' order by started_at desc limit 1`,
    )
    expect(run).toMatchObject({
      task: 'llm',
      purpose: 'test',
      model: STAND_IN_CHAT_MODEL,
      status: 'succeeded',
    })
    expect(String(run!.row)).not.toContain('Reply with one word')
    expect(String(run!.row)).not.toContain('SECRET')
  })

  it('test: 502 rag_provider_error naming the failure class, never the key or the answer body', async () => {
    for (const [status, failureClass] of [
      [401, 'authentication'],
      [404, 'model_not_found'],
      [429, 'rate_limited'],
      [500, 'provider_unavailable'],
    ] as const) {
      provider.failNext(status)
      const res = await dispatch('/admin/ai-provider/test', { method: 'POST', headers: admin.sessionHeaders })
      expect(res.status).toBe(502)
      const text = await res.text()
      const error = (JSON.parse(text) as { error: { code: string; details: Json } }).error
      expect(error.code).toBe('rag_provider_error')
      expect(error.details.failureClass).toBe(failureClass)
      expect(text).not.toContain('secret echo')
      expect(text).not.toContain(SECRET)
    }
    // a model the provider does not have
    await patch({ model: 'no-such-model' })
    const res = await dispatch('/admin/ai-provider/test', { method: 'POST', headers: admin.sessionHeaders })
    expect(res.status).toBe(502)
    expect((await errorOf(res)).details?.failureClass).toBe('model_not_found')
    await patch({ model: STAND_IN_CHAT_MODEL })
  })

  it('test without a base URL or model: 400', async () => {
    await patch({ model: '' })
    const res = await dispatch('/admin/ai-provider/test', { method: 'POST', headers: admin.sessionHeaders })
    expect(res.status).toBe(400)
    expect((await errorOf(res)).code).toBe('validation_failed')
    await patch({ model: STAND_IN_CHAT_MODEL })
  })

  it('models: the chat models of the stored address with the stored key, saving nothing', async () => {
    const before = await read()
    provider.requests.length = 0
    const res = await dispatch('/admin/ai-provider/models', { headers: admin.sessionHeaders, body: {} })
    expect(res.status, await res.clone().text()).toBe(200)
    expect(await res.json()).toEqual({
      models: [
        { id: 'chat-model', label: 'chat-model' },
        { id: STAND_IN_CHAT_MODEL, label: STAND_IN_CHAT_MODEL },
      ],
    })
    expect(provider.requests[0]).toMatchObject({ method: 'GET', path: '/v1/models' })
    expect(provider.requests[0]!.headers.authorization).toBe(`Bearer ${SECRET}`)
    expect(provider.requests[0]!.headers['x-tenant']).toBe(HEADER_SECRET)
    expect((await read()).updatedAt).toBe(before.updatedAt)
    const [run] = await em().execute<Json[]>(
      `select task, purpose from ai_runs where task = 'models' order by started_at desc limit 1`,
    )
    expect(run).toEqual({ task: 'models', purpose: 'models' })
  })

  it('models: another address gets no stored secret, only a key and headers sent for this call', async () => {
    other.requests.length = 0
    let res = await dispatch('/admin/ai-provider/models', {
      headers: admin.sessionHeaders,
      body: { baseUrl: other.url },
    })
    expect(res.status).toBe(200)
    expect(other.requests[0]!.headers.authorization).toBeUndefined()
    expect(other.requests[0]!.headers['x-tenant']).toBeUndefined()
    res = await dispatch('/admin/ai-provider/models', {
      headers: admin.sessionHeaders,
      body: { baseUrl: other.url, apiKey: 'typed-key', customHeaders: [{ name: 'X-Try', value: 'typed' }] },
    })
    expect(res.status).toBe(200)
    expect(other.requests[1]!.headers.authorization).toBe('Bearer typed-key')
    expect(other.requests[1]!.headers['x-try']).toBe('typed')
    // an empty header value at the stored address uses the stored value of that name; null sends no key
    provider.requests.length = 0
    res = await dispatch('/admin/ai-provider/models', {
      headers: admin.sessionHeaders,
      body: { apiKey: null, customHeaders: [{ name: 'x-tenant', value: '' }] },
    })
    expect(res.status).toBe(200)
    expect(provider.requests[0]!.headers.authorization).toBeUndefined()
    expect(provider.requests[0]!.headers['x-tenant']).toBe(HEADER_SECRET)
    expect(JSON.stringify(await read())).not.toContain('typed')
  })

  it('models: bad addresses 400, provider failures 502 with the failure class', async () => {
    for (const baseUrl of ['file:///etc/passwd', 'ftp://x.example', 'http://u:p@x.example']) {
      const res = await dispatch('/admin/ai-provider/models', {
        headers: admin.sessionHeaders,
        body: { baseUrl },
      })
      expect(res.status, baseUrl).toBe(400)
    }
    provider.failNext(401)
    const res = await dispatch('/admin/ai-provider/models', { headers: admin.sessionHeaders, body: {} })
    expect(res.status).toBe(502)
    const text = await res.text()
    expect(text).toContain('authentication')
    expect(text).not.toContain('secret echo')
    expect(text).not.toContain(SECRET)
  })
})

describe('audit records of both settings', () => {
  it('an AI provider change names the changed fields, never a value or a secret', async () => {
    await patch({
      temperature: 0.7,
      apiKey: SECRET,
      customHeaders: [{ name: 'X-Tenant', value: HEADER_SECRET }],
    })
    let audit = await lastAudit('settings.ai_provider')
    expect(audit.details).toEqual({ fields: ['apiKey', 'customHeaders', 'temperature'], cleared: [] })
    expect(audit.row).toContain(admin.user.id)
    await patch({ baseUrl: other.url, maxTokens: 200 })
    audit = await lastAudit('settings.ai_provider')
    expect(audit.details).toEqual({
      fields: ['baseUrl', 'apiKey', 'customHeaders', 'maxTokens'],
      cleared: ['apiKey', 'customHeaders'],
    })
    const rows = await em().execute<{ row: string }[]>(
      `select row_to_json(a)::text as row from audit_log a where action = 'settings.ai_provider'`,
    )
    expect(rows.length).toBeGreaterThanOrEqual(8)
    for (const { row } of rows) {
      expect(row).not.toContain('SECRET')
      expect(row).not.toContain(other.url)
    }
  })

  it('a search settings change too: fields named, no value, no secret', async () => {
    const res = await dispatch('/admin/rag-config', {
      method: 'PATCH',
      headers: admin.sessionHeaders,
      body: { chatEnabled: true, topK: 12, embeddingApiKey: SECRET },
    })
    expect(res.status).toBe(200)
    const audit = await lastAudit('settings.search')
    expect(audit.details).toEqual({ fields: ['chatEnabled', 'embeddingApiKey', 'topK'], cleared: [] })
    expect(audit.row).not.toContain('SECRET')
  })
})

describe('OpenAPI', () => {
  it('documents the four operations, admin session only, with write-only secrets', () => {
    const doc = openApiDocument() as { paths: Record<string, Record<string, Json>> }
    expect(Object.keys(doc.paths['/admin/ai-provider']!).sort()).toEqual(['get', 'patch'])
    expect(doc.paths['/admin/ai-provider/test']!.post).toBeDefined()
    expect(doc.paths['/admin/ai-provider/models']!.post).toBeDefined()
    const text = JSON.stringify(doc.paths['/admin/ai-provider']!.get)
    expect(text).toContain('hasApiKey')
    expect(text).not.toContain('"apiKey"')
  })
})
