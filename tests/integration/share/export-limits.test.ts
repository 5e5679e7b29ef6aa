import crypto from 'node:crypto'
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest'
import { parseConfig, setConfig } from '#app/lib/config.server.ts'
import { issueApiKey } from '#app/services/auth/api-keys.server.ts'
import { exportGlossary } from '#app/services/share/export.server.ts'
import { EXPORT_RETRY_AFTER_SECONDS, exportsRunning } from '#app/services/share/export-slots.server.ts'
import { EXPORT_BATCH } from '#app/services/share/terms-source.server.ts'
import { contentHash } from '#app/services/terms/content.server.ts'
import { bumpGlossaryVersion, loadClassificationIds, writeTerms } from '#app/services/terms/store.server.ts'
import { em } from '#db/orm.ts'
import type { Actor } from '#domain/identity.ts'
import { createUser } from '#tests/factories.ts'
import { apiCall, useApiServer } from '#tests/http.ts'
import { useTestDb } from '#tests/setup/db.ts'
import { testEnv } from '#tests/setup/test-env.ts'

/**
 * Issue 26 item 3 (docs/decisions/019-sharing.md, "Round two (issue 26): bounded exports"): at most
 * GLOSSARY_EXPORTS_PER_CALLER downloads per caller and GLOSSARY_EXPORTS_PER_PROCESS in all (defaults 2 and 4),
 * beyond them 429 `rate_limited` with Retry-After; every way a download ends gives its slot back; and an export
 * takes the database and the event loop in turns, so another client is answered while it streams.
 *
 * Downloads are held mid-stream without timing: the test takes the embedded database's one connection (an open
 * transaction), and a `prh.yml` download answers its first chunk (the header, which reads nothing) and then
 * waits for the connection. Keys are used once first, so the auth gate finds them in its cache and needs no SQL.
 */

useTestDb()
const server = useApiServer()

const TERMS = 600
let viewer: Extract<Actor, { via: 'session' }>
const keys: Record<'a' | 'b' | 'c' | 'probe', Record<string, string>> = {
  a: {},
  b: {},
  c: {},
  probe: {},
}

/** `count` generated terms through the term store's bulk writer, as an import writes them. */
async function insertTerms(count: number, authorId: string): Promise<void> {
  await em().transactional(async (tx) => {
    const version = await bumpGlossaryVersion(tx)
    const ids = await loadClassificationIds(tx)
    const writes = Array.from({ length: count }, (_, i) => {
      const content = {
        slug: `limit-${String(i).padStart(4, '0')}`,
        name: `Limit term ${i}`,
        fullName: null,
        nameEn: null,
        nameKo: `한도 용어 ${i}`,
        notations: [
          { text: `LT${i}`, kind: 'admitted' as const, lang: null },
          { text: `Old limit term ${i}`, kind: 'deprecated' as const, lang: null },
        ],
        domains: [],
        categories: [],
        tags: [],
        status: 'active' as const,
        definition: `Definition of limit term ${i}.`,
        body: '',
      }
      return {
        id: crypto.randomUUID(),
        isNew: true,
        revision: 1,
        content,
        hash: contentHash(content),
        note: '',
        authorId,
      }
    })
    await writeTerms(tx, writes, ids, version)
  })
}

beforeAll(async () => {
  const editor = await createUser({ role: 'editor' })
  await insertTerms(TERMS, editor.user.id)
  const owner = await createUser({ role: 'viewer' })
  viewer = { via: 'session', user: { ...owner.user, authType: 'password' }, sessionId: null }
  for (const name of ['a', 'b', 'c', 'probe'] as const) {
    const { user } = await createUser({ role: 'viewer' })
    const { token } = await issueApiKey({ userId: user.id, name, scopes: ['read'] })
    keys[name] = { authorization: `Bearer ${token}` }
  }
  // Each key once, after the last change to users and keys (a change empties the gate's cache of keys), so
  // the gate keeps them and a held database does not hold their check.
  for (const key of Object.values(keys)) {
    expect((await apiCall(server.url(), 'GET', '/terms?pageSize=1', key)).status).toBe(200)
  }
})

afterEach(async () => {
  // No test may leave a slot behind for the next.
  await slotsBackTo(0)
})

/**
 * Waits until `count` exports run: a slot comes back when the server sees the stream end, fail or be cancelled
 * (a socket event, after the client's own side is done). The bound only keeps a leak from hanging the test.
 */
const slotsBackTo = (count: number) =>
  vi.waitFor(() => expect(exportsRunning()).toBe(count), { timeout: 10_000, interval: 10 })

/** Takes the database's one connection until the returned function is called (every statement waits). */
async function holdDatabase(): Promise<() => Promise<void>> {
  let release!: () => void
  let held!: () => void
  const taken = new Promise<void>((resolve) => (held = resolve))
  const done = em().transactional(async () => {
    held()
    await new Promise<void>((resolve) => (release = resolve))
  })
  await taken
  return async () => {
    release()
    await done
  }
}

/** A download whose answer (status and headers) has arrived; its body is read or abandoned later. */
async function startDownload(
  path: string,
  headers: Record<string, string>,
  method = 'GET',
): Promise<{ res: Response; abort: () => void }> {
  const controller = new AbortController()
  const res = await fetch(`${server.url()}/api/v1${path}`, { method, headers, signal: controller.signal })
  return { res, abort: () => controller.abort() }
}

describe('how many exports run at once', () => {
  it('per caller and in all: beyond them 429 rate_limited with Retry-After, in the error envelope', async () => {
    const release = await holdDatabase()
    const running: Awaited<ReturnType<typeof startDownload>>[] = []
    try {
      for (const key of [keys.a, keys.a]) {
        const download = await startDownload('/export/prh.yml', key)
        expect(download.res.status).toBe(200)
        running.push(download)
      }
      expect(exportsRunning()).toBe(2)

      // A third download of the same key is refused, whatever the format.
      for (const path of ['/export/prh.yml', '/export/terms.tbx', '/export/vale.zip']) {
        const refused = await apiCall(server.url(), 'GET', path, keys.a)
        expect(refused.status, path).toBe(429)
        expect(refused.headers.get('retry-after')).toBe(String(EXPORT_RETRY_AFTER_SECONDS))
        expect(refused.contentType).toMatch(/^application\/json/)
        expect(refused.json).toEqual({
          error: {
            code: 'rate_limited',
            message: expect.stringMatching(/per caller/),
            details: { retryAfterSeconds: EXPORT_RETRY_AFTER_SECONDS },
          },
        })
        expect(refused.text).not.toMatch(/at .*\.ts:\d+/)
      }
      expect(exportsRunning()).toBe(2)

      // Another caller is not blocked by the first one's limit, up to the process's limit (4).
      for (const key of [keys.b, keys.b]) {
        const download = await startDownload('/export/prh.yml', key)
        expect(download.res.status).toBe(200)
        running.push(download)
      }
      expect(exportsRunning()).toBe(4)
      const full = await apiCall(server.url(), 'GET', '/export/prh.yml', keys.c)
      expect(full.status).toBe(429)
      expect(full.headers.get('retry-after')).toBe(String(EXPORT_RETRY_AFTER_SECONDS))
      expect(full.json.error).toMatchObject({
        code: 'rate_limited',
        details: { retryAfterSeconds: EXPORT_RETRY_AFTER_SECONDS },
      })
    } finally {
      await release()
    }
    // With the database back, the held downloads finish whole.
    for (const { res } of running)
      expect(await res.text()).toMatch(/^# Generated by the glossary[^]*rules:\n/)
    expect(exportsRunning()).toBe(0)
  })

  it('follows the configuration', async () => {
    setConfig(parseConfig(testEnv({ GLOSSARY_EXPORTS_PER_CALLER: '1', GLOSSARY_EXPORTS_PER_PROCESS: '2' })))
    const release = await holdDatabase()
    const running: Awaited<ReturnType<typeof startDownload>>[] = []
    try {
      running.push(await startDownload('/export/prh.yml', keys.a))
      expect((await apiCall(server.url(), 'GET', '/export/prh.yml', keys.a)).status).toBe(429)
      running.push(await startDownload('/export/prh.yml', keys.b))
      expect((await apiCall(server.url(), 'GET', '/export/prh.yml', keys.c)).status).toBe(429)
      expect(running.map((d) => d.res.status)).toEqual([200, 200])
    } finally {
      setConfig(parseConfig(testEnv()))
      await release()
    }
    for (const { res } of running) await res.arrayBuffer()
  })

  it('counts a session by its user, a key by the key', async () => {
    const first = exportGlossary('prh.yml', viewer)
    const second = exportGlossary('prh.yml', viewer)
    expect(() => exportGlossary('prh.yml', viewer)).toThrow(expect.objectContaining({ code: 'rate_limited' }))
    // Another session of the same user is the same caller.
    expect(() => exportGlossary('prh.yml', { ...viewer, sessionId: crypto.randomUUID() })).toThrow(
      expect.objectContaining({ code: 'rate_limited' }),
    )
    expect(exportsRunning()).toBe(2)
    for (const { chunks } of [first, second]) await chunks[Symbol.asyncIterator]().return!()
    expect(exportsRunning()).toBe(0)
  })
})

describe('a download gives its slot back', () => {
  it('when it is finished', async () => {
    for (let i = 0; i < 3; i++) {
      const { status, text } = await apiCall(server.url(), 'GET', '/export/terms.tbx', keys.a)
      expect(status).toBe(200)
      expect(text.match(/<conceptEntry /g)).toHaveLength(TERMS)
      expect(exportsRunning()).toBe(0)
    }
  })

  it('when the client goes away mid-download', async () => {
    const release = await holdDatabase()
    try {
      const first = await startDownload('/export/prh.yml', keys.a)
      const second = await startDownload('/export/prh.yml', keys.a)
      expect([first.res.status, second.res.status]).toEqual([200, 200])
      // Mid-stream: the header came, the rest waits for the database the test holds.
      const reader = first.res.body!.getReader()
      expect(new TextDecoder().decode((await reader.read()).value)).toMatch(/^# Generated by the glossary/)
      expect(exportsRunning()).toBe(2)
      expect((await apiCall(server.url(), 'GET', '/export/prh.yml', keys.a)).status).toBe(429)
      first.abort()
      second.abort()
      // Given back while the database is still held: by the cancelled stream, not by the export ending.
      await slotsBackTo(0)
      const again = await startDownload('/export/prh.yml', keys.a)
      expect(again.res.status).toBe(200)
      again.abort()
    } finally {
      await release()
    }
  })

  it('when it fails mid-stream', async () => {
    // The header of prh.yml needs no table; the first statement after it then fails.
    await em().execute('alter table term_notations rename to term_notations_gone')
    try {
      for (let i = 0; i < 3; i++) {
        const { res } = await startDownload('/export/prh.yml', keys.a)
        expect(res.status).toBe(200)
        await expect(res.text()).rejects.toThrow()
        await slotsBackTo(0)
      }
    } finally {
      await em().execute('alter table term_notations_gone rename to term_notations')
    }
    const { status, text } = await apiCall(server.url(), 'GET', '/export/prh.yml', keys.a)
    expect(status).toBe(200)
    expect(text).toContain('Old limit term 1')
  })

  it('when it fails before its first chunk (an error envelope, not a stream)', async () => {
    await em().execute('alter table domains rename to domains_gone')
    try {
      for (let i = 0; i < 3; i++) {
        const failed = await apiCall(server.url(), 'GET', '/export/terms.tbx', keys.a)
        expect(failed.status).toBe(500)
        expect(failed.json.error.code).toBe('internal_error')
        expect(exportsRunning()).toBe(0)
      }
    } finally {
      await em().execute('alter table domains_gone rename to domains')
    }
  })

  it('when it is a HEAD request, which sends no body', async () => {
    for (let i = 0; i < 3; i++) {
      const { res } = await startDownload('/export/terms.tbx', keys.a, 'HEAD')
      expect(res.status).toBe(200)
      expect(res.headers.get('content-type')).toMatch(/^application\/x-tbx\+xml/)
      await slotsBackTo(0)
    }
  })
})

describe('other requests while an export streams', () => {
  it.each([
    ['terms.tbx', '<conceptEntry '],
    ['prh.yml', '- expected: '],
  ] as const)(
    'are answered while %s is read as fast as it is written (it takes turns with them)',
    async (format, perTerm) => {
      // The export is read here with no pause of its own, as a socket that always takes more would: only the
      // export's own turns let the event loop serve the other client's request.
      const { chunks } = exportGlossary(format, viewer)
      let answered = false
      let chunksAfterAnswer = 0
      const probe = apiCall(server.url(), 'GET', '/terms?pageSize=1', keys.probe).then((answer) => {
        answered = true
        return answer
      })
      let items = 0
      for await (const chunk of chunks) {
        if (answered) chunksAfterAnswer++
        items += (chunk as string).split(perTerm).length - 1
      }
      expect(answered).toBe(true)
      expect(chunksAfterAnswer).toBeGreaterThan(0)
      // TBX: a concept per term; prh.yml: a rule per admitted and per deprecated notation.
      expect(items).toBe(format === 'terms.tbx' ? TERMS : 2 * TERMS)
      const answer = await probe
      expect(answer.status).toBe(200)
      expect(answer.json.total).toBe(TERMS)
    },
  )

  it('are answered while the export waits mid-stream for a reader that stopped reading', async () => {
    const { chunks } = exportGlossary('terms.tbx', viewer)
    const reader = chunks[Symbol.asyncIterator]()
    let entries = 0
    const read = async () => {
      const next = await reader.next()
      if (!next.done) entries += (next.value as string).split('<conceptEntry ').length - 1
      return next
    }
    // Past the first batch of terms, then the reader stops asking (as a client whose socket is full).
    while (entries <= EXPORT_BATCH) expect((await read()).done).toBe(false)
    expect(exportsRunning()).toBe(1)
    // The export holds no connection or transaction between its reads: the database is free for others, the
    // term list and another export alike.
    const list = await apiCall(server.url(), 'GET', '/terms?pageSize=1', keys.probe)
    expect(list.status).toBe(200)
    expect(list.json.total).toBe(TERMS)
    const other = await apiCall(server.url(), 'GET', '/export/prh.yml', keys.b)
    expect(other.status).toBe(200)
    expect(other.text).toContain('Old limit term 1')
    expect(exportsRunning()).toBe(1)
    // And it goes on where it stopped.
    while (!(await read()).done);
    expect(entries).toBe(TERMS)
  })
})
