import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { em } from '#db/orm.ts'
import { createApiKey, createTerm, createUser, type TestUser } from '#tests/factories.ts'
import { dispatch } from '#tests/http.ts'
import { startStandIn, type StandIn } from '#tests/provider-stand-in.ts'
import { useTestDb } from '#tests/setup/db.ts'

useTestDb()

/**
 * The search settings API (issue 12, spec PATCH rules 1–7): who may call it, every field limit, write-only
 * secrets kept, replaced and deleted as the rules say, reindexing on a changed embedding space, the model
 * list, the connection test and the reindex endpoint — against the provider stand-in on 127.0.0.1.
 */

let admin: TestUser
let viewer: TestUser
let provider: StandIn
const SECRET = 'sk-test-SECRET-value-1234567890'
const HEADER_SECRET = 'hdr-SECRET-abcdef'

beforeAll(async () => {
  admin = await createUser({ role: 'admin' })
  viewer = await createUser({ role: 'viewer' })
  provider = await startStandIn()
})
afterAll(async () => {
  await provider.close()
})

const patch = (body: unknown, headers = admin.sessionHeaders) =>
  dispatch('/admin/rag-config', { method: 'PATCH', headers, body })
const read = async () => {
  const res = await dispatch('/admin/rag-config', { headers: admin.sessionHeaders })
  expect(res.status).toBe(200)
  const text = await res.text()
  expect(text).not.toContain('SECRET')
  return JSON.parse(text)
}

describe('GET/PATCH /admin/rag-config', () => {
  it('defaults: off, chat off, no key, statistics', async () => {
    const config = await read()
    expect(config).toMatchObject({
      enabled: false,
      chatEnabled: false,
      hasApiKey: false,
      rerankerHasApiKey: false,
      embeddingCustomHeaders: [],
      chunkSize: expect.any(Number),
      topK: 10,
      secretsReadable: true,
      indexedTerms: 0,
      queued: expect.any(Number),
      processing: 0,
      ready: 0,
      failed: 0,
    })
  })

  it('admin session only: none 401, viewer 403, API key 403', async () => {
    expect((await dispatch('/admin/rag-config')).status).toBe(401)
    expect((await dispatch('/admin/rag-config', { headers: viewer.sessionHeaders })).status).toBe(403)
    expect((await patch({ topK: 5 }, viewer.sessionHeaders)).status).toBe(403)
    const key = await createApiKey(admin.user.id, ['read', 'write'])
    expect((await dispatch('/admin/rag-config', { headers: key })).status).toBe(403)
  })

  it.each([
    [{ chunkSize: 399 }],
    [{ chunkSize: 8001 }],
    [{ chunkOverlap: -1 }],
    [{ chunkSize: 500, chunkOverlap: 500 }],
    [{ topK: 0 }],
    [{ topK: 51 }],
    [{ embeddingBaseUrl: 'ftp://x.example' }],
    [{ embeddingBaseUrl: 'https://user:pw@x.example' }],
    [{ embeddingProvider: 'gamma' }],
    [{ embeddingCustomHeaders: [{ name: 'X-A', value: 'a\r\nInjected: 1' }] }],
    [{ embeddingCustomHeaders: Array.from({ length: 21 }, (_, i) => ({ name: `X-H${i}`, value: 'v' })) }],
    [{ embeddingCustomHeaders: [{ name: 'X-New' }] }],
    [{ hasApiKey: true }],
    [{ enabled: true, embeddingBaseUrl: '', embeddingModel: '' }],
  ])('refuses %j with 400 validation_failed', async (body) => {
    const res = await patch(body)
    expect(res.status, await res.clone().text()).toBe(400)
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('validation_failed')
  })

  it('chunkOverlap is checked against the stored chunkSize', async () => {
    expect((await patch({ chunkSize: 800 })).status).toBe(200)
    expect((await patch({ chunkOverlap: 800 })).status).toBe(400)
    expect((await patch({ chunkOverlap: 799 })).status).toBe(200)
  })

  it('keys and headers are write-only: kept when omitted or empty, deleted by null or by a missing row', async () => {
    let res = await patch({
      embeddingBaseUrl: `${provider.url}/`,
      embeddingModel: 'text-embed-small',
      embeddingApiKey: SECRET,
      embeddingCustomHeaders: [
        { name: 'X-Tenant', value: HEADER_SECRET },
        { name: 'X-Other', value: 'other-SECRET' },
      ],
    })
    expect(res.status, await res.clone().text()).toBe(200)
    const text = await res.text()
    expect(text).not.toContain('SECRET')
    let config = JSON.parse(text)
    expect(config.embeddingBaseUrl).toBe(provider.url) // trailing slash dropped; endpoints are appended
    expect(config.hasApiKey).toBe(true)
    expect(config.embeddingCustomHeaders).toEqual([
      { name: 'X-Tenant', configured: true },
      { name: 'X-Other', configured: true },
    ])
    const [stored] = await em().execute<{ embedding_api_key: string; embedding_headers: unknown }[]>(
      'select embedding_api_key, embedding_headers::text from rag_config',
    )
    expect(JSON.stringify(stored)).not.toContain('SECRET')

    res = await patch({ embeddingApiKey: '', embeddingCustomHeaders: [{ name: 'X-Tenant', value: '' }] })
    config = await res.json()
    expect(config.hasApiKey).toBe(true)
    expect(config.embeddingCustomHeaders).toEqual([{ name: 'X-Tenant', configured: true }])

    res = await patch({ topK: 7 })
    expect((await res.json()).hasApiKey).toBe(true)

    // The kept key and header really go out: Bearer for the alpha-compatible server, the header as stored.
    provider.requests.length = 0
    res = await dispatch('/admin/rag-config/test', { method: 'POST', headers: admin.sessionHeaders })
    expect(res.status, await res.clone().text()).toBe(200)
    expect(await res.json()).toEqual({ ok: true, embedding: true, reranker: false })
    const sent = provider.requests.find((r) => r.path.endsWith('/embeddings'))!
    expect(sent.headers.authorization).toBe(`Bearer ${SECRET}`)
    expect(sent.headers['x-tenant']).toBe(HEADER_SECRET)
    expect(sent.headers['x-other']).toBeUndefined()
    expect(sent.body).toMatchObject({ model: 'text-embed-small', dimensions: 1536 })

    res = await patch({ embeddingApiKey: null })
    expect((await res.json()).hasApiKey).toBe(false)
  })

  it('the beta provider gets outputDimensionality and its API-key header, at :batchEmbedContents', async () => {
    await patch({ embeddingProvider: 'beta', embeddingApiKey: SECRET })
    provider.requests.length = 0
    const res = await dispatch('/admin/rag-config/test', { method: 'POST', headers: admin.sessionHeaders })
    expect(res.status, await res.clone().text()).toBe(200)
    const sent = provider.requests[0]!
    expect(sent.path).toBe('/v1/models/text-embed-small:batchEmbedContents')
    expect(sent.headers['x-goog-api-key']).toBe(SECRET)
    expect(sent.headers.authorization).toBeUndefined()
    expect(JSON.stringify(sent.body)).toContain('"outputDimensionality":1536')
    await patch({ embeddingProvider: 'alpha_compatible' })
  })

  it('a changed model, base URL or chunking queues every current term in the same transaction', async () => {
    const term = await createTerm({ name: 'Reindexed Term' })
    await em().execute(`update rag_index_queue set status = 'ready' where source_id = ?`, [term.id])
    await patch({ topK: 9 })
    let rows = await em().execute(`select * from rag_index_queue where source_id = ? and status = 'queued'`, [
      term.id,
    ])
    expect(rows).toHaveLength(0)
    await patch({ embeddingModel: 'text-embed-large' })
    rows = await em().execute(`select * from rag_index_queue where source_id = ? and status = 'queued'`, [
      term.id,
    ])
    expect(rows).toHaveLength(1)
  })

  it('a secret that cannot be decrypted: settings say why, search answers 503, nothing crashes', async () => {
    await patch({ enabled: true, embeddingApiKey: SECRET })
    const [saved] = await em().execute<{ k: string }[]>('select embedding_api_key as k from rag_config')
    await em().execute(`update rag_config set embedding_api_key = 'v1:AAAAbroken'`)
    const config = await read()
    expect(config.secretsReadable).toBe(false)
    expect(config.problem).toMatch(/cannot be decrypted/)
    const key = await createApiKey(viewer.user.id, ['read'])
    const res = await dispatch('/rag/search', { headers: key, body: { query: 'anything' } })
    expect(res.status).toBe(503)
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('rag_not_ready')
    await em().execute('update rag_config set embedding_api_key = ?', [saved!.k])
    await patch({ enabled: false })
  })
})

describe('POST /admin/rag-config/models, /test, /reindex', () => {
  it('lists the provider models filtered by endpoint, saving nothing', async () => {
    const before = await read()
    let res = await dispatch('/admin/rag-config/models', {
      headers: admin.sessionHeaders,
      body: { baseUrl: provider.url, endpoint: 'embedding' },
    })
    expect(res.status, await res.clone().text()).toBe(200)
    expect(await res.json()).toEqual({
      models: [
        { id: 'text-embed-large', label: 'text-embed-large' },
        { id: 'text-embed-small', label: 'text-embed-small' },
      ],
    })
    res = await dispatch('/admin/rag-config/models', {
      headers: admin.sessionHeaders,
      body: { baseUrl: provider.url, endpoint: 'reranker' },
    })
    expect((await res.json()).models.map((m: { id: string }) => m.id)).toEqual(['bge-reranker-v2'])
    expect((await read()).updatedAt).toBe(before.updatedAt)
    res = await dispatch('/admin/rag-config/models', {
      headers: admin.sessionHeaders,
      body: { baseUrl: 'file:///etc/passwd', endpoint: 'embedding' },
    })
    expect(res.status).toBe(400)
  })

  it('test: 502 rag_provider_error naming the failure class, never the key or the answer body', async () => {
    for (const [status, failureClass] of [
      [401, 'authentication'],
      [404, 'model_not_found'],
      [429, 'rate_limited'],
      [500, 'provider_unavailable'],
    ] as const) {
      provider.failNext(status)
      const res = await dispatch('/admin/rag-config/test', { method: 'POST', headers: admin.sessionHeaders })
      expect(res.status).toBe(502)
      const text = await res.text()
      expect(JSON.parse(text).error.code).toBe('rag_provider_error')
      expect(text).toContain(failureClass)
      expect(text).not.toContain('secret echo')
      expect(text).not.toContain(SECRET)
    }
    const runs = await em().execute<{ failure_class: string }[]>(
      `select failure_class from ai_runs where purpose = 'test' and status = 'failed' order by started_at`,
    )
    expect(runs.map((r) => r.failure_class)).toEqual(
      expect.arrayContaining(['authentication', 'model_not_found', 'rate_limited', 'provider_unavailable']),
    )
  })

  it('test with the reranker on sends a rerank request too', async () => {
    await patch({ rerankerEnabled: true, rerankerBaseUrl: provider.url, rerankerModel: 'bge-reranker-v2' })
    provider.requests.length = 0
    const res = await dispatch('/admin/rag-config/test', { method: 'POST', headers: admin.sessionHeaders })
    expect(await res.json()).toEqual({ ok: true, embedding: true, reranker: true })
    expect(provider.requests.map((r) => r.path)).toEqual(['/v1/embeddings', '/v1/rerank'])
    await patch({ rerankerEnabled: false })
  })

  it('reindex: 202 with counts; failed rows go back to queued', async () => {
    const term = await createTerm({ name: 'Failed Once' })
    await em().execute(`update rag_index_queue set status = 'failed', error = 'x' where source_id = ?`, [
      term.id,
    ])
    const res = await dispatch('/admin/rag-config/reindex', { method: 'POST', headers: admin.sessionHeaders })
    expect(res.status).toBe(202)
    const body = await res.json()
    expect(body).toMatchObject({ ok: true, queuedMeetings: 0, queuedWikiPages: 0 })
    expect(body.queued).toBeGreaterThanOrEqual(2)
    const rows = await em().execute<{ status: string }[]>(
      `select status from rag_index_queue where source_id = ?`,
      [term.id],
    )
    expect(rows.map((r) => r.status)).toEqual(['queued'])
  })
})
