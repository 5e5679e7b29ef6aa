import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { setLogDestination } from '#app/lib/logger.server.ts'
import { UpdateTermSchema } from '#app/schemas/terms.ts'
import { CALL_LIMITS, setCallTimeout } from '#app/services/ai/provider.server.ts'
import { updateTerm } from '#app/services/terms/write.server.ts'
import { em } from '#db/orm.ts'
import { OUTAGE, RETRY, runStage, type StageName } from '#pipeline/flow.ts'
import { forgetRerankProbe } from '#pipeline/stages/rerank-check.ts'
import { createApiKey, createTerm, createUser, type TestUser } from '#tests/factories.ts'
import { dispatch } from '#tests/http.ts'
import { drainIndexQueue, TEST_HOLDER } from '#tests/index-queue.ts'
import { startStandIn, type StandIn } from '#tests/provider-stand-in.ts'
import { captureLogLines } from '#tests/log-lines.ts'
import { useTestDb } from '#tests/setup/db.ts'

useTestDb()

/**
 * The index pipeline on the in-process transport (the embedded default) and the three searches over what it
 * indexed: live sources only, exact names first, revisions never indexed backwards, provider failures
 * retried then failed with a safe message, embeddings reused, 502/503 paths.
 */

let admin: TestUser
let readKey: Record<string, string>
let provider: StandIn
const SECRET = 'sk-pipeline-SECRET-42'

const drain = drainIndexQueue
const OUTAGE_DEFAULTS = { ...OUTAGE }

async function search(path: string, body: Record<string, unknown>) {
  const res = await dispatch(path, { headers: readKey, body })
  const text = await res.text()
  return { status: res.status, text, json: JSON.parse(text) }
}

async function rowsOf(sourceId: string) {
  return em().execute<{ status: string; revision: number; error: string | null; action: string }[]>(
    'select status, revision, error, action from rag_index_queue where source_id = ? order by created_at',
    [sourceId],
  )
}

/** Every log line of this file, at every level: none may hold a secret. */
const logLines: string[] = []

beforeAll(async () => {
  captureLogLines(logLines)
  admin = await createUser({ role: 'admin' })
  readKey = await createApiKey(admin.user.id, ['read'])
  provider = await startStandIn()
  RETRY.backoffMs = 5
  Object.assign(OUTAGE, { baseMs: 5, maxMs: 40 })
  const res = await dispatch('/admin/rag-config', {
    method: 'PATCH',
    headers: admin.sessionHeaders,
    body: {
      enabled: true,
      embeddingBaseUrl: provider.url,
      embeddingModel: 'text-embed-small',
      embeddingApiKey: SECRET,
      chunkSize: 400,
      chunkOverlap: 50,
    },
  })
  expect(res.status, await res.clone().text()).toBe(200)
})
afterAll(async () => {
  setLogDestination(undefined)
  RETRY.backoffMs = 5_000
  Object.assign(OUTAGE, OUTAGE_DEFAULTS)
  await provider.close()
})
beforeEach(() => {
  forgetRerankProbe()
})

describe('indexing and term search', () => {
  it('indexes terms and finds them; an exact notation comes first even when the vector ranks it lower', async () => {
    const target = await createTerm({
      name: 'Settlement Batch',
      notations: [{ text: 'STLB-9', kind: 'admitted', lang: null }],
      definition: 'Nightly job that closes the ledger.',
    })
    await createTerm({ name: 'Ledger Close', definition: 'stlb 9 stlb 9 stlb 9 ledger close stlb 9' })
    await drain()
    expect((await rowsOf(target.id)).map((r) => r.status)).toEqual(['ready'])
    const res = await search('/rag/search', { query: 'STLB-9' })
    expect(res.status, res.text).toBe(200)
    expect(res.json.items[0].termId).toBe(target.id)
    const item = res.json.items[0]
    expect(Object.keys(item).sort()).toEqual(
      [
        'id',
        'termId',
        'slug',
        'title',
        'nameEn',
        'nameKo',
        'domain',
        'categories',
        'tags',
        'topic',
        'status',
        'revision',
        'sourceField',
        'content',
        'metadata',
        'score',
        'updatedAt',
      ].sort(),
    )
    expect(item.metadata).toEqual({ termId: target.id, revision: 1, sourceField: item.sourceField })
    expect(item.score).toBeGreaterThan(0)
    expect(item.score).toBeLessThanOrEqual(1)
    expect(res.json).toMatchObject({ query: 'STLB-9', reranked: false, total: res.json.items.length })
    expect(res.text).not.toContain(SECRET)
  })

  it('filters after the index scan still fill topK: the search asks the index again for more candidates', async () => {
    const res = await dispatch('/domains', {
      headers: admin.sessionHeaders,
      body: { key: 'far-zoo', nameKo: '먼 동물원', nameEn: 'Far zoo' },
    })
    expect(res.status, await res.clone().text()).toBe(201)
    // Eight terms nearer to the query than the one of the domain: with topK 1 the index is first asked for
    // OVERFETCH (4) candidates, none of them in the domain.
    for (let i = 0; i < 8; i++) {
      await createTerm({ name: `Walrus Herd ${i}`, definition: 'walrus tusks walrus herd walrus' })
    }
    const far = await createTerm({
      name: 'Distant Okapi',
      domains: ['far-zoo'],
      definition: 'okapi forest walrus',
    })
    await drain()
    const all = await search('/rag/search', { query: 'walrus tusks herd', topK: 4 })
    expect(all.json.items.map((i: { termId: string }) => i.termId)).not.toContain(far.id)
    const res2 = await search('/rag/search', { query: 'walrus tusks herd', topK: 1, domain: 'far-zoo' })
    expect(res2.status, res2.text).toBe(200)
    expect(res2.json.items.map((i: { termId: string }) => i.termId)).toEqual([far.id])
  })

  it('a new revision replaces the chunks; a row of an older revision is skipped, never indexed over the newer', async () => {
    const term = await createTerm({ name: 'Revised Term', definition: 'first words alpha' })
    await drain()
    // Revision 1's row is in flight (claimed and chunked) when revision 2 is saved; then it runs on.
    await em().execute(`update rag_index_queue set status = 'queued' where source_id = ?`, [term.id])
    const [old] = await em().execute<{ id: string; revision: number; attempts: number }[]>(
      'select id, revision, attempts from rag_index_queue where source_id = ?',
      [term.id],
    )
    expect(old!.revision).toBe(1)
    const payload = { rowId: old!.id, revision: 1, attempt: old!.attempts + 1 }
    let stage: StageName | undefined = await runStage('chunk', payload, TEST_HOLDER)
    expect(stage).toBe('embed')
    await updateTerm({
      idOrSlug: term.id,
      input: UpdateTermSchema.parse({ baseRevision: 1, definition: 'second words omega' }),
      actorId: admin.user.id,
    })
    while (stage) stage = await runStage(stage, payload, TEST_HOLDER)
    await drain()
    const chunks = await em().execute<{ revision: number; content: string }[]>(
      'select revision, content from term_chunks where term_id = ?',
      [term.id],
    )
    expect(new Set(chunks.map((c) => c.revision))).toEqual(new Set([2]))
    expect(chunks.map((c) => c.content).join(' ')).toContain('omega')
    expect(chunks.map((c) => c.content).join(' ')).not.toContain('alpha')
  })

  it('deleted and merged terms leave the results', async () => {
    const gone = await createTerm({ name: 'Vanishing Quokka', definition: 'quokka quokka' })
    const merged = await createTerm({ name: 'Merged Quokka', definition: 'quokka island' })
    const survivor = await createTerm({ name: 'Island Marsupial', definition: 'small marsupial' })
    await drain()
    let res = await search('/rag/search', { query: 'quokka', topK: 50 })
    expect(res.json.items.map((i: { termId: string }) => i.termId)).toEqual(
      expect.arrayContaining([gone.id, merged.id]),
    )
    await dispatch(`/terms/${gone.id}`, { method: 'DELETE', headers: admin.sessionHeaders })
    await dispatch(`/terms/${merged.id}/merge`, {
      headers: admin.sessionHeaders,
      body: { into: survivor.id },
    })
    // Results are right from the commit on, before the worker removes the chunks…
    res = await search('/rag/search', { query: 'quokka', topK: 50 })
    const ids = res.json.items.map((i: { termId: string }) => i.termId)
    expect(ids).not.toContain(gone.id)
    expect(ids).not.toContain(merged.id)
    await drain()
    // …and the chunks are gone after it.
    const [{ n }] = await em().execute<{ n: string }[]>(
      'select count(*) as n from term_chunks where term_id = any(?::uuid[])',
      [`{${gone.id},${merged.id}}`],
    )
    expect(Number(n)).toBe(0)
  })

  it('unchanged text is not embedded again', async () => {
    const term = await createTerm({ name: 'Stable Term', definition: 'nothing changes here' })
    await drain()
    provider.requests.length = 0
    await dispatch('/admin/rag-config/reindex', { method: 'POST', headers: admin.sessionHeaders })
    await drain()
    expect(provider.requests.filter((r) => r.path.endsWith('/embeddings'))).toHaveLength(0)
    expect((await rowsOf(term.id)).at(-1)!.status).toBe('ready')
  })

  it('a 429 and a 5xx pause the provider: the row waits without spending its attempts, then is indexed', async () => {
    const term = await createTerm({ name: 'Flaky Provider Term' })
    provider.failNext(429)
    provider.failNext(500)
    await drain()
    const rows = await em().execute<{ status: string; attempts: number }[]>(
      'select status, attempts from rag_index_queue where source_id = ?',
      [term.id],
    )
    expect(rows).toEqual([{ status: 'ready', attempts: 1 }])
    // The success ended the outage.
    expect(await em().execute('select * from index_provider_pauses')).toEqual([])
  })

  it('an outage outlasting every retry of a row: nothing fails, and the provider is called only once per pause', async () => {
    const term = await createTerm({ name: 'Outage Survivor Term' })
    provider.requests.length = 0
    provider.failNext(503, RETRY.attempts * 3)
    await drain()
    const [row] = await rowsOf(term.id)
    expect(row!.status).toBe('ready')
    // Each failed call paused the provider; nothing called it again before its pause ended.
    expect(provider.requests.filter((r) => r.path.endsWith('/embeddings'))).toHaveLength(
      RETRY.attempts * 3 + 1,
    )
  })

  it("a provider's Retry-After is honoured: the row waits that long, whatever the backoff says", async () => {
    const term = await createTerm({ name: 'Retry After Term' })
    provider.failNext(429, 1, { 'Retry-After': '1' })
    const before = Date.now()
    await drain()
    expect((await rowsOf(term.id)).map((r) => r.status)).toEqual(['ready'])
    const calls = provider.requests.filter((r) => r.path.endsWith('/embeddings'))
    expect(calls.length).toBeGreaterThanOrEqual(2)
    // The retry came after the provider's second, not after the 5 ms backoff of this file.
    expect(Date.now() - before).toBeGreaterThanOrEqual(1000)
  })

  it('a provider that keeps failing past the outage budget marks the row failed with a short, secret-free message; reindex retries it', async () => {
    OUTAGE.budgetMs = -1
    try {
      const term = await createTerm({ name: 'Broken Provider Term' })
      provider.failNext(500, RETRY.attempts)
      await drain()
      const [row] = await rowsOf(term.id)
      expect(row!.status).toBe('failed')
      expect(row!.error).toMatch(/provider_unavailable \(HTTP 500\)/)
      expect(row!.error).not.toContain('secret echo')
      expect(row!.error).not.toContain(SECRET)
      expect(row!.error!.length).toBeLessThanOrEqual(500)
      const runs = await em().execute<Record<string, unknown>[]>(
        `select * from ai_runs where purpose = 'index'`,
      )
      expect(JSON.stringify(runs)).not.toContain(SECRET)
      expect(JSON.stringify(runs)).not.toContain('Broken Provider Term')
      await dispatch('/admin/rag-config/reindex', { method: 'POST', headers: admin.sessionHeaders })
      await drain()
      expect((await rowsOf(term.id)).map((r) => r.status)).toEqual(['ready'])
    } finally {
      OUTAGE.budgetMs = OUTAGE_DEFAULTS.budgetMs
    }
  })

  it('an authentication failure is not retried', async () => {
    const term = await createTerm({ name: 'Unauthorized Term' })
    provider.failNext(401)
    await drain()
    const rows = await rowsOf(term.id)
    expect(rows.map((r) => r.status)).toEqual(['failed'])
    expect(rows[0]!.error).toMatch(/authentication/)
  })

  it('search: 502 with the failure class when the provider fails, 503 when search is off, 403 for validate-only keys', async () => {
    provider.failNext(500)
    let res = await search('/rag/search', { query: 'anything' })
    expect(res.status).toBe(502)
    expect(res.json.error.code).toBe('rag_provider_error')
    expect(res.text).toContain('provider_unavailable')
    expect(res.text).not.toContain(SECRET)
    const validateKey = await createApiKey(admin.user.id, ['validate'])
    expect((await dispatch('/rag/search', { headers: validateKey, body: { query: 'x' } })).status).toBe(403)
    expect((await dispatch('/rag/search', { body: { query: 'x' } })).status).toBe(401)
    expect((await search('/rag/search', { query: '' })).status).toBe(400)
    expect((await search('/rag/search', { query: 'x'.repeat(20_001) })).status).toBe(400)
    expect((await search('/rag/search', { query: 'x', topK: 51 })).status).toBe(400)
    await dispatch('/admin/rag-config', {
      method: 'PATCH',
      headers: admin.sessionHeaders,
      body: { enabled: false },
    })
    res = await search('/rag/search', { query: 'anything' })
    expect(res.status).toBe(503)
    expect(res.json.error.code).toBe('rag_not_ready')
    await dispatch('/admin/rag-config', {
      method: 'PATCH',
      headers: admin.sessionHeaders,
      body: { enabled: true },
    })
  })

  it('a provider slower than the time limit: 502 naming the timeout', async () => {
    const before = CALL_LIMITS.timeoutMs
    setCallTimeout(100)
    provider.delayMs = 400
    try {
      const res = await search('/rag/search', { query: 'slow answer' })
      expect(res.status).toBe(502)
      expect(res.text).toContain('timeout')
    } finally {
      provider.delayMs = 0
      setCallTimeout(before)
    }
  })

  it('reranks when asked: rerankScore only on scored items, reranked true', async () => {
    await dispatch('/admin/rag-config', {
      method: 'PATCH',
      headers: admin.sessionHeaders,
      body: { rerankerEnabled: true, rerankerBaseUrl: provider.url, rerankerModel: 'bge-reranker-v2' },
    })
    await createTerm({ name: 'Rerank Candidate', definition: 'wombat burrow' })
    await drain()
    const res = await search('/rag/search', { query: 'wombat burrow', topK: 5 })
    expect(res.status, res.text).toBe(200)
    expect(res.json.reranked).toBe(true)
    expect(res.json.items.every((i: { rerankScore?: number }) => typeof i.rerankScore === 'number')).toBe(
      true,
    )
    const plain = await search('/rag/search', { query: 'wombat burrow', topK: 5, rerank: false })
    expect(plain.json.reranked).toBe(false)
    expect(plain.json.items.some((i: { rerankScore?: number }) => 'rerankScore' in i)).toBe(false)
    await dispatch('/admin/rag-config', {
      method: 'PATCH',
      headers: admin.sessionHeaders,
      body: { rerankerEnabled: false },
    })
  })
})

describe('wiki and meeting search', () => {
  it('only published pages; offsets point into the original text; draft or archived pages leave search', async () => {
    const content = `# Capybara\n\n${'Capybaras are the largest rodents. '.repeat(30)}\n\nThe end about otters.`
    const published = await dispatch('/wiki', {
      headers: admin.sessionHeaders,
      body: { title: 'Capybara facts', content, status: 'published', domain: ['zoo'] },
    })
    expect(published.status, await published.clone().text()).toBe(201)
    const page = (await published.json()) as { id: string; slug: string }
    await dispatch('/wiki', {
      headers: admin.sessionHeaders,
      body: { title: 'Capybara draft', content: 'capybara draft text', status: 'draft' },
    })
    await drain()
    let res = await search('/rag/wiki/search', { query: 'capybara rodents', topK: 50 })
    expect(res.status, res.text).toBe(200)
    expect(res.json.items.length).toBeGreaterThan(1)
    for (const item of res.json.items) {
      expect(item.wikiPageId).toBe(page.id)
      expect(content.slice(item.startOffset, item.endOffset)).toBe(item.content)
    }
    expect((await search('/rag/wiki/search', { query: 'capybara', domain: 'other' })).json.items).toEqual([])
    await dispatch(`/wiki/${page.slug}`, {
      method: 'PATCH',
      headers: admin.sessionHeaders,
      body: { status: 'archived' },
    })
    res = await search('/rag/wiki/search', { query: 'capybara rodents' })
    expect(res.json.items).toEqual([])
    await drain()
    const [{ n }] = await em().execute<{ n: string }[]>(
      'select count(*) as n from wiki_chunks where page_id = ?',
      [page.id],
    )
    expect(Number(n)).toBe(0)
  })

  it('active meetings only, filtered by team and date', async () => {
    const make = async (title: string, team: string, date: string) => {
      const res = await dispatch('/meetings', {
        headers: admin.sessionHeaders,
        body: {
          title,
          meetingDate: date,
          team,
          content: `${title}: we discussed the pangolin migration plan.`,
        },
      })
      expect(res.status, await res.clone().text()).toBe(201)
      return ((await res.json()) as { id: string }).id
    }
    const a = await make('Alpha sync', 'alpha', '2024-01-10')
    const b = await make('Beta sync', 'beta', '2024-03-10')
    await drain()
    let res = await search('/rag/meetings/search', { query: 'pangolin migration' })
    expect(res.status, res.text).toBe(200)
    expect(new Set(res.json.items.map((i: { meetingId: string }) => i.meetingId))).toEqual(new Set([a, b]))
    res = await search('/rag/meetings/search', { query: 'pangolin', team: 'beta' })
    expect(res.json.items.map((i: { meetingId: string }) => i.meetingId)).toEqual([b])
    res = await search('/rag/meetings/search', { query: 'pangolin', from: '2024-02-01', to: '2024-12-31' })
    expect(res.json.items.map((i: { meetingId: string }) => i.meetingId)).toEqual([b])
    await dispatch(`/meetings/${b}/archive`, { method: 'POST', headers: admin.sessionHeaders })
    res = await search('/rag/meetings/search', { query: 'pangolin' })
    expect(res.json.items.map((i: { meetingId: string }) => i.meetingId)).toEqual([a])
  })
})

describe('logs', () => {
  it('no log line of the whole file holds the API key or a provider answer body', () => {
    expect(logLines.length).toBeGreaterThan(0)
    for (const line of logLines) {
      expect(line).not.toContain(SECRET)
      expect(line).not.toContain('secret echo')
    }
  })
})
