import crypto from 'node:crypto'
import { beforeAll, describe, expect, it } from 'vitest'
import { INTERRUPTED_AFTER_MINUTES } from '#app/services/ai/observability.server.ts'
import { deleteRunsBefore, finishRun, insertRun } from '#app/services/ai/store.server.ts'
import { em } from '#db/orm.ts'
import { createApiKey, createUser, type TestUser } from '#tests/factories.ts'
import { dispatch } from '#tests/http.ts'
import { useTestDb } from '#tests/setup/db.ts'

useTestDb()

/**
 * `GET /admin/ai-observability` and its trace view (issue 29, decision 030) on known rows written straight into
 * `ai_runs` (and one through the run recorder's own store): every aggregate exact, an interrupted `running` row
 * counted as a failure, rows outside the window left out, the rollups following inserts, updates and the
 * cleanup's deletes; who may call it and what `hours` accepts.
 */

let admin: TestUser
let viewer: TestUser

interface Row {
  task: 'embedding' | 'reranker' | 'llm' | 'models'
  model: string
  status: 'succeeded' | 'failed' | 'running'
  failureClass?: string
  latencyMs?: number
  input?: number
  output?: number
  total?: number
  /** Minutes before now; without it, a second of the hour two hours ago (the row's place in the list). */
  ago?: number
  trace?: string
  purpose?: string
}

async function insertRows(rows: Row[]): Promise<void> {
  // One statement, as a bulk load would: the statement-level triggers roll up every row at once.
  await em().execute(
    `insert into ai_runs (id, trace_id, task, purpose, provider, model, status, failure_class, http_status,
                          latency_ms, input_tokens, output_tokens, total_tokens, started_at, finished_at)
     select (r->>'id')::uuid, r->>'trace', r->>'task', r->>'purpose', 'alpha_compatible', r->>'model',
            r->>'status', r->>'failureClass', (r->>'httpStatus')::int, (r->>'latencyMs')::int,
            (r->>'input')::int, (r->>'output')::int, (r->>'total')::int,
            t.at, case when r->>'status' = 'running' then null else t.at end
       from jsonb_array_elements(?::jsonb) r,
            lateral (select case when r->>'ago' is null
                                 then date_trunc('hour', now(), 'UTC') - interval '2 hours'
                                      + make_interval(secs => (r->>'slot')::int)
                                 else now() - make_interval(mins => (r->>'ago')::int) end as at) t`,
    [
      JSON.stringify(
        rows.map((row, i) => ({
          id: crypto.randomUUID(),
          slot: i + 1,
          trace: row.trace ?? crypto.randomUUID(),
          purpose: row.purpose ?? 'search',
          httpStatus: row.failureClass === 'authentication' ? 401 : null,
          ...row,
        })),
      ),
    ],
  )
}

const CHAT = 'trace-chat-1'

beforeAll(async () => {
  admin = await createUser({ role: 'admin' })
  viewer = await createUser({ role: 'viewer' })
  await insertRows([
    // embedding, model A: 3 succeeded, an authentication failure, a timeout
    { task: 'embedding', model: 'emb-a', status: 'succeeded', latencyMs: 10, input: 5, total: 5 },
    { task: 'embedding', model: 'emb-a', status: 'succeeded', latencyMs: 20, input: 5, total: 5 },
    { task: 'embedding', model: 'emb-a', status: 'succeeded', latencyMs: 30, input: 5, total: 5 },
    { task: 'embedding', model: 'emb-a', status: 'failed', failureClass: 'authentication', latencyMs: 40 },
    { task: 'embedding', model: 'emb-a', status: 'failed', failureClass: 'timeout', latencyMs: 90 },
    // embedding, model B: 2 succeeded, rate limited once
    { task: 'embedding', model: 'emb-b', status: 'succeeded', latencyMs: 50, input: 7, total: 7 },
    { task: 'embedding', model: 'emb-b', status: 'succeeded', latencyMs: 60, input: 7, total: 7 },
    { task: 'embedding', model: 'emb-b', status: 'failed', failureClass: 'rate_limited', latencyMs: 5 },
    // one chat request: reranker and LLM calls sharing a trace
    { task: 'reranker', model: 'rr-1', status: 'succeeded', latencyMs: 70, trace: CHAT, purpose: 'chat' },
    { task: 'reranker', model: 'rr-1', status: 'failed', failureClass: 'model_not_found', latencyMs: 15 },
    {
      task: 'llm',
      model: 'llm-1',
      status: 'succeeded',
      latencyMs: 80,
      input: 100,
      output: 20,
      total: 120,
      trace: CHAT,
      purpose: 'chat',
    },
    // no total reported: input + output
    { task: 'llm', model: 'llm-1', status: 'succeeded', latencyMs: 1000, input: 100, output: 20 },
    { task: 'llm', model: 'llm-1', status: 'failed', failureClass: 'provider_unavailable', latencyMs: 25 },
    // left running past the bound: interrupted; and one running now
    {
      task: 'llm',
      model: 'llm-1',
      status: 'running',
      ago: INTERRUPTED_AFTER_MINUTES + 20,
      trace: CHAT,
      purpose: 'chat',
    },
    { task: 'llm', model: 'llm-1', status: 'running', ago: 1 },
    // not the dashboard's: listing models, and calls before the window
    { task: 'models', model: 'list', status: 'failed', failureClass: 'timeout', latencyMs: 3 },
    {
      task: 'embedding',
      model: 'emb-a',
      status: 'succeeded',
      latencyMs: 1,
      input: 1,
      total: 1,
      ago: 30 * 60,
    },
    { task: 'llm', model: 'llm-1', status: 'failed', failureClass: 'timeout', latencyMs: 2, ago: 48 * 60 },
  ])
  // One call as the recorder writes it: `running`, then finished by an update.
  const id = crypto.randomUUID()
  await insertRun(em(), {
    id,
    traceId: crypto.randomUUID(),
    task: 'embedding',
    purpose: 'index',
    provider: 'alpha_compatible',
    model: 'emb-c',
    items: 2,
  })
  await finishRun(em(), id, {
    status: 'succeeded',
    failureClass: null,
    httpStatus: null,
    latencyMs: 12,
    inputTokens: 3,
    totalTokens: 3,
  })
})

const get = (path: string, headers: Record<string, string> = admin.sessionHeaders) =>
  dispatch(path, { headers })

const noFailures = {
  authentication: 0,
  model_not_found: 0,
  rate_limited: 0,
  provider_unavailable: 0,
  timeout: 0,
  interrupted: 0,
}

describe('GET /admin/ai-observability', () => {
  it('aggregates the last 24 hours exactly: totals, per task, per task and model, failures by class', async () => {
    const res = await get('/admin/ai-observability?hours=24')
    expect(res.status).toBe(200)
    const body = await res.json()
    const [row] = await em().execute<{ ms: number }[]>(
      'select ai_latency_bucket_ms(ai_latency_bucket(1000)) as ms',
    )
    const bigBucketMs = Number(row!.ms)
    expect(bigBucketMs).toBeGreaterThanOrEqual(1000)
    expect(bigBucketMs).toBeLessThanOrEqual(1050)

    expect(body).toMatchObject({
      hours: 24,
      bucket: 'hour',
      interruptedAfterMinutes: INTERRUPTED_AFTER_MINUTES,
    })
    expect(body.totals).toEqual({
      calls: 16,
      succeeded: 9,
      failed: 6,
      running: 1,
      successRate: 0.6,
      // 14 finished latencies: 5 10 12 15 20 25 30 40 50 60 70 80 90 1000
      p50LatencyMs: 30,
      p95LatencyMs: bigBucketMs,
      inputTokens: 232,
      outputTokens: 40,
      totalTokens: 272,
      failures: {
        authentication: 1,
        model_not_found: 1,
        rate_limited: 1,
        provider_unavailable: 1,
        timeout: 1,
        interrupted: 1,
      },
    })
    expect(body.tasks).toEqual([
      {
        task: 'llm',
        calls: 5,
        succeeded: 2,
        failed: 2,
        running: 1,
        successRate: 0.5,
        p50LatencyMs: 80,
        p95LatencyMs: bigBucketMs,
        inputTokens: 200,
        outputTokens: 40,
        totalTokens: 240,
        failures: { ...noFailures, provider_unavailable: 1, interrupted: 1 },
      },
      {
        task: 'embedding',
        calls: 9,
        succeeded: 6,
        failed: 3,
        running: 0,
        successRate: 0.6667,
        p50LatencyMs: 30,
        p95LatencyMs: 90,
        inputTokens: 32,
        outputTokens: 0,
        totalTokens: 32,
        failures: { ...noFailures, authentication: 1, timeout: 1, rate_limited: 1 },
      },
      {
        task: 'reranker',
        calls: 2,
        succeeded: 1,
        failed: 1,
        running: 0,
        successRate: 0.5,
        p50LatencyMs: 15,
        p95LatencyMs: 70,
        inputTokens: 0,
        outputTokens: 0,
        totalTokens: 0,
        failures: { ...noFailures, model_not_found: 1 },
      },
    ])
    const groups = Object.fromEntries(
      body.groups.map((g: { task: string; model: string }) => [`${g.task}/${g.model}`, g]),
    )
    expect(body.groups.map((g: { task: string; model: string }) => `${g.task}/${g.model}`)).toEqual([
      'llm/llm-1',
      'embedding/emb-a',
      'embedding/emb-b',
      'embedding/emb-c',
      'reranker/rr-1',
    ])
    expect(groups['embedding/emb-a']).toMatchObject({
      calls: 5,
      succeeded: 3,
      failed: 2,
      successRate: 0.6,
      p50LatencyMs: 30,
      p95LatencyMs: 90,
      inputTokens: 15,
      totalTokens: 15,
      failures: { ...noFailures, authentication: 1, timeout: 1 },
    })
    expect(groups['embedding/emb-b']).toMatchObject({
      calls: 3,
      successRate: 0.6667,
      p50LatencyMs: 50,
      p95LatencyMs: 60,
      inputTokens: 14,
      failures: { ...noFailures, rate_limited: 1 },
    })
    expect(groups['embedding/emb-c']).toMatchObject({
      calls: 1,
      succeeded: 1,
      successRate: 1,
      p50LatencyMs: 12,
      p95LatencyMs: 12,
      inputTokens: 3,
      totalTokens: 3,
    })
    expect(groups['reranker/rr-1']).toMatchObject({ calls: 2, p50LatencyMs: 15, p95LatencyMs: 70 })
    expect(groups['llm/llm-1']).toMatchObject({
      calls: 5,
      running: 1,
      failed: 2,
      totalTokens: 240,
      failures: { ...noFailures, provider_unavailable: 1, interrupted: 1 },
    })
  })

  it('a series of every hour of the window, with calls, failures and p50/p95 per hour', async () => {
    const body = await (await get('/admin/ai-observability?hours=24')).json()
    expect(body.series).toHaveLength(25)
    expect(body.series[0].start).toBe(body.from)
    const starts = body.series.map((p: { start: string }) => Date.parse(p.start))
    expect(starts.every((t: number, i: number) => i === 0 || t - starts[i - 1] === 3_600_000)).toBe(true)
    const sum = (key: 'calls' | 'failed') =>
      body.series.reduce((n: number, p: Record<string, number>) => n + p[key], 0)
    expect(sum('calls')).toBe(16)
    expect(sum('failed')).toBe(6)
    // The hour two hours ago holds 13 calls, 5 failed: latencies 5 10 15 20 25 30 40 50 60 70 80 90 1000.
    expect(body.series.at(-1).start).toBe(
      new Date(Math.floor(Date.parse(body.to) / 3_600_000) * 3_600_000).toISOString(),
    )
    const point = body.series.at(-3)
    expect(point).toMatchObject({ calls: 13, failed: 5, p50LatencyMs: 40 })
    expect(point.p95LatencyMs).toBeGreaterThanOrEqual(1000)
    const empty = body.series.find((p: { calls: number }) => p.calls === 0)
    expect(empty).toMatchObject({ failed: 0, p50LatencyMs: null, p95LatencyMs: null })
  })

  it('the newest failures (interrupted first) and traces; the window of one hour; days beyond 72 hours', async () => {
    const day = await (await get('/admin/ai-observability?hours=24')).json()
    expect(day.recentFailures).toHaveLength(6)
    expect(day.recentFailures[0]).toMatchObject({ task: 'llm', failureClass: 'interrupted', traceId: CHAT })
    expect(day.recentFailures.map((f: { failureClass: string }) => f.failureClass).sort()).toEqual([
      'authentication',
      'interrupted',
      'model_not_found',
      'provider_unavailable',
      'rate_limited',
      'timeout',
    ])
    const chat = day.recentTraces.find((t: { traceId: string }) => t.traceId === CHAT)
    expect(chat).toMatchObject({ calls: 3, failed: 1, purposes: ['chat'] })
    expect([...chat.tasks].sort()).toEqual(['llm', 'reranker'])

    // One hour: the hour before this one and this one so far — the running rows and the recorded call.
    const hour = await (await get('/admin/ai-observability?hours=1')).json()
    expect(hour.totals).toMatchObject({ calls: 3, succeeded: 1, failed: 1, running: 1 })
    expect(hour.totals.failures.interrupted).toBe(1)

    // 30 days: UTC days, the older calls in, read from the daily rollups.
    const month = await (await get('/admin/ai-observability?hours=720')).json()
    expect(month.bucket).toBe('day')
    expect(month.series).toHaveLength(31)
    expect(month.totals).toMatchObject({ calls: 18, succeeded: 10, failed: 7, running: 1 })
    expect(month.totals.failures.timeout).toBe(2)
  })

  it('the rollups follow the cleanup deleting old runs', async () => {
    const deleted = await deleteRunsBefore(em(), new Date(Date.now() - 40 * 3_600_000))
    expect(deleted).toBe(1)
    const month = await (await get('/admin/ai-observability?hours=720')).json()
    expect(month.totals).toMatchObject({ calls: 17, failed: 6 })
    const [{ n }] = await em().execute(
      "select count(*)::int as n from ai_run_rollups where calls = 0 and start < now() - interval '40 hours'",
    )
    expect(n).toBe(0)
  })

  it('admin session only: none 401, viewer 403, an API key 403', async () => {
    expect((await dispatch('/admin/ai-observability')).status).toBe(401)
    expect((await get('/admin/ai-observability', viewer.sessionHeaders)).status).toBe(403)
    const key = await createApiKey(admin.user.id, ['read', 'write', 'validate'])
    expect((await get('/admin/ai-observability', key)).status).toBe(403)
    expect((await get(`/admin/ai-observability/traces/${CHAT}`, key)).status).toBe(403)
    expect((await dispatch(`/admin/ai-observability/traces/${CHAT}`)).status).toBe(401)
  })

  it.each(['0', '8761', '1.5', 'abc', '-3', '24h'])('hours=%s is 400 validation_failed', async (hours) => {
    const res = await get(`/admin/ai-observability?hours=${hours}`)
    expect(res.status).toBe(400)
    expect((await res.json()).error.code).toBe('validation_failed')
  })

  it('hours defaults to 24 and takes 8760', async () => {
    expect((await (await get('/admin/ai-observability')).json()).hours).toBe(24)
    const year = await (await get('/admin/ai-observability?hours=8760')).json()
    expect(year.bucket).toBe('day')
    expect(year.totals.calls).toBe(17)
  })
})

describe('GET /admin/ai-observability/traces/{traceId}', () => {
  it("lists a trace's calls in order, interrupted ones marked, and nothing of what they carried", async () => {
    const res = await get(`/admin/ai-observability/traces/${CHAT}`)
    expect(res.status).toBe(200)
    const body = await res.json()
    expect(body.traceId).toBe(CHAT)
    expect(body.calls.map((c: { task: string; status: string }) => `${c.task}:${c.status}`)).toEqual([
      'reranker:succeeded',
      'llm:succeeded',
      'llm:interrupted',
    ])
    expect(body.calls[1]).toMatchObject({
      model: 'llm-1',
      purpose: 'chat',
      latencyMs: 80,
      inputTokens: 100,
      outputTokens: 20,
      totalTokens: 120,
      failureClass: null,
    })
    expect(body.calls[2]).toMatchObject({ failureClass: 'interrupted', latencyMs: null, finishedAt: null })
    expect(Object.keys(body.calls[0]).sort()).toEqual(
      [
        'id',
        'task',
        'purpose',
        'provider',
        'model',
        'status',
        'failureClass',
        'httpStatus',
        'items',
        'latencyMs',
        'inputTokens',
        'outputTokens',
        'totalTokens',
        'startedAt',
        'finishedAt',
      ].sort(),
    )
  })

  it('an unknown trace is 404, a malformed one 400', async () => {
    const unknown = await get('/admin/ai-observability/traces/no-such-trace')
    expect(unknown.status).toBe(404)
    expect((await unknown.json()).error.code).toBe('not_found')
    const bad = await get(`/admin/ai-observability/traces/${encodeURIComponent('a b<c>')}`)
    expect(bad.status).toBe(400)
    expect((await bad.json()).error.code).toBe('validation_failed')
  })
})
