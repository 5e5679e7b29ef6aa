import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { parseConfig, setConfig } from '#app/lib/config.server.ts'
import { setLogDestination } from '#app/lib/logger.server.ts'
import { UpdateTermSchema } from '#app/schemas/terms.ts'
import { updateTerm } from '#app/services/terms/write.server.ts'
import { em } from '#db/orm.ts'
import { createApiKey, createTerm, createUser, type TestUser } from '#tests/factories.ts'
import { dispatch, useApiServer, type Json } from '#tests/http.ts'
import { drainIndexQueue } from '#tests/index-queue.ts'
import { startStandIn, STAND_IN_CHAT_MODEL, type StandIn } from '#tests/provider-stand-in.ts'
import { captureLogLines } from '#tests/log-lines.ts'
import { useTestDb } from '#tests/setup/db.ts'
import { testEnv } from '#tests/setup/test-env.ts'

useTestDb()
const server = useApiServer()

/**
 * The chatbot (issue 29) end to end through the API, on real parts: the index pipeline, the retrieval service,
 * two provider stand-ins on 127.0.0.1 (one embeds, one answers chats: `standInChatText` cites the evidence
 * labels it finds in the prompt), the rate-limit buckets and the account deletion.
 */

let admin: TestUser
let alice: TestUser
let bob: TestUser
let embed: StandIn
let llm: StandIn
const terms: Record<string, { id: string; slug: string }> = {}
const pages: Record<string, { id: string; slug: string }> = {}
const meetings: Record<string, string> = {}

/** Every log line of this file: none may hold a question or an answer. */
const logLines: string[] = []

async function ask(user: TestUser, body: Record<string, unknown>) {
  const res = await dispatch('/chat', { headers: user.sessionHeaders, body })
  const text = await res.text()
  return { status: res.status, headers: res.headers, text, json: JSON.parse(text) as Json }
}

async function get(user: TestUser, path: string, method = 'GET') {
  const res = await dispatch(path, { method, headers: user.sessionHeaders })
  const text = await res.text()
  return { status: res.status, text, json: text ? (JSON.parse(text) as Json) : undefined }
}

async function ragConfig(body: Record<string, unknown>) {
  const res = await dispatch('/admin/rag-config', { method: 'PATCH', headers: admin.sessionHeaders, body })
  expect(res.status, await res.clone().text()).toBe(200)
}

/** The citations of an answer by label. */
const byLabel = (citations: Json[]) => Object.fromEntries(citations.map((c: Json) => [c.label, c]))

beforeAll(async () => {
  captureLogLines(logLines)
  admin = await createUser({ role: 'admin' })
  alice = await createUser()
  bob = await createUser()
  embed = await startStandIn()
  llm = await startStandIn()
  await ragConfig({
    enabled: true,
    chatEnabled: true,
    embeddingBaseUrl: embed.url,
    embeddingModel: 'text-embed-small',
    chunkSize: 400,
    chunkOverlap: 50,
  })
  const provider = await dispatch('/admin/ai-provider', {
    method: 'PATCH',
    headers: admin.sessionHeaders,
    body: { provider: 'alpha_compatible', baseUrl: llm.url, model: STAND_IN_CHAT_MODEL },
  })
  expect(provider.status, await provider.clone().text()).toBe(200)

  for (const [key, input] of Object.entries({
    batch: { name: 'Settlement Batch', definition: 'Nightly job that closes the ledger of the day.' },
    hold: {
      name: 'Ledger Hold',
      definition: 'A stop on ledger postings, still to be written up.',
      status: 'needs_completion' as const,
    },
    old: {
      name: 'Old Ledger Close',
      definition: 'The former way to close the ledger.',
      status: 'deprecated' as const,
    },
  })) {
    const term = await createTerm(input)
    terms[key] = { id: term.id, slug: term.slug }
  }
  for (const [key, body] of Object.entries({
    handbook: {
      title: 'Ledger handbook',
      content: 'How the nightly job closes the ledger: postings stop, totals are checked, the day closes.',
      status: 'published',
    },
    draft: {
      title: 'Ledger draft notes',
      content: 'Draft: the nightly job closes the ledger twice.',
      status: 'draft',
    },
    archived: {
      title: 'Ledger archive page',
      content: 'Archived: the nightly job closed the ledger by hand.',
      status: 'published',
    },
  })) {
    const res = await dispatch('/wiki', { headers: admin.sessionHeaders, body })
    expect(res.status, await res.clone().text()).toBe(201)
    pages[key] = (await res.json()) as { id: string; slug: string }
  }
  await dispatch(`/wiki/${pages.archived!.slug}`, {
    method: 'PATCH',
    headers: admin.sessionHeaders,
    body: { status: 'archived' },
  })
  for (const [key, title] of Object.entries({ review: 'Ledger review', gone: 'Ledger retro' })) {
    const res = await dispatch('/meetings', {
      headers: admin.sessionHeaders,
      body: {
        title,
        meetingDate: '2024-05-02',
        team: 'finance',
        content: `${title}: we discussed how the nightly job closes the ledger of the day.`,
      },
    })
    expect(res.status, await res.clone().text()).toBe(201)
    meetings[key] = ((await res.json()) as { id: string }).id
  }
  await dispatch(`/meetings/${meetings.gone}/archive`, { method: 'POST', headers: admin.sessionHeaders })
  await drainIndexQueue()
})

afterAll(async () => {
  setLogDestination(undefined)
  await embed.close()
  await llm.close()
})

describe('POST /chat: hybrid answers with cited evidence', () => {
  let first: Json

  it('answers from terms, published wiki pages and active meetings, each kind with its labels', async () => {
    const res = await ask(alice, {
      message: 'What is Settlement Batch and how does the nightly job close the ledger?',
    })
    expect(res.status, res.text).toBe(200)
    first = res.json
    expect(Object.keys(first).sort()).toEqual([
      'answer',
      'citations',
      'conversationId',
      'searchMode',
      'traceId',
    ])
    expect(first.searchMode).toBe('hybrid')
    const labels = first.citations.map((c: Json) => c.label as string)
    expect(labels.some((l: string) => /^G\d+$/.test(l))).toBe(true)
    expect(labels.some((l: string) => /^W\d+$/.test(l))).toBe(true)
    expect(labels.some((l: string) => /^M\d+$/.test(l))).toBe(true)
    for (const label of labels) expect(first.answer).toContain(`[${label}]`)
    const cited = byLabel(first.citations)
    // The term named in the question comes first, at its current revision, official.
    expect(cited.G1).toMatchObject({
      type: 'term',
      title: 'Settlement Batch',
      id: terms.batch!.id,
      slug: terms.batch!.slug,
      revision: 1,
      official: true,
      url: `/terms/${terms.batch!.slug}?revision=1`,
    })
    const wiki = first.citations.filter((c: Json) => c.type === 'wiki')
    expect(wiki.map((c: Json) => c.id)).toEqual([pages.handbook!.id])
    expect(wiki[0]).toMatchObject({ official: true, revision: 1, slug: pages.handbook!.slug })
    expect(wiki[0].url).toMatch(
      new RegExp(`^/wiki/${pages.handbook!.slug}\\?passage=\\d+-\\d+&revision=1#passage$`),
    )
    const meeting = first.citations.filter((c: Json) => c.type === 'meeting')
    expect(meeting.map((c: Json) => c.id)).toEqual([meetings.review])
    expect(meeting[0]).toMatchObject({ official: false, title: 'Ledger review' })
    expect(meeting[0].meetingDate).toMatch(/^2024-05-02/)
    expect(meeting[0].url).toMatch(new RegExp(`^/meetings/${meetings.review}\\?passage=`))
  })

  it('never uses draft or archived pages, archived meetings or deprecated terms as evidence', async () => {
    const ids = first.citations.map((c: Json) => c.id)
    for (const excluded of [pages.draft!.id, pages.archived!.id, meetings.gone, terms.old!.id]) {
      expect(ids).not.toContain(excluded)
    }
    const prompt = JSON.stringify(llm.lastChat()!.messages)
    for (const text of ['Ledger draft notes', 'Ledger archive page', 'Ledger retro', 'Old Ledger Close']) {
      expect(prompt).not.toContain(text)
    }
  })

  it('sends the evidence rules, the labelled blocks and the question', () => {
    const { messages } = llm.lastChat()!
    expect(messages[0]!.role).toBe('system')
    expect(messages[0]!.content).toContain('records of past discussion')
    expect(messages[0]!.content).toContain('never approve')
    expect(messages[0]!.content).toContain('INCOMPLETE')
    expect(messages[0]!.content).not.toMatch(/\[[GWM]\d+\]/)
    const last = messages.at(-1)!
    expect(last.role).toBe('user')
    expect(last.content).toContain('[G1] Glossary term "Settlement Batch" (revision 1, OFFICIAL)')
    expect(last.content).toMatch(
      /\[M1\] Meeting record "Ledger review" of 2024-05-02 \(a record of past discussion/,
    )
    expect(last.content).toContain(
      'Question: What is Settlement Batch and how does the nightly job close the ledger?',
    )
  })

  it('marks a needs-completion term incomplete and not official', async () => {
    const res = await ask(alice, { message: 'What is Ledger Hold?' })
    expect(res.status, res.text).toBe(200)
    const hold = res.json.citations.find((c: Json) => c.id === terms.hold!.id)
    expect(hold).toMatchObject({ label: 'G1', type: 'term', official: false, revision: 1 })
    expect(llm.lastChat()!.messages.at(-1)!.content).toContain(
      '[G1] Glossary term "Ledger Hold" (revision 1, INCOMPLETE',
    )
  })

  it('shares one trace id across the embedding and LLM runs, which hold no prompt or answer', async () => {
    const rows = await em().execute<Json[]>('select * from ai_runs where trace_id = ? order by started_at', [
      first.traceId,
    ])
    expect(rows.map((r) => r.task).sort()).toEqual(['embedding', 'llm'])
    for (const row of rows) {
      expect(row.purpose).toBe('chat')
      expect(row.status).toBe('succeeded')
    }
    const all = JSON.stringify(await em().execute('select * from ai_runs'))
    expect(all).not.toContain('Settlement Batch')
    expect(all).not.toContain('nightly job')
    expect(all).not.toContain('Answer citing')
  })

  it('with the reranker on, its run shares the trace id too', async () => {
    await ragConfig({
      rerankerEnabled: true,
      rerankerProvider: 'alpha_compatible',
      rerankerBaseUrl: embed.url,
      rerankerModel: 'bge-reranker-v2',
    })
    try {
      const res = await ask(alice, { message: 'How does the nightly job close the ledger?' })
      expect(res.status, res.text).toBe(200)
      expect(res.json.searchMode).toBe('hybrid')
      const rows = await em().execute<Json[]>('select task, purpose from ai_runs where trace_id = ?', [
        res.json.traceId,
      ])
      expect(rows.map((r) => r.task).sort()).toEqual(['embedding', 'llm', 'reranker'])
      expect(new Set(rows.map((r) => r.purpose))).toEqual(new Set(['chat']))
    } finally {
      await ragConfig({ rerankerEnabled: false })
    }
  })

  it('continues a conversation with its recent turns, stored privately in order', async () => {
    const res = await ask(alice, {
      message: 'And the ledger handbook?',
      conversationId: first.conversationId,
    })
    expect(res.status, res.text).toBe(200)
    expect(res.json.conversationId).toBe(first.conversationId)
    const { messages } = llm.lastChat()!
    expect(messages.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'user'])
    expect(messages[1]!.content).toBe(
      'What is Settlement Batch and how does the nightly job close the ledger?',
    )
    const conversation = await get(alice, `/chat/conversations/${first.conversationId}`)
    expect(conversation.status, conversation.text).toBe(200)
    expect(conversation.json.title).toBe(
      'What is Settlement Batch and how does the nightly job close the ledger?',
    )
    expect(conversation.json.turns.map((t: Json) => [t.role, t.failed])).toEqual([
      ['user', false],
      ['assistant', false],
      ['user', false],
      ['assistant', false],
    ])
    expect(conversation.json.turns[1]).toMatchObject({
      content: first.answer,
      searchMode: 'hybrid',
      traceId: first.traceId,
      citations: first.citations,
    })
    const list = await get(alice, '/chat/conversations')
    expect(list.json.items[0].id).toBe(first.conversationId)
  })
})

describe('POST /chat: falling back to name and keyword search', () => {
  it('the embedding provider failing for now: keyword mode, the answer still cited', async () => {
    embed.failAll(503)
    try {
      const res = await ask(alice, { message: 'What is Settlement Batch?' })
      expect(res.status, res.text).toBe(200)
      expect(res.json.searchMode).toBe('keyword')
      expect(byLabel(res.json.citations).G1).toMatchObject({ id: terms.batch!.id, revision: 1 })
      expect(res.json.answer).toContain('[G1]')
      const rows = await em().execute<Json[]>('select task, status from ai_runs where trace_id = ?', [
        res.json.traceId,
      ])
      expect(rows.map((r) => `${r.task}:${r.status}`).sort()).toEqual(['embedding:failed', 'llm:succeeded'])
    } finally {
      embed.failAll(null)
    }
  })

  it('"What is X?" with X saved but not indexed yet: keyword mode, from its current definition and revision', async () => {
    const term = await createTerm({
      name: 'Quokka Gateway',
      definition: 'The entry point of quokka payments.',
    })
    let res = await ask(alice, { message: 'What is Quokka Gateway?' })
    expect(res.status, res.text).toBe(200)
    expect(res.json.searchMode).toBe('keyword')
    expect(byLabel(res.json.citations).G1).toMatchObject({ id: term.id, revision: 1, official: true })
    expect(llm.lastChat()!.messages.at(-1)!.content).toContain('The entry point of quokka payments.')
    await updateTerm({
      idOrSlug: term.id,
      input: UpdateTermSchema.parse({
        baseRevision: 1,
        definition: 'The second entry point of quokka payments.',
      }),
      actorId: admin.user.id,
    })
    await drainIndexQueue()
    res = await ask(alice, { message: 'What is Quokka Gateway?' })
    expect(res.json.searchMode).toBe('hybrid')
    expect(byLabel(res.json.citations).G1).toMatchObject({ id: term.id, revision: 2 })
    expect(llm.lastChat()!.messages.at(-1)!.content).toContain('The second entry point of quokka payments.')
  })

  it('"What is X?" with search by meaning switched off (chatEnabled on): keyword mode, cited', async () => {
    await ragConfig({ enabled: false })
    try {
      const before = Number(
        (await em().execute<Json[]>('select count(*) as n from ai_runs where task = ?', ['embedding']))[0].n,
      )
      const res = await ask(alice, { message: 'What is Settlement Batch?' })
      expect(res.status, res.text).toBe(200)
      expect(res.json.searchMode).toBe('keyword')
      expect(byLabel(res.json.citations).G1).toMatchObject({ id: terms.batch!.id, revision: 1 })
      const after = Number(
        (await em().execute<Json[]>('select count(*) as n from ai_runs where task = ?', ['embedding']))[0].n,
      )
      expect(after).toBe(before)
    } finally {
      await ragConfig({ enabled: true })
    }
  })
})

describe('POST /chat: failures', () => {
  it('the LLM failing: 502 rag_provider_error, the question kept in the conversation', async () => {
    llm.failNext(500)
    const res = await ask(alice, { message: 'What is Settlement Batch, once more?' })
    expect(res.status, res.text).toBe(502)
    expect(res.json.error.code).toBe('rag_provider_error')
    const id = res.json.error.details.conversationId as string
    const conversation = await get(alice, `/chat/conversations/${id}`)
    expect(conversation.json.turns.map((t: Json) => [t.role, t.content, t.failed])).toEqual([
      ['user', 'What is Settlement Batch, once more?', false],
      ['assistant', '', true],
    ])
    const runs = await em().execute<Json[]>(
      'select task, status, failure_class from ai_runs where trace_id = ?',
      [conversation.json.turns[1].traceId],
    )
    expect(runs.find((r) => r.task === 'llm')).toMatchObject({
      status: 'failed',
      failure_class: 'provider_unavailable',
    })
    // Asked again in the same conversation, it answers; the failed turn is not sent as history.
    const again = await ask(alice, { message: 'What is Settlement Batch, once more?', conversationId: id })
    expect(again.status, again.text).toBe(200)
    expect(llm.lastChat()!.messages.map((m) => m.role)).toEqual(['system', 'user', 'user'])
  })

  it('chatEnabled false: 503 rag_not_ready with a clear message', async () => {
    await ragConfig({ chatEnabled: false })
    try {
      const res = await ask(alice, { message: 'What is Settlement Batch?' })
      expect(res.status).toBe(503)
      expect(res.json.error.code).toBe('rag_not_ready')
      expect(res.json.error.message).toMatch(/chatbot is switched off/)
    } finally {
      await ragConfig({ chatEnabled: true })
    }
  })

  it('over the per-user limit: 429 rate_limited with Retry-After; another user is not affected', async () => {
    setConfig(parseConfig(testEnv({ GLOSSARY_RATE_CHAT_PER_MINUTE: '1' })))
    try {
      const carol = await createUser()
      expect((await ask(carol, { message: 'What is Settlement Batch?' })).status).toBe(200)
      const limited = await ask(carol, { message: 'What is Settlement Batch?' })
      expect(limited.status).toBe(429)
      expect(limited.json.error.code).toBe('rate_limited')
      expect(Number(limited.headers.get('retry-after'))).toBeGreaterThanOrEqual(1)
      expect((await ask(await createUser(), { message: 'What is Settlement Batch?' })).status).toBe(200)
    } finally {
      setConfig(parseConfig(testEnv()))
    }
  })

  it('no session: 401; an API key: 403; a bad body: 400', async () => {
    const anonymous = await dispatch('/chat', { body: { message: 'hi' } })
    expect(anonymous.status).toBe(401)
    const key = await createApiKey(admin.user.id, ['read', 'write', 'validate'])
    for (const path of ['/chat', '/chat/conversations']) {
      const res = await dispatch(
        path,
        path === '/chat' ? { headers: key, body: { message: 'hi' } } : { headers: key },
      )
      expect(res.status).toBe(403)
      expect(((await res.json()) as Json).error.code).toBe('forbidden')
    }
    for (const body of [
      { message: '' },
      { message: 'x'.repeat(4001) },
      { message: 'hi', conversationId: 'nope' },
      {},
    ]) {
      const res = await ask(alice, body)
      expect(res.status, JSON.stringify(body)).toBe(400)
      expect(res.json.error.code).toBe('validation_failed')
    }
    expect((await ask(alice, { message: 'ü'.repeat(4000) })).status).not.toBe(400)
  })
})

describe('history is private', () => {
  it("another user's conversation is 404 to read, continue or delete, and absent from their list", async () => {
    const mine = await ask(alice, { message: 'What is Ledger Hold, privately?' })
    const id = mine.json.conversationId as string
    expect((await get(bob, `/chat/conversations/${id}`)).status).toBe(404)
    expect((await get(bob, `/chat/conversations/${id}`, 'DELETE')).status).toBe(404)
    expect((await ask(bob, { message: 'hello', conversationId: id })).status).toBe(404)
    expect((await get(bob, '/chat/conversations')).json.items.map((c: Json) => c.id)).not.toContain(id)
    expect((await get(alice, `/chat/conversations/${id}`)).status).toBe(200)
    expect((await get(alice, `/chat/conversations/${id}`, 'DELETE')).status).toBe(204)
    expect((await get(alice, `/chat/conversations/${id}`)).status).toBe(404)
  })

  it('deleting an account deletes its chat history', async () => {
    const dave = await createUser()
    expect((await ask(dave, { message: 'What is Settlement Batch?' })).status).toBe(200)
    const count = async () =>
      Number(
        (
          await em().execute<Json[]>(
            `select (select count(*) from chat_conversations where user_id = ?) + (select count(*) from chat_messages where user_id = ?) as n`,
            [dave.user.id, dave.user.id],
          )
        )[0].n,
      )
    expect(await count()).toBe(3)
    const res = await dispatch('/account', {
      method: 'DELETE',
      headers: dave.sessionHeaders,
      body: { confirmEmail: dave.user.email, password: dave.password },
    })
    expect(res.status, await res.clone().text()).toBe(200)
    expect(await count()).toBe(0)
  })
})

describe('POST /chat as server-sent events', () => {
  /** The events of an SSE body: name and parsed data. */
  const eventsOf = (text: string) =>
    text
      .split('\n\n')
      .filter(Boolean)
      .map((block) => {
        const name = /^event: (.*)$/m.exec(block)![1]!
        const data = JSON.parse(/^data: (.*)$/m.exec(block)![1]!) as Json
        return { name, data }
      })

  const post = (user: TestUser, body: unknown) =>
    fetch(`${server.url()}/api/v1/chat`, {
      method: 'POST',
      headers: { ...user.sessionHeaders, accept: 'text/event-stream', 'content-type': 'application/json' },
      body: JSON.stringify(body),
    })

  it('streams meta, the text pieces, then the whole answer over real HTTP', async () => {
    llm.chunkDelayMs = 20
    try {
      const res = await post(alice, { message: 'What is Settlement Batch and the ledger handbook?' })
      expect(res.status).toBe(200)
      expect(res.headers.get('content-type')).toBe('text/event-stream; charset=utf-8')
      expect(res.headers.get('content-encoding')).toBeNull()
      // Read as it arrives: the first piece holds the start, not the answer (nothing held the body back).
      const reader = res.body!.getReader()
      const decoder = new TextDecoder()
      const pieces: string[] = []
      for (let read = await reader.read(); !read.done; read = await reader.read()) {
        pieces.push(decoder.decode(read.value, { stream: true }))
      }
      expect(pieces.length).toBeGreaterThan(2)
      expect(pieces[0]).toContain('event: meta')
      expect(pieces[0]).not.toContain('event: answer')
      const events = eventsOf(pieces.join(''))
      expect(events[0]!.name).toBe('meta')
      expect(events.at(-1)!.name).toBe('answer')
      const texts = events.filter((e) => e.name === 'text')
      expect(texts.length).toBeGreaterThan(1)
      const answer = events.at(-1)!.data
      expect(texts.map((e) => e.data.text).join('')).toBe(answer.answer)
      expect(events[0]!.data).toEqual({
        conversationId: answer.conversationId,
        searchMode: answer.searchMode,
        traceId: answer.traceId,
      })
      expect(answer.citations.length).toBeGreaterThan(0)
    } finally {
      llm.chunkDelayMs = 0
    }
  })

  it('a failure before the stream starts is a plain JSON error; after, an error event', async () => {
    const other = await post(bob, { message: 'hi', conversationId: crypto.randomUUID() })
    expect(other.status).toBe(404)
    expect(other.headers.get('content-type')).toContain('application/json')
    llm.failNext(500)
    const res = await post(alice, { message: 'What is Settlement Batch?' })
    expect(res.status).toBe(200)
    const events = eventsOf(await res.text())
    expect(events.map((e) => e.name)).toEqual(['meta', 'error'])
    expect(events[1]!.data.error.code).toBe('rag_provider_error')
  })
})

describe('logs', () => {
  it('no log line of the whole file holds a question or an answer', () => {
    expect(logLines.length).toBeGreaterThan(0)
    for (const line of logLines) {
      expect(line).not.toContain('Settlement Batch')
      expect(line).not.toContain('Answer citing')
      expect(line).not.toContain('nightly job')
    }
  })
})
