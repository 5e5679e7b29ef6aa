import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { ProviderError, type ChatMessage, type ProviderTarget } from '#app/services/ai/provider.server.ts'
import { setChatLimits, CHAT_LIMITS } from '#app/services/ai/providers/alpha-compatible.server.ts'
import { newTraceId, recordedChat } from '#app/services/ai/recorder.server.ts'
import { chatOf } from '#app/services/ai/registry.server.ts'
import { em } from '#db/orm.ts'
import { standInChatText, startStandIn, STAND_IN_CHAT_MODEL, type StandIn } from '#tests/provider-stand-in.ts'
import { useTestDb } from '#tests/setup/db.ts'

useTestDb()

/**
 * The chat-completion client (issue 29) against the provider stand-in on 127.0.0.1: a whole answer and a
 * streamed one (the same text, in pieces, in order), the usage on its `ai_runs` row (task `llm`) and nothing
 * of the prompt or answer there, each failure class with words of our own, a stream cut mid-way, the size
 * limit and both time limits.
 */

let provider: StandIn
const KEY = 'sk-chat-SECRET-0123456789'
const HEADER_VALUE = 'tenant-SECRET-value'
const PROMPT_WORD = 'zanzibarquokka'
const MESSAGES: ChatMessage[] = [
  {
    role: 'system',
    content: `Answer from the evidence only. [G1] Term one. [W1] A wiki page. [M1] A meeting.`,
  },
  { role: 'user', content: `What is ${PROMPT_WORD}? See [G1] and [G2].` },
]
const EXPECTED = standInChatText(MESSAGES)
let defaults: typeof CHAT_LIMITS

const target = (over: Partial<ProviderTarget> = {}): ProviderTarget => ({
  baseUrl: provider.url,
  model: STAND_IN_CHAT_MODEL,
  apiKey: KEY,
  headers: { 'X-Tenant': HEADER_VALUE },
  ...over,
})
const chat = (over: Partial<ProviderTarget> = {}) => chatOf('alpha_compatible', target(over))

/** The `ProviderError` a call fails with; its message never holds a secret or the provider's body. */
async function failure(call: Promise<unknown>): Promise<ProviderError> {
  const error = await call.then(
    () => undefined,
    (e: unknown) => e,
  )
  expect(error).toBeInstanceOf(ProviderError)
  const message = (error as ProviderError).message
  for (const secret of [KEY, HEADER_VALUE, 'secret echo', 'does not exist', PROMPT_WORD]) {
    expect(message).not.toContain(secret)
  }
  return error as ProviderError
}

type Run = Record<string, unknown> & { status: string; failure_class: string | null }
const runsOf = (traceId: string) =>
  em().execute<Run[]>(
    `select id, trace_id, task, purpose, provider, model, status, failure_class, http_status, items,
            input_tokens, output_tokens, total_tokens, latency_ms, started_at::text, finished_at::text
       from ai_runs where trace_id = ? order by started_at, id`,
    [traceId],
  )

beforeAll(async () => {
  provider = await startStandIn()
  defaults = { ...CHAT_LIMITS }
})
afterAll(async () => {
  await provider.close()
})
beforeEach(() => {
  provider.requests.length = 0
})
afterEach(() => {
  setChatLimits(defaults)
  provider.delayMs = 0
  provider.chunkDelayMs = 0
  provider.chatReply = null
  provider.failAll(null)
})

describe('alpha-compatible chat client', () => {
  it('complete: POST {baseUrl}/chat/completions with the model, messages and options; the answer and usage', async () => {
    const answer = await chat().complete(MESSAGES, { temperature: 0.2, maxTokens: 300 })
    expect(EXPECTED).toBe('Answer citing [G1] [W1] [M1] [G2].')
    expect(answer.text).toBe(EXPECTED)
    expect(answer.usage).toEqual({
      inputTokens: expect.any(Number),
      outputTokens: 6,
      totalTokens: answer.usage.inputTokens! + 6,
    })
    const sent = provider.requests.at(-1)!
    expect(sent.path).toBe('/v1/chat/completions')
    expect(sent.headers.authorization).toBe(`Bearer ${KEY}`)
    expect(sent.headers['x-tenant']).toBe(HEADER_VALUE)
    expect(provider.lastChat()).toEqual({
      model: STAND_IN_CHAT_MODEL,
      messages: MESSAGES,
      temperature: 0.2,
      max_tokens: 300,
      stream: false,
    })
  })

  it('no key: no authorization header', async () => {
    await chat({ apiKey: null }).complete(MESSAGES)
    expect(provider.requests.at(-1)!.headers.authorization).toBeUndefined()
  })

  it('stream: the pieces arrive in order, several of them, and join into the whole answer', async () => {
    const pieces: string[] = []
    const answer = await chat().stream(MESSAGES, { temperature: 0 }, (text) => pieces.push(text))
    expect(pieces.length).toBeGreaterThan(3)
    expect(pieces.join('')).toBe(EXPECTED)
    expect(answer.text).toBe(EXPECTED)
    const whole = await chat().complete(MESSAGES)
    expect(answer.usage).toEqual(whole.usage)
    expect(provider.lastChat()).toMatchObject({ stream: false })
    expect(provider.requests.at(-2)!.body).toMatchObject({
      model: STAND_IN_CHAT_MODEL,
      stream: true,
      stream_options: { include_usage: true },
      temperature: 0,
    })
    expect(provider.requests.at(-2)!.headers.accept).toBe('text/event-stream')
  })

  it('stream: the pieces are handed on as they arrive, before the answer has ended', async () => {
    // The stand-in cuts the stream after two pieces: those two reached onText although the answer never ended.
    provider.chunkDelayMs = 5
    provider.cutStreamNext(2)
    const pieces: string[] = []
    await failure(chat().stream(MESSAGES, {}, (t) => pieces.push(t)))
    expect(pieces).toEqual(['Answer', ' citing'])
  })
})

describe('recorded chat', () => {
  it('every call is an ai_runs row with task llm, its purpose, the messages counted and the tokens; never the text', async () => {
    const traceId = newTraceId()
    const recorded = recordedChat(chat(), { purpose: 'chat', traceId })
    const whole = await recorded.complete(MESSAGES)
    const streamed = await recorded.stream(MESSAGES, {}, () => undefined)
    const runs = await runsOf(traceId)
    expect(runs).toHaveLength(2)
    for (const [run, answer] of [
      [runs[0]!, whole],
      [runs[1]!, streamed],
    ] as const) {
      expect(run).toMatchObject({
        trace_id: traceId,
        task: 'llm',
        purpose: 'chat',
        provider: 'alpha_compatible',
        model: STAND_IN_CHAT_MODEL,
        status: 'succeeded',
        failure_class: null,
        items: 2,
        input_tokens: answer.usage.inputTokens,
        output_tokens: answer.usage.outputTokens,
        total_tokens: answer.usage.totalTokens,
      })
      expect(run.finished_at).not.toBeNull()
      const text = JSON.stringify(run)
      for (const secret of [PROMPT_WORD, 'Answer citing', 'evidence', KEY, HEADER_VALUE]) {
        expect(text).not.toContain(secret)
      }
    }
  })

  it('purpose test, a fresh trace id when none is given, and failures with their class', async () => {
    const before = await em().execute<{ n: string }[]>(
      `select count(*) as n from ai_runs where purpose = 'test'`,
    )
    const recorded = recordedChat(chat(), { purpose: 'test' })
    await recorded.complete([{ role: 'user', content: 'ping' }])
    provider.failNext(401)
    await failure(recorded.stream(MESSAGES, {}, () => undefined))
    const rows = await em().execute<Run[]>(
      `select trace_id, task, status, failure_class, http_status, items from ai_runs
        where purpose = 'test' order by started_at, id`,
    )
    const fresh = rows.slice(Number(before[0]!.n))
    expect(fresh).toMatchObject([
      { task: 'llm', status: 'succeeded', failure_class: null, items: 1 },
      { task: 'llm', status: 'failed', failure_class: 'authentication', http_status: 401, items: 2 },
    ])
    expect(fresh[0]!.trace_id).not.toBe(fresh[1]!.trace_id)
  })
})

describe('failures', () => {
  const both = (c = chat()) =>
    [
      ['complete', () => c.complete(MESSAGES)],
      ['stream', () => c.stream(MESSAGES, {}, () => undefined)],
    ] as const

  it.each([
    [401, 'authentication'],
    [403, 'authentication'],
    [404, 'model_not_found'],
    [429, 'rate_limited'],
    [500, 'provider_unavailable'],
    [502, 'provider_unavailable'],
    [503, 'provider_unavailable'],
  ] as const)('HTTP %i is %s, in our own words', async (status, failureClass) => {
    for (const [, call] of both()) {
      provider.failNext(status)
      const error = await failure(call())
      expect(error.failureClass).toBe(failureClass)
      expect(error.httpStatus).toBe(status)
      expect(error.message).toBe(`llm: ${failureClass} (HTTP ${status}).`)
    }
  })

  it('429 carries the Retry-After', async () => {
    for (const [, call] of both()) {
      provider.failNext(429, 1, { 'Retry-After': '7' })
      const error = await failure(call())
      expect(error.failureClass).toBe('rate_limited')
      expect(error.retryAfterMs).toBe(7000)
      expect(error.retryable).toBe(true)
    }
  })

  it('a model the provider does not have is model_not_found', async () => {
    for (const [, call] of both(chat({ model: 'no-such-model' }))) {
      const error = await failure(call())
      expect(error.failureClass).toBe('model_not_found')
    }
  })

  it('nothing listening, or a scheme other than http(s): provider_unavailable', async () => {
    const closed = await startStandIn()
    const url = closed.url
    await closed.close()
    for (const [, call] of both(chat({ baseUrl: url }))) {
      expect((await failure(call())).failureClass).toBe('provider_unavailable')
    }
    for (const [, call] of both(chat({ baseUrl: 'file:///etc' }))) {
      expect((await failure(call())).failureClass).toBe('provider_unavailable')
    }
  })

  it('a stream cut mid-way is provider_unavailable, after the pieces that came', async () => {
    provider.cutStreamNext(2)
    const pieces: string[] = []
    const error = await failure(chat().stream(MESSAGES, {}, (t) => pieces.push(t)))
    expect(error.failureClass).toBe('provider_unavailable')
    expect(error.message).toContain('cut')
    expect(pieces).toEqual(['Answer', ' citing'])

    const traceId = newTraceId()
    provider.cutStreamNext(0)
    await failure(recordedChat(chat(), { purpose: 'chat', traceId }).stream(MESSAGES, {}, () => undefined))
    expect(await runsOf(traceId)).toMatchObject([
      { task: 'llm', status: 'failed', failure_class: 'provider_unavailable' },
    ])
  })

  it('an answer larger than the size limit is refused, whole or streamed', async () => {
    setChatLimits({ maxBytes: 16 * 1024 })
    provider.chatReply = 'lorem ipsum '.repeat(5000)
    for (const [, call] of both()) {
      const error = await failure(call())
      expect(error.failureClass).toBe('provider_unavailable')
      expect(error.message).toContain('larger than')
    }
    // Within the limit, the same long answer arrives whole.
    setChatLimits({ maxBytes: defaults.maxBytes })
    const pieces: string[] = []
    const answer = await chat().stream(MESSAGES, {}, (t) => pieces.push(t))
    expect(answer.text).toBe(provider.chatReply)
    expect(pieces.join('')).toBe(provider.chatReply)
  })

  it('no answer within the first-byte limit is a timeout', async () => {
    setChatLimits({ firstByteTimeoutMs: 100, timeoutMs: 100 })
    for (const [, call] of both()) {
      provider.hangNext()
      const error = await failure(call())
      expect(error.failureClass).toBe('timeout')
      expect(error.retryable).toBe(true)
    }
    provider.delayMs = 1_000
    const traceId = newTraceId()
    await failure(recordedChat(chat(), { purpose: 'chat', traceId }).stream(MESSAGES, {}, () => undefined))
    expect(await runsOf(traceId)).toMatchObject([{ task: 'llm', status: 'failed', failure_class: 'timeout' }])
  })

  it('a stream that starts in time but does not end within the total limit is a timeout', async () => {
    setChatLimits({ firstByteTimeoutMs: 10_000, timeoutMs: 300 })
    provider.chunkDelayMs = 100
    const pieces: string[] = []
    const error = await failure(chat().stream(MESSAGES, {}, (t) => pieces.push(t)))
    expect(error.failureClass).toBe('timeout')
    expect(pieces.length).toBeLessThan(EXPECTED.split(' ').length)
  })
})
