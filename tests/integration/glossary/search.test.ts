import { beforeAll, describe, expect, it } from 'vitest'
import { em } from '#db/orm.ts'
import { createApiKey, createTerm, createUser, type TestUser } from '#tests/factories.ts'
import { useApiServer, type Json } from '#tests/http.ts'
import { useTestDb } from '#tests/setup/db.ts'

useTestDb()
const server = useApiServer()
const api = server.api

let admin: TestUser
let viewer: TestUser
const ids: Record<string, string> = {}

beforeAll(async () => {
  admin = await createUser({ role: 'admin' })
  viewer = await createUser({ role: 'viewer' })
  for (const [key, nameKo, nameEn] of [
    ['platform', '플랫폼', 'Platform'],
    ['payments', '결제', 'Payments'],
  ]) {
    expect((await api('POST', '/domains', admin.sessionHeaders, { key, nameKo, nameEn })).status).toBe(201)
  }
  expect(
    (await api('POST', '/categories', admin.sessionHeaders, { key: 'ops', nameKo: '운영', nameEn: 'Ops' }))
      .status,
  ).toBe(201)
  ids.gateway = (
    await createTerm({
      name: 'API Gateway',
      nameKo: 'API 게이트웨이',
      notations: [{ text: 'APIGW', kind: 'admitted', lang: null }],
      domains: ['platform'],
      tags: ['network', 'edge'],
    })
  ).id
  ids.api = (
    await createTerm({ name: 'API', fullName: 'Application Programming Interface', domains: ['platform'] })
  ).id
  ids.ledger = (
    await createTerm({
      name: 'Ledger',
      nameKo: '원장',
      notations: [{ text: '장부', kind: 'deprecated', lang: 'ko' }],
      domains: ['payments'],
      categories: ['ops'],
      tags: ['edge'],
    })
  ).id
  ids.old = (await createTerm({ name: 'Old Thing', status: 'deprecated' })).id
})

describe('GET /terms', () => {
  it('q matches names and notations ignoring case and width, exact matches first', async () => {
    const res = await api('GET', `/terms?q=${encodeURIComponent('ＡＰＩ')}`, viewer.sessionHeaders)
    expect(res.status).toBe(200)
    expect(res.json.items.map((i: Json) => i.id)).toEqual([ids.api, ids.gateway])
    expect(res.json).toMatchObject({ total: 2, page: 1, pageSize: 20 })
    expect(res.json.items[0]).not.toHaveProperty('body')
    expect(res.json.items[1]).toMatchObject({ nameKo: 'API 게이트웨이', nameEn: null })
    const byNotation = await api('GET', '/terms?q=apigw', viewer.sessionHeaders)
    expect(byNotation.json.items.map((i: Json) => i.id)).toEqual([ids.gateway])
    const byFullName = await api('GET', '/terms?q=programming', viewer.sessionHeaders)
    expect(byFullName.json.items.map((i: Json) => i.id)).toEqual([ids.api])
  })

  it('q matches Korean names and notations, including deprecated ones', async () => {
    const ko = await api('GET', `/terms?q=${encodeURIComponent('게이트')}`, viewer.sessionHeaders)
    expect(ko.json.items.map((i: Json) => i.id)).toEqual([ids.gateway])
    const deprecated = await api('GET', `/terms?q=${encodeURIComponent('장부')}`, viewer.sessionHeaders)
    expect(deprecated.json.items.map((i: Json) => i.id)).toEqual([ids.ledger])
    const wildcard = await api('GET', `/terms?q=${encodeURIComponent('%')}`, viewer.sessionHeaders)
    expect(wildcard.json.total).toBe(0)
  })

  it('filters by status, domain, category and tag, and pages', async () => {
    const list = async (query: string) =>
      (await api('GET', `/terms?${query}`, viewer.sessionHeaders)).json.items.map((i: Json) => i.id).sort()
    expect(await list('status=deprecated')).toEqual([ids.old])
    expect(await list('domain=platform')).toEqual([ids.gateway, ids.api].sort())
    expect(await list('domain=platform&domain=payments')).toEqual([ids.gateway, ids.api, ids.ledger].sort())
    expect(await list('category=ops')).toEqual([ids.ledger])
    expect(await list('tag=edge')).toEqual([ids.gateway, ids.ledger].sort())
    expect(await list('tag=edge&tag=network')).toEqual([ids.gateway])
    const page2 = await api('GET', '/terms?pageSize=2&page=2', viewer.sessionHeaders)
    expect(page2.json).toMatchObject({ total: 4, page: 2, pageSize: 2 })
    expect(page2.json.items).toHaveLength(2)
    const beyond = await api('GET', '/terms?pageSize=2&page=9', viewer.sessionHeaders)
    expect(beyond.json).toMatchObject({ total: 4, items: [] })
    expect((await api('GET', '/terms?status=bogus', viewer.sessionHeaders)).status).toBe(400)
    expect((await api('GET', '/terms?pageSize=1000', viewer.sessionHeaders)).status).toBe(400)
  })
})

describe('GET /terms/suggest', () => {
  it('completes prefixes of names and notations, one entry per term', async () => {
    const res = await api('GET', '/terms/suggest?q=ap', viewer.sessionHeaders)
    expect(res.status).toBe(200)
    expect(res.json.items.map((i: Json) => [i.name, i.matched])).toEqual([
      ['API', 'API'],
      ['API Gateway', 'APIGW'],
    ])
    const ko = await api('GET', `/terms/suggest?q=${encodeURIComponent('원')}`, viewer.sessionHeaders)
    expect(ko.json.items).toEqual([
      {
        id: ids.ledger,
        slug: 'ledger',
        name: 'Ledger',
        status: 'active',
        matched: '원장',
        kind: 'preferred',
      },
    ])
    // Not a prefix: no suggestion.
    expect((await api('GET', '/terms/suggest?q=gateway', viewer.sessionHeaders)).json.items).toEqual([])
  })
})

describe('classification administration', () => {
  it('admin session only for changes; renaming queues every carrying term; deleting revises them', async () => {
    expect((await api('GET', '/domains', viewer.sessionHeaders)).json.items.map((d: Json) => d.key)).toEqual([
      'payments',
      'platform',
    ])
    expect(
      (await api('POST', '/domains', viewer.sessionHeaders, { key: 'x', nameKo: 'x', nameEn: 'x' })).status,
    ).toBe(403)
    expect(
      (await api('POST', '/domains', admin.sessionHeaders, { key: 'platform', nameKo: 'x', nameEn: 'x' }))
        .status,
    ).toBe(409)
    // Never with an API key, even an admin's key with every scope.
    const adminKey = await createApiKey(admin.user.id, ['read', 'write', 'validate'])
    expect((await api('GET', '/categories', adminKey)).status).toBe(200)
    expect((await api('POST', '/categories', adminKey, { key: 'k', nameKo: 'k', nameEn: 'k' })).status).toBe(
      403,
    )
    expect((await api('DELETE', '/domains/payments', adminKey)).status).toBe(403)
    await em().execute(`update rag_index_queue set status = 'ready'`)
    const renamed = await api('PATCH', '/domains/platform', admin.sessionHeaders, { nameEn: 'Core Platform' })
    expect(renamed.status).toBe(200)
    expect(renamed.json).toMatchObject({ key: 'platform', nameEn: 'Core Platform', termCount: 2 })
    const queued = await em().execute<{ source_id: string }[]>(
      `select source_id from rag_index_queue where status = 'queued' order by source_id`,
    )
    expect(queued.map((r) => r.source_id)).toEqual([ids.gateway, ids.api].sort())

    const removed = await api('DELETE', '/domains/platform', admin.sessionHeaders)
    expect(removed.json).toEqual({ affectedTerms: 2 })
    const gateway = await api('GET', `/terms/${ids.gateway}`, viewer.sessionHeaders)
    expect(gateway.json.domains).toEqual([])
    expect(gateway.json.revision).toBe(2)
    const history = await api('GET', `/terms/${ids.gateway}/revisions`, viewer.sessionHeaders)
    expect(history.json.items[0].note).toBe('classification: domain platform removed')
    expect((await api('GET', '/terms?domain=platform', viewer.sessionHeaders)).json.total).toBe(0)
  })
})
