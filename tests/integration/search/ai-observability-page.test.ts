import crypto from 'node:crypto'
import { beforeAll, describe, expect, it } from 'vitest'
import * as observabilityPage from '#app/routes/admin.ai-observability.tsx'
import { em } from '#db/orm.ts'
import { createUser, type TestUser } from '#tests/factories.ts'
import { pageText, usePageServer } from '#tests/page-server.ts'
import { useTestDb } from '#tests/setup/db.ts'

useTestDb()

/**
 * The AI observability page over real HTTP (tests/page-server): admins only; totals, the table by task and
 * model, failures by class, the three SVG charts with their text alternatives, the range picker as a GET form
 * (no JavaScript needed), recent failures linking to the trace view, and the trace view itself — in English and
 * Korean.
 */

const pages = usePageServer({
  'routes/admin.ai-observability': { path: 'admin/ai-observability', module: observabilityPage },
})

let admin: TestUser
let viewer: TestUser
const TRACE = `chat-${crypto.randomUUID()}`

beforeAll(async () => {
  admin = await createUser({ role: 'admin' })
  viewer = await createUser({ role: 'viewer' })
  await em().execute(
    `insert into ai_runs (id, trace_id, task, purpose, provider, model, status, failure_class, http_status,
                          latency_ms, input_tokens, output_tokens, total_tokens, started_at, finished_at)
     values (?, ?, 'embedding', 'chat', 'alpha_compatible', 'embed-small', 'succeeded', null, null, 40, 12, null, 12,
             now() - interval '3 minutes', now() - interval '3 minutes'),
            (?, ?, 'llm', 'chat', 'alpha_compatible', 'chat-large-model', 'failed', 'rate_limited', 429, 30, null,
             null, null, now() - interval '2 minutes', now() - interval '2 minutes'),
            (?, ?, 'llm', 'chat', 'alpha_compatible', 'chat-large-model', 'succeeded', null, null, 90, 500, 80, 580,
             now() - interval '1 minute', now() - interval '1 minute'),
            (?, ?, 'reranker', 'search', 'alpha_compatible', 'rerank-v1', 'running', null, null, null, null, null,
             null, now() - interval '45 minutes', null)`,
    [
      crypto.randomUUID(),
      TRACE,
      crypto.randomUUID(),
      TRACE,
      crypto.randomUUID(),
      TRACE,
      crypto.randomUUID(),
      crypto.randomUUID(),
    ],
  )
})

describe('/admin/ai-observability', () => {
  it('is for admins: a visitor goes to sign in, a viewer gets 403', async () => {
    const visitor = await pages.get('/admin/ai-observability')
    expect(visitor.status).toBe(302)
    expect(visitor.location).toMatch(/^\/login/)
    expect((await pages.get('/admin/ai-observability', viewer.sessionHeaders)).status).toBe(403)
  })

  it('shows totals, the table by model, failures by class, charts with text alternatives and recent failures', async () => {
    const page = await pages.get('/admin/ai-observability', admin.sessionHeaders)
    expect(page.status).toBe(200)
    const text = pageText(page.html)
    expect(text).toContain('AI observability')
    expect(page.html).toMatch(/data-total="calls">4</)
    expect(page.html).toMatch(/data-total="failed">2</)
    expect(page.html).toMatch(/data-total="successRate">50.0%</)
    expect(page.html).toMatch(/data-total="p95">90 ms</)
    expect(page.html).toMatch(/data-total="p50">40 ms</)
    expect(text).toContain('592')
    expect(page.html).toContain('data-group="llm/chat-large-model"')
    expect(page.html).toContain('data-group="embedding/embed-small"')
    expect(page.html).toContain('data-group="reranker/rerank-v1"')
    expect(page.html).toMatch(/data-failure="rate_limited">1</)
    expect(page.html).toMatch(/data-failure="interrupted">1</)
    expect(page.html).toMatch(/data-failure="timeout">0</)
    // Three inline SVG charts, each an image with a label, and the numbers as a table.
    for (const chart of ['chart-calls', 'chart-latency', 'chart-tokens']) {
      expect(page.html).toMatch(
        new RegExp(`<svg[^>]*role="img"[^>]*aria-label="[^"]+"[^>]*data-testid="${chart}"`),
      )
    }
    expect(page.html).toContain('data-testid="ai-series"')
    expect(text).toContain('chat-large-model: 580')
    // The range picker: a GET form with the four ranges, the current one selected.
    expect(page.html).toMatch(/<form method="get"[^>]*>[\s\S]*<select name="hours"/)
    for (const hours of ['1', '24', '168', '720']) expect(page.html).toContain(`<option value="${hours}"`)
    expect(page.html).toMatch(/<option value="24" selected=""/)
    // Recent failures and traces link to the trace view.
    expect(page.html).toContain(`href="/admin/ai-observability?hours=24&amp;trace=${TRACE}"`)
    expect(page.html).not.toContain('data-testid="ai-trace-view"')
  })

  it('takes the range from the address and says when it is not one it can show', async () => {
    const week = await pages.get('/admin/ai-observability?hours=168', admin.sessionHeaders)
    expect(week.html).toMatch(/<option value="168" selected=""/)
    expect(week.html).toMatch(/data-total="calls">4</)
    const bad = await pages.get('/admin/ai-observability?hours=99999', admin.sessionHeaders)
    expect(bad.status).toBe(200)
    expect(pageText(bad.html)).toContain('That time range is not available')
  })

  it("shows a trace's calls in order, and says so when a trace is unknown or malformed", async () => {
    const page = await pages.get(`/admin/ai-observability?hours=24&trace=${TRACE}`, admin.sessionHeaders)
    expect(page.status).toBe(200)
    expect(page.html).toContain('data-testid="ai-trace-view"')
    const view = /data-testid="ai-trace-view"[\s\S]*?<\/section>/.exec(page.html)![0]
    expect([...view.matchAll(/data-status="(\w+)"/g)].map((m) => m[1])).toEqual([
      'succeeded',
      'failed',
      'succeeded',
    ])
    expect(pageText(view)).toContain('rate_limited')
    expect(pageText(view)).toContain('HTTP 429')

    const unknown = await pages.get('/admin/ai-observability?trace=no-such-trace', admin.sessionHeaders)
    expect(unknown.status).toBe(200)
    expect(unknown.html).toContain('data-testid="ai-trace-missing"')
    const malformed = await pages.get(
      `/admin/ai-observability?trace=${encodeURIComponent('a b')}`,
      admin.sessionHeaders,
    )
    expect(pageText(malformed.html)).toContain('That is not a trace id.')
  })

  it('in Korean', async () => {
    const page = await pages.get('/admin/ai-observability', {
      ...admin.sessionHeaders,
      cookie: `${admin.sessionHeaders.cookie}; lang=ko`,
    })
    const text = pageText(page.html)
    expect(text).toContain('AI 관측')
    expect(text).toContain('종류별 실패')
    expect(text).toContain('최근 24시간')
    expect(page.html).toMatch(/<html[^>]*lang="ko"/)
  })
})
