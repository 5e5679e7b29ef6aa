import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { searchEn } from '#app/lib/messages/search.ts'
import { siteEn } from '#app/lib/messages/site.ts'
import { ssoEn } from '#app/lib/messages/sso.ts'
import * as searchSettingsPage from '#app/routes/admin.search-settings.tsx'
import * as ssoPage from '#app/routes/admin.sso.tsx'
import { em } from '#db/orm.ts'
import { createUser, type TestUser } from '#tests/factories.ts'
import { dispatch, type Json } from '#tests/http.ts'
import { usePageServer, pageText } from '#tests/page-server.ts'
import { startStandIn, type StandIn } from '#tests/provider-stand-in.ts'
import { useTestDb } from '#tests/setup/db.ts'

/**
 * A stored provider secret belongs to the address it was entered for (issue 26, item 7). Before, changing the
 * embedding base URL without resending the key sent the stored key and custom header values to the new host
 * on the next call. Now a changed base URL (embedding, reranker) or identity-provider address (SSO) clears the
 * stored secrets the request does not send again, the answer lists them, the pages say so, and the audit log
 * names the changed fields without a value. Provider calls go to two real stand-ins on 127.0.0.1.
 */

useTestDb()
const pages = usePageServer({
  'routes/admin.search-settings': { path: 'admin/search-settings', module: searchSettingsPage },
  'routes/admin.sso': { path: 'admin/sso', module: ssoPage },
})

const KEY_A = 'sk-for-A-SECRET-5f1e'
const KEY_B = 'sk-for-B-SECRET-77c0'
const HEADER_A = 'tenant-A-SECRET-31'
const RERANK_KEY = 'rr-for-A-SECRET-0d2'
const CLIENT_SECRET = 'client-SECRET-9a7b'
const SECRETS = [KEY_A, KEY_B, HEADER_A, RERANK_KEY, CLIENT_SECRET]

let admin: TestUser
let a: StandIn
let b: StandIn

beforeAll(async () => {
  admin = await createUser({ role: 'admin' })
  a = await startStandIn()
  b = await startStandIn()
})
afterAll(async () => {
  await a.close()
  await b.close()
})

const patch = async (body: unknown) => {
  const res = await dispatch('/admin/rag-config', { method: 'PATCH', headers: admin.sessionHeaders, body })
  const text = await res.text()
  expect(res.status, text).toBe(200)
  for (const secret of SECRETS) expect(text).not.toContain(secret)
  return JSON.parse(text) as Json
}

const testConnection = async () => {
  a.requests.length = 0
  b.requests.length = 0
  const res = await dispatch('/admin/rag-config/test', { method: 'POST', headers: admin.sessionHeaders })
  return { status: res.status, json: (await res.json()) as Json }
}

/** The newest audit record of `action`: its details as stored, and the whole row as text. */
async function lastAudit(action: string): Promise<{ details: Json; row: string }> {
  const [row] = await em().execute<{ details: string; row: string }[]>(
    `select details::text as details, row_to_json(a)::text as row
       from audit_log a where action = ? order by at desc, id desc limit 1`,
    [action],
  )
  expect(row, `an audit record ${action}`).toBeDefined()
  return { details: JSON.parse(row!.details), row: row!.row }
}

/** The embedding provider at A with a key and a custom header, the reranker off. */
async function configureA() {
  const config = await patch({
    enabled: true,
    embeddingBaseUrl: a.url,
    embeddingModel: 'text-embed-small',
    embeddingApiKey: KEY_A,
    embeddingCustomHeaders: [{ name: 'X-Tenant', value: HEADER_A }],
    rerankerEnabled: false,
  })
  expect(config).toMatchObject({ hasApiKey: true, clearedSecrets: [] })
  const check = await testConnection()
  expect(check.status).toBe(200)
  expect(a.requests[0]!.headers.authorization).toBe(`Bearer ${KEY_A}`)
  expect(a.requests[0]!.headers['x-tenant']).toBe(HEADER_A)
}

describe('search settings: a changed base URL clears the secrets the request does not send again', () => {
  it('moving the embedding address to B without the key: cleared, listed, and B receives nothing secret', async () => {
    await configureA()
    const config = await patch({ embeddingBaseUrl: b.url })
    expect(config.clearedSecrets).toEqual(['embeddingApiKey', 'embeddingCustomHeaders'])
    expect(config.hasApiKey).toBe(false)
    expect(config.embeddingCustomHeaders).toEqual([{ name: 'X-Tenant', configured: false }])

    const check = await testConnection()
    expect(check.status, JSON.stringify(check.json)).toBe(200)
    expect(a.requests).toEqual([])
    expect(b.requests.map((r) => r.path)).toEqual(['/v1/embeddings'])
    const sent = b.requests[0]!
    expect(sent.headers.authorization).toBeUndefined()
    expect(sent.headers['x-tenant']).toBeUndefined()
    for (const secret of SECRETS) expect(JSON.stringify(sent)).not.toContain(secret)

    // The stored row holds no ciphertext for them any more.
    const [row] = await em().execute<{ key: string | null; headers: string }[]>(
      'select embedding_api_key as key, embedding_headers::text as headers from rag_config',
    )
    expect(row!.key).toBeNull()
    expect(JSON.parse(row!.headers)).toEqual([{ name: 'X-Tenant', value: '' }])
  })

  it('moving to B with the key and header value in the same request: B receives them', async () => {
    await configureA()
    const config = await patch({
      embeddingBaseUrl: b.url,
      embeddingApiKey: KEY_B,
      embeddingCustomHeaders: [{ name: 'X-Tenant', value: 'tenant-B' }],
    })
    expect(config.clearedSecrets).toEqual([])
    expect(config.embeddingCustomHeaders).toEqual([{ name: 'X-Tenant', configured: true }])
    await testConnection()
    expect(b.requests[0]!.headers.authorization).toBe(`Bearer ${KEY_B}`)
    expect(b.requests[0]!.headers['x-tenant']).toBe('tenant-B')
  })

  it('only what is not sent is cleared: a new key with the header kept empty clears the header value only', async () => {
    await configureA()
    const config = await patch({
      embeddingBaseUrl: b.url,
      embeddingApiKey: KEY_B,
      embeddingCustomHeaders: [{ name: 'X-Tenant', value: '' }],
    })
    expect(config.clearedSecrets).toEqual(['embeddingCustomHeaders'])
    await testConnection()
    expect(b.requests[0]!.headers.authorization).toBe(`Bearer ${KEY_B}`)
    expect(b.requests[0]!.headers['x-tenant']).toBeUndefined()
    // Sending the value again configures the header for B.
    const again = await patch({ embeddingCustomHeaders: [{ name: 'X-Tenant', value: 'tenant-B2' }] })
    expect(again).toMatchObject({
      clearedSecrets: [],
      embeddingCustomHeaders: [{ name: 'X-Tenant', configured: true }],
    })
    await testConnection()
    expect(b.requests[0]!.headers['x-tenant']).toBe('tenant-B2')
  })

  it('the same address, or other fields, keep the secrets; a key stored before any address goes to the first', async () => {
    await configureA()
    expect((await patch({ embeddingBaseUrl: a.url, topK: 9 })).clearedSecrets).toEqual([])
    expect((await patch({ embeddingModel: 'text-embed-large' })).hasApiKey).toBe(true)
    await testConnection()
    expect(a.requests[0]!.headers.authorization).toBe(`Bearer ${KEY_A}`)

    await patch({ enabled: false, embeddingBaseUrl: '', embeddingApiKey: null, embeddingCustomHeaders: [] })
    expect((await patch({ embeddingApiKey: KEY_B })).hasApiKey).toBe(true)
    const config = await patch({ enabled: true, embeddingBaseUrl: b.url })
    expect(config).toMatchObject({ clearedSecrets: [], hasApiKey: true })
    await testConnection()
    expect(b.requests[0]!.headers.authorization).toBe(`Bearer ${KEY_B}`)
  })

  it('the reranker address follows the same rule', async () => {
    await configureA()
    await patch({
      rerankerEnabled: true,
      rerankerProvider: 'alpha_compatible',
      rerankerBaseUrl: a.url,
      rerankerModel: 'bge-reranker-v2',
      rerankerApiKey: RERANK_KEY,
    })
    const config = await patch({ rerankerBaseUrl: b.url })
    expect(config.clearedSecrets).toEqual(['rerankerApiKey'])
    expect(config.rerankerHasApiKey).toBe(false)
    expect(config.hasApiKey).toBe(true) // the embedding key stays with its unchanged address
    const check = await testConnection()
    expect(check.json).toEqual({ ok: true, embedding: true, reranker: true })
    const rerank = b.requests.find((r) => r.path === '/v1/rerank')!
    expect(rerank.headers.authorization).toBeUndefined()
    expect(a.requests.find((r) => r.path === '/v1/embeddings')!.headers.authorization).toBe(`Bearer ${KEY_A}`)
    await patch({ rerankerEnabled: false })
  })

  it('the audit log names the changed fields and what was cleared, never a value', async () => {
    await configureA()
    let audit = await lastAudit('settings.search')
    expect(audit.details.fields).toEqual(
      expect.arrayContaining(['embeddingApiKey', 'embeddingCustomHeaders']),
    )
    await patch({ embeddingBaseUrl: b.url, chatEnabled: true })
    audit = await lastAudit('settings.search')
    expect(audit.details).toEqual({
      fields: ['chatEnabled', 'embeddingBaseUrl', 'embeddingApiKey', 'embeddingCustomHeaders'],
      cleared: ['embeddingApiKey', 'embeddingCustomHeaders'],
    })
    await patch({ embeddingApiKey: KEY_B, topK: 11 })
    audit = await lastAudit('settings.search')
    expect(audit.details).toEqual({ fields: ['embeddingApiKey', 'topK'], cleared: [] })
    const rows = await em().execute<{ row: string }[]>(
      `select row_to_json(a)::text as row from audit_log a where action = 'settings.search'`,
    )
    expect(rows.length).toBeGreaterThanOrEqual(3)
    for (const { row } of rows) {
      for (const secret of [...SECRETS, b.url.slice(0, -3), 'v1:']) expect(row).not.toContain(secret)
    }
    await patch({ chatEnabled: false })
  })
})

describe('SSO settings: a changed identity-provider address clears the stored client secret', () => {
  const put = async (body: unknown) => {
    const res = await dispatch('/sso', { method: 'PUT', headers: admin.sessionHeaders, body })
    const text = await res.text()
    expect(res.status, text).toBe(200)
    expect(text).not.toContain(CLIENT_SECRET)
    return JSON.parse(text) as Json
  }
  const OIDC = {
    mode: 'oidc',
    issuer: 'https://idp-a.example.test',
    clientId: 'glossary',
    authorizationEndpoint: 'https://idp-a.example.test/auth',
    tokenEndpoint: 'https://idp-a.example.test/token',
    jwksUri: 'https://idp-a.example.test/jwks',
  }

  beforeEach(async () => {
    const answer = await put({ ...OIDC, clientSecret: CLIENT_SECRET })
    expect(answer.sso.hasClientSecret).toBe(true)
    expect(answer.clearedSecrets).toEqual([])
  })

  it('a changed issuer without the secret clears it and says so; the audit names fields, not values', async () => {
    const answer = await put({ issuer: 'https://idp-b.example.test' })
    expect(answer.clearedSecrets).toEqual(['clientSecret'])
    expect(answer.sso.hasClientSecret).toBe(false)
    const [row] = await em().execute<{ secret: string | null }[]>(
      'select client_secret_encrypted as secret from sso_config',
    )
    expect(row!.secret).toBeNull()
    const audit = await lastAudit('settings.sso')
    expect(audit.details).toEqual({
      fields: ['issuer', 'clientSecret'],
      mode: 'oidc',
      cleared: ['clientSecret'],
    })
    expect(audit.row).not.toContain(CLIENT_SECRET)
    expect(audit.row).not.toContain('idp-b')
  })

  it.each([['authorizationEndpoint'], ['tokenEndpoint'], ['userinfoEndpoint'], ['jwksUri']])(
    'a changed %s clears it too (a first userinfo address does not)',
    async (field) => {
      if (field === 'userinfoEndpoint') {
        // Not set before: a first address joins the provider the secret was entered for.
        expect((await put({ userinfoEndpoint: 'https://idp-a.example.test/me' })).clearedSecrets).toEqual([])
      }
      const answer = await put({ [field]: 'https://elsewhere.example.test/x' })
      expect(answer.clearedSecrets).toEqual(['clientSecret'])
      expect(answer.sso.hasClientSecret).toBe(false)
    },
  )

  it('with the secret in the same request it is stored for the new address; other fields keep it', async () => {
    let answer = await put({ issuer: 'https://idp-b.example.test', clientSecret: 'new-SECRET' })
    expect(answer.clearedSecrets).toEqual([])
    expect(answer.sso.hasClientSecret).toBe(true)
    answer = await put({
      ...OIDC,
      issuer: 'https://idp-b.example.test',
      buttonLabel: 'Company',
      clientSecret: '',
    })
    expect(answer).toMatchObject({ clearedSecrets: [], sso: { hasClientSecret: true } })
    expect((await lastAudit('settings.sso')).details.fields).toEqual(['buttonLabel'])
  })
})

describe('the settings pages say which secrets were cleared', () => {
  const textOf = pageText

  it('/admin/search-settings: saving a new base URL without the key', async () => {
    await configureA()
    const res = await pages.post(
      '/admin/search-settings',
      {
        intent: 'save',
        enabled: 'on',
        embeddingProvider: 'alpha_compatible',
        embeddingBaseUrl: b.url,
        embeddingModel: 'text-embed-small',
        embeddingApiKey: '',
        'embeddingHeaders.0.name': 'X-Tenant',
        'embeddingHeaders.0.stored': '1',
        'embeddingHeaders.0.value': '',
        rerankerProvider: 'gamma_compatible',
        rerankerBaseUrl: '',
        rerankerModel: '',
        rerankerApiKey: '',
        chunkSize: '400',
        chunkOverlap: '50',
        topK: '10',
      },
      admin.sessionHeaders,
    )
    // The save redirects; its flash says secrets were cleared, and the page marks each one to enter again.
    expect(res.status).toBe(302)
    const flash = res.headers
      .getSetCookie()
      .map((line) => line.split(';')[0])
      .join('; ')
    const page = await pages.get(res.location!, { cookie: `${admin.sessionHeaders.cookie}; ${flash}` })
    const text = textOf(page.html)
    expect(text).toContain(searchEn['searchSettings.savedSecretsCleared'])
    expect(page.html).toMatch(/data-testid="embedding-key-state"[^>]*>not configured</)
    // The header row stays, marked as needing a value.
    expect(text).toMatch(/X-Tenant not configured/)
    await testConnection()
    expect(b.requests[0]!.headers.authorization).toBeUndefined()
    expect(b.requests[0]!.headers['x-tenant']).toBeUndefined()
  })

  it('/admin/sso: saving a new issuer without the client secret', async () => {
    const stored = await dispatch('/sso', {
      method: 'PUT',
      headers: admin.sessionHeaders,
      body: {
        mode: 'oidc',
        issuer: 'https://idp-a.example.test',
        clientId: 'glossary',
        authorizationEndpoint: 'https://idp-a.example.test/auth',
        tokenEndpoint: 'https://idp-a.example.test/token',
        jwksUri: 'https://idp-a.example.test/jwks',
        clientSecret: CLIENT_SECRET,
      },
    })
    expect(stored.status).toBe(200)
    const form = {
      intent: 'save',
      passwordLoginEnabled: 'on',
      mode: 'oidc',
      buttonLabel: 'Company sign-in',
      issuer: 'https://idp-b.example.test',
      authorizationEndpoint: 'https://idp-a.example.test/auth',
      tokenEndpoint: 'https://idp-a.example.test/token',
      userinfoEndpoint: '',
      jwksUri: 'https://idp-a.example.test/jwks',
      clientId: 'glossary',
      clientSecret: '',
      nameClaims: 'name',
      groupClaims: 'groups',
      allowedGroups: '',
      adminGroups: '',
      autoCreate: 'on',
    }
    const res = await pages.post('/admin/sso', form, admin.sessionHeaders)
    expect(res.status).toBe(200)
    expect(textOf(res.html)).toContain(ssoEn['sso.secretCleared'])
    // Saving again, the secret now gone, clears nothing and says nothing about it: the usual redirect to the
    // page with its confirmation.
    const again = await pages.post('/admin/sso', form, admin.sessionHeaders)
    expect(again.status).toBe(302)
    expect(again.location).toBe('/admin/sso')
    const flash = again.headers.getSetCookie().map((line) => line.split(';')[0])
    const next = await pages.get('/admin/sso', { cookie: [admin.sessionHeaders.cookie, ...flash].join('; ') })
    expect(textOf(next.html)).toContain(siteEn['flash.ssoSaved'])
    expect(textOf(next.html)).not.toContain(ssoEn['sso.secretCleared'])
  })
})
