import type { AddressInfo } from 'node:net'
import type { Server } from 'node:http'
import parsePrometheusTextFormat, { type PrometheusFamily } from 'parse-prometheus-text-format'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { parseConfig, setConfig } from '#app/lib/config.server.ts'
import { answerClientErrors, createHttpApp } from '#app/server/http.server.ts'
import { startWorkerMetrics, type WorkerMetricsServer } from '#app/server/worker-metrics.server.ts'
import { beat, forgetWorker } from '#app/services/index-queue/store.server.ts'
import { searchTermChunks } from '#app/services/search/store.server.ts'
import { vectorParam } from '#db/binary-copy.ts'
import { em, getDb } from '#db/orm.ts'
import * as termPage from '#app/routes/terms.$slug._index.tsx'
import { createApiKey, createTerm, createUser, type TestUser } from '#tests/factories.ts'
import { apiCall, dispatch } from '#tests/http.ts'
import { drainIndexQueue } from '#tests/index-queue.ts'
import { usePageServer } from '#tests/page-server.ts'
import { startStandIn, type StandIn } from '#tests/provider-stand-in.ts'
import { useTestDb } from '#tests/setup/db.ts'
import { testEnv } from '#tests/setup/test-env.ts'

/**
 * `GET /metrics` over real HTTP: the Prometheus text parses, every family of issue 31 is there, the counters
 * move with API calls, pages, index rows and AI calls, the route label is a template, and the access rule
 * (addresses by the trusted-proxy rule, or the bearer token) refuses everyone else in the JSON envelope.
 */

const TOKEN = 'metrics-token-0123456789abcdef-0123456789'
// The trusted-proxy rule lets a test play a caller from another address: the proxy's X-Forwarded-For entry.
setConfig(parseConfig(testEnv({ GLOSSARY_TRUST_PROXY_HEADERS: 'true', GLOSSARY_METRICS_TOKEN: TOKEN })))
const FAR_AWAY = { 'x-forwarded-for': '203.0.113.9' }

useTestDb()
const web = usePageServer({ 'routes/terms.$slug._index': { path: 'terms/:slug', module: termPage } })

let admin: TestUser
let readKey: Record<string, string>
let provider: StandIn

beforeAll(async () => {
  admin = await createUser({ role: 'admin' })
  readKey = await createApiKey(admin.user.id, ['read'])
  provider = await startStandIn()
})
afterAll(async () => {
  await provider.close()
  setConfig(parseConfig(testEnv()))
})

async function scrape(base = web.url(), headers: Record<string, string> = {}) {
  const res = await fetch(`${base}/metrics`, { headers })
  const text = await res.text()
  expect(res.status, text).toBe(200)
  return { res, text, families: parsePrometheusTextFormat(text) }
}

function family(families: PrometheusFamily[], name: string): PrometheusFamily {
  const found = families.find((f) => f.name === name)
  if (!found) throw new Error(`no family ${name}`)
  return found
}

/** The sum of the samples with these labels (0 when there is none yet). */
function valueOf(families: PrometheusFamily[], name: string, labels: Record<string, string> = {}): number {
  return family(families, name)
    .metrics.filter((m) => Object.entries(labels).every(([k, v]) => m.labels?.[k] === v))
    .reduce((sum, m) => sum + Number(m.value ?? 0), 0)
}

/**
 * The observations of a labelled histogram's series (its `_count` line). Read from the text: the parser folds
 * the series of a histogram with labels into one sample without them (its flattening knows only unlabelled
 * ones), so it serves the format check and the family's type here, not the counts.
 */
function histogramCount(text: string, name: string, labels: Record<string, string>): number {
  let total = 0
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}_count{`)) continue
    const body = line.slice(line.indexOf('{') + 1, line.lastIndexOf('}'))
    const own = Object.fromEntries([...body.matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((m) => [m[1], m[2]]))
    if (Object.entries(labels).every(([k, v]) => own[k] === v))
      total += Number(line.slice(line.lastIndexOf(' ') + 1))
  }
  return total
}

describe('GET /metrics', () => {
  it('answers the Prometheus text format with every family, uncached', async () => {
    const { res, families } = await scrape()
    expect(res.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8')
    expect(res.headers.get('cache-control')).toBe('no-store')
    const names = families.map((f) => f.name)
    for (const name of [
      'glossary_http_requests_total',
      'glossary_http_request_duration_seconds',
      'glossary_index_queue_rows',
      'glossary_index_queue_oldest_due_seconds',
      'glossary_workers_live',
      'glossary_worker_heartbeat_age_seconds',
      'glossary_index_rows_total',
      'glossary_index_chunks_embedded_total',
      'glossary_ai_calls_total',
      'glossary_ai_call_duration_seconds',
      'glossary_db_connections',
      'process_resident_memory_bytes',
      'nodejs_heap_size_used_bytes',
    ]) {
      expect(names, name).toContain(name)
    }
    expect(family(families, 'glossary_http_request_duration_seconds').type).toBe('HISTOGRAM')
    // Every queue state and connection state is always there, 0 when none.
    const states = family(families, 'glossary_index_queue_rows').metrics.map((m) => m.labels?.state)
    expect(states.sort()).toEqual(['failed', 'processing', 'queued', 'ready'])
    const pool = family(families, 'glossary_db_connections')
      .metrics.filter((m) => m.labels?.pool === 'orm')
      .map((m) => m.labels?.state)
    expect(pool.sort()).toEqual(['free', 'pending', 'used'])
    // This scrape's own connection was given back by the time the gauge was read, or is the one in use.
    expect(valueOf(families, 'glossary_db_connections', { pool: 'orm', state: 'pending' })).toBe(0)
  })

  it('reports the search pool’s connections on PostgreSQL once a search ran (none on the embedded engine)', async () => {
    await searchTermChunks(em(), {
      vector: vectorParam(Array.from({ length: 1536 }, (_, i) => (i % 7) / 7)),
      space: 'metrics|none|none',
      limit: 3,
      domain: null,
    })
    const { families } = await scrape()
    const search = family(families, 'glossary_db_connections').metrics.filter(
      (m) => m.labels?.pool === 'search',
    )
    if (getDb().pglite) {
      expect(search).toEqual([])
    } else {
      expect(search.map((m) => m.labels?.state).sort()).toEqual(['free', 'pending', 'used'])
      // The search gave its connection back: one open and idle.
      expect(valueOf(families, 'glossary_db_connections', { pool: 'search', state: 'free' })).toBeGreaterThan(
        0,
      )
      expect(valueOf(families, 'glossary_db_connections', { pool: 'search', state: 'used' })).toBe(0)
    }
  })

  it('counts API calls by their endpoint template: two ids are one series', async () => {
    const a = await createTerm()
    const b = await createTerm()
    const route = '/api/v1/terms/{idOrSlug}'
    const labels = { method: 'GET', route, status: '200' }
    const first = await scrape()
    const before = valueOf(first.families, 'glossary_http_requests_total', labels)
    const timedBefore = histogramCount(first.text, 'glossary_http_request_duration_seconds', {
      method: 'GET',
      route,
    })
    for (const id of [a.id, b.id, a.slug]) {
      expect((await apiCall(web.url(), 'GET', `/terms/${id}`, readKey)).status).toBe(200)
    }
    expect((await apiCall(web.url(), 'GET', '/terms/no-such-term', readKey)).status).toBe(404)
    const { families, text } = await scrape()
    expect(valueOf(families, 'glossary_http_requests_total', labels)).toBe(before + 3)
    expect(valueOf(families, 'glossary_http_requests_total', { route, status: '404' })).toBeGreaterThan(0)
    const routes = new Set(
      family(families, 'glossary_http_requests_total').metrics.map((m) => m.labels?.route ?? ''),
    )
    for (const r of routes) expect(r, 'a raw path became a label').not.toMatch(/[0-9a-f]{8}-|no-such/)
    expect(histogramCount(text, 'glossary_http_request_duration_seconds', { method: 'GET', route })).toBe(
      timedBefore + 4,
    )
    // An address no endpoint has, the health routes and the scrape itself.
    await fetch(`${web.url()}/api/v1/no/such/thing`)
    await fetch(`${web.url()}/healthz`)
    const after = (await scrape()).families
    expect(
      valueOf(after, 'glossary_http_requests_total', { route: 'unmatched', status: '404' }),
    ).toBeGreaterThan(0)
    expect(valueOf(after, 'glossary_http_requests_total', { route: '/healthz' })).toBeGreaterThan(0)
    expect(valueOf(after, 'glossary_http_requests_total', { route: '/metrics' })).toBeGreaterThan(0)
  })

  it('counts pages by their Remix route id', async () => {
    const term = await createTerm()
    const labels = { method: 'GET', route: 'routes/terms.$slug._index' }
    const before = await scrape()
    const pages = [await web.get(`/terms/${term.slug}`), await web.get('/terms/another-slug')]
    expect(pages.map((p) => p.status)).not.toContain(500)
    const { families, text } = await scrape()
    expect(valueOf(families, 'glossary_http_requests_total', labels)).toBe(
      valueOf(before.families, 'glossary_http_requests_total', labels) + 2,
    )
    expect(histogramCount(text, 'glossary_http_request_duration_seconds', labels)).toBe(
      histogramCount(before.text, 'glossary_http_request_duration_seconds', labels) + 2,
    )
    // A page no route of the build matches.
    await web.get('/no-such-page')
    expect(
      valueOf((await scrape()).families, 'glossary_http_requests_total', { route: 'unmatched' }),
    ).toBeGreaterThan(0)
  })

  it('counts index rows, embedded chunks and AI calls, and reads the queue and the workers at scrape time', async () => {
    const res = await dispatch('/admin/rag-config', {
      method: 'PATCH',
      headers: admin.sessionHeaders,
      body: {
        enabled: true,
        embeddingBaseUrl: provider.url,
        embeddingModel: 'text-embed-small',
        embeddingApiKey: 'sk-metrics-test',
        chunkSize: 400,
        chunkOverlap: 50,
      },
    })
    expect(res.status, await res.clone().text()).toBe(200)
    await drainIndexQueue() // the terms of the tests above
    const { families: before, text: beforeText } = await scrape()
    await createTerm({ name: 'Metered Term', definition: 'A term whose indexing is counted.' })
    const queued = (await scrape()).families
    expect(valueOf(queued, 'glossary_index_queue_rows', { state: 'queued' })).toBe(
      valueOf(before, 'glossary_index_queue_rows', { state: 'queued' }) + 1,
    )
    await drainIndexQueue()
    const { families: after, text: afterText } = await scrape()
    const moved = (name: string, labels: Record<string, string> = {}) =>
      valueOf(after, name, labels) - valueOf(before, name, labels)
    expect(moved('glossary_index_rows_total', { outcome: 'ready' })).toBe(1)
    expect(moved('glossary_index_chunks_embedded_total')).toBeGreaterThan(0)
    expect(moved('glossary_ai_calls_total', { task: 'embedding', outcome: 'succeeded' })).toBeGreaterThan(0)
    const timed = (text: string) =>
      histogramCount(text, 'glossary_ai_call_duration_seconds', { task: 'embedding' })
    expect(timed(afterText)).toBeGreaterThan(timed(beforeText))
    expect(moved('glossary_index_queue_rows', { state: 'ready' })).toBe(1)
    expect(valueOf(after, 'glossary_index_queue_rows', { state: 'queued' })).toBe(0)

    // A failing provider call is counted by its failure class.
    provider.failNext(401)
    const search = await dispatch('/rag/search', { headers: readKey, body: { query: 'metered' } })
    expect(search.status).toBe(502)
    const failed = (await scrape()).families
    expect(
      valueOf(failed, 'glossary_ai_calls_total', { task: 'embedding', outcome: 'authentication' }) -
        valueOf(after, 'glossary_ai_calls_total', { task: 'embedding', outcome: 'authentication' }),
    ).toBe(1)

    await beat(em(), 'metrics-test-worker', 'in-process')
    try {
      const live = (await scrape()).families
      expect(valueOf(live, 'glossary_workers_live')).toBeGreaterThanOrEqual(1)
      const ages = family(live, 'glossary_worker_heartbeat_age_seconds').metrics
      const age = ages.find((m) => m.labels?.worker === 'metrics-test-worker')
      expect(Number(age?.value)).toBeGreaterThanOrEqual(0)
      expect(Number(age?.value)).toBeLessThan(30)
    } finally {
      await forgetWorker(em(), 'metrics-test-worker')
    }
    const gone = family((await scrape()).families, 'glossary_worker_heartbeat_age_seconds').metrics
    expect(gone.map((m) => m.labels?.worker)).not.toContain('metrics-test-worker')
  })
})

describe('who may read /metrics', () => {
  it('refuses an address outside the allow list without a token: 403 in the envelope', async () => {
    const res = await fetch(`${web.url()}/metrics`, { headers: FAR_AWAY })
    expect(res.status).toBe(403)
    expect(res.headers.get('content-type')).toMatch(/^application\/json/)
    expect(res.headers.get('cache-control')).toBe('no-store')
    expect((await res.json()).error.code).toBe('forbidden')
  })

  it('refuses a wrong or malformed token with 401 and WWW-Authenticate, and never echoes it', async () => {
    for (const authorization of [`Bearer ${TOKEN}x`, 'Bearer', `Basic ${TOKEN}`, `Bearer ${TOKEN} extra`]) {
      const res = await fetch(`${web.url()}/metrics`, { headers: { ...FAR_AWAY, authorization } })
      expect(res.status, authorization).toBe(401)
      expect(res.headers.get('www-authenticate')).toBe('Bearer')
      const text = await res.text()
      expect(JSON.parse(text).error.code).toBe('unauthorized')
      expect(text).not.toContain(TOKEN.slice(0, 12))
    }
  })

  it('opens to the right token from any address', async () => {
    await scrape(web.url(), { ...FAR_AWAY, authorization: `Bearer ${TOKEN}` })
    await scrape(web.url(), { ...FAR_AWAY, authorization: `bearer ${TOKEN}` })
  })

  it('opens to an allowed address (this machine by default) without a token', async () => {
    await scrape()
  })

  it('with the allow list `none`, only the token opens it; a CIDR range opens to its addresses', async () => {
    const cases: [Record<string, string>, Record<string, string>, number][] = [
      [{ GLOSSARY_METRICS_ALLOW: 'none' }, {}, 403],
      [{ GLOSSARY_METRICS_ALLOW: 'none' }, { authorization: `Bearer ${TOKEN}` }, 200],
      [{ GLOSSARY_METRICS_ALLOW: '203.0.113.0/24' }, FAR_AWAY, 200],
      [{ GLOSSARY_METRICS_ALLOW: '203.0.113.0/24' }, {}, 403],
      [{ GLOSSARY_METRICS_ALLOW: '10.0.0.0/8,::1/128' }, FAR_AWAY, 403],
    ]
    for (const [env, headers, status] of cases) {
      const base = testEnv({ GLOSSARY_TRUST_PROXY_HEADERS: 'true', GLOSSARY_METRICS_TOKEN: TOKEN })
      setConfig(parseConfig({ ...base, ...env }))
      const server = answerClientErrors(createHttpApp().listen(0, '127.0.0.1'))
      try {
        await new Promise<void>((resolve) => server.once('listening', resolve))
        const res = await fetch(`${urlOf(server)}/metrics`, { headers })
        expect(res.status, JSON.stringify([env, headers])).toBe(status)
        await res.arrayBuffer()
      } finally {
        server.closeAllConnections()
        await new Promise<void>((resolve) => server.close(() => resolve()))
        setConfig(
          parseConfig(testEnv({ GLOSSARY_TRUST_PROXY_HEADERS: 'true', GLOSSARY_METRICS_TOKEN: TOKEN })),
        )
      }
    }
  })
})

describe("glossary worker's metrics port", () => {
  let worker: WorkerMetricsServer | undefined
  afterAll(async () => {
    await worker?.close()
  })

  it('serves the same metrics under the same rule, and nothing else', async () => {
    worker = await startWorkerMetrics(0)
    const base = `http://127.0.0.1:${worker!.port}`
    const { families } = await scrape(base)
    expect(families.map((f) => f.name)).toContain('glossary_index_rows_total')
    expect(valueOf(families, 'glossary_index_rows_total', { outcome: 'ready' })).toBeGreaterThan(0)
    expect((await fetch(`${base}/metrics`, { headers: FAR_AWAY })).status).toBe(403)
    const other = await fetch(`${base}/api/v1/terms`)
    expect(other.status).toBe(404)
    expect((await other.json()).error.code).toBe('not_found')
  })

  it('serves nothing when the port is unset', async () => {
    expect(await startWorkerMetrics(undefined)).toBeUndefined()
  })
})

function urlOf(server: Server): string {
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`
}
