import { performance } from 'node:perf_hooks'
import { describe, expect, it } from 'vitest'
import {
  CLUSTER_ADMIN,
  configureSearch,
  createApiKey,
  errorLines,
  expectJson,
  indexStatus,
  sessionCookieOf,
  setupAdmin,
  until,
  useCluster,
  type GlossaryProcess,
} from './cluster.ts'

/**
 * The production shape on real processes (issue 28): `glossary migrate`, then two `glossary web` on two ports
 * and two `glossary worker`, all on one PostgreSQL database and one Redis. What one web writes, the other
 * serves: a saved term is validated and looked up through the other web within one second of the save's
 * answer (the matcher follows other processes' saves), sessions, API keys and rate-limit buckets are shared,
 * `/readyz` reports each part, and the workers index a saved term so the other web's search finds it.
 * The tests build on each other in order.
 *
 * The webs trust one proxy hop (GLOSSARY_TRUST_PROXY_HEADERS), as behind the load balancer that spreads
 * requests over them; the rate-limit test sends its own client address so its bucket is its own.
 */

/** The bound: a save is seen by the other web's validation and lookup within one second. */
const OTHER_WEB_SEES_SAVE_MS = 1000
const LOGIN_LIMIT = 6

const cluster = useCluster({
  webs: 2,
  workers: 2,
  env: { GLOSSARY_TRUST_PROXY_HEADERS: 'true', GLOSSARY_RATE_LOGIN_PER_MINUTE: String(LOGIN_LIMIT) },
})
const webA = () => cluster.webs[0]!
const webB = () => cluster.webs[1]!

const state = { admin: '', token: '', slug: '', revision: 0 }

interface ValidateAnswer {
  occurrences: { text: string; finding: string; term: { slug: string } }[]
  glossary: { version: number; upToDate: boolean }
}
interface LookupAnswer {
  results: { text: string; found: boolean; matches: { term: { slug: string }; kind: string }[] }[]
}

async function validate(web: GlossaryProcess, text: string): Promise<ValidateAnswer> {
  return expectJson(await web.api('/validate', { method: 'POST', token: state.token, body: { text } }))
}

async function lookup(web: GlossaryProcess, texts: string[]): Promise<LookupAnswer> {
  return expectJson(await web.api('/terms/lookup', { method: 'POST', token: state.token, body: { texts } }))
}

/** Milliseconds from `since` until `probe` first holds (one request per probe, polled every 5 ms). */
async function msUntil(since: number, probe: () => Promise<boolean>, what: string): Promise<number> {
  await until(probe, { intervalMs: 5, what })
  return Math.round(performance.now() - since)
}

/** The forms of the saved term a validation on `web` flags as deprecated notations, in the order of `text`. */
async function flagged(web: GlossaryProcess, text: string): Promise<string[]> {
  const { occurrences } = await validate(web, text)
  return occurrences
    .filter((o) => o.finding === 'deprecated-notation' && o.term.slug === state.slug)
    .map((o) => o.text)
}

/** Of `forms`, those a lookup on `web` finds as the saved term's deprecated notations. */
async function lookedUp(web: GlossaryProcess, forms: string[]): Promise<string[]> {
  const { results } = await lookup(web, forms)
  return results
    .filter((r) => r.matches.some((m) => m.term.slug === state.slug && m.kind === 'deprecated'))
    .map((r) => r.text)
}

const equal = (a: string[], b: string[]) => JSON.stringify(a) === JSON.stringify(b)

describe('the production shape: two webs and two workers on one PostgreSQL and one Redis', () => {
  it('/readyz on each web answers 200 and reports the database, the migrations, Redis and the two workers', async () => {
    for (const web of cluster.webs) {
      const res = await fetch(`${web.url}/readyz`)
      const body = (await res.json()) as {
        ready: boolean
        checks: Record<string, string>
        index?: { workers: unknown[] }
      }
      console.info(`${web.name} /readyz ${res.status} ${JSON.stringify(body)}`)
      expect(res.status).toBe(200)
      expect(body).toMatchObject({
        ready: true,
        checks: { database: 'ok', migrations: 'ok', queue: 'ok', workers: '2 live', index: 'ok' },
      })
      expect(body.index?.workers).toHaveLength(2)
    }
  })

  it("the first admin's session from web A works on web B, for reads and for writes", async () => {
    state.admin = await setupAdmin(webA())
    expect(await expectJson(await webB().api('/keys', { cookie: state.admin }))).toEqual({ keys: [] })
    // A write on B with A's cookie: B's origin is allowed too, and the session is B's as much as A's.
    state.token = (await createApiKey(webB(), state.admin)).token
    expect((await webA().api('/terms', { token: state.token })).status).toBe(200)
  })

  it('a session ended on web B no longer works on web A', async () => {
    const login = await webA().api('/auth/login', {
      method: 'POST',
      body: { email: CLUSTER_ADMIN.email, password: CLUSTER_ADMIN.password },
    })
    const cookie = sessionCookieOf(login)
    await expectJson(login)
    expect((await webA().api('/keys', { cookie })).status).toBe(200)
    expect((await webB().api('/auth/logout', { method: 'POST', cookie })).status).toBe(204)
    expect((await webA().api('/keys', { cookie })).status).toBe(401)
  })

  it(`a term saved through web A is validated and looked up through web B within ${OTHER_WEB_SEES_SAVE_MS} ms`, async () => {
    // Both webs have built their matcher before the save: B must follow A's save, not build for the first time.
    for (const web of cluster.webs) {
      const started = performance.now()
      const first = await validate(web, 'Nothing to flag here.')
      const ms = Math.round(performance.now() - started)
      console.info(
        `${web.name}'s first validation (cold matcher): ${ms} ms, ${JSON.stringify(first.glossary)}`,
      )
      expect(first.occurrences).toEqual([])
    }

    const save = await webA().api('/terms', {
      method: 'POST',
      token: state.token,
      body: {
        name: 'Settlement Ledger',
        notations: [{ text: 'Settle Book', kind: 'deprecated' }],
        definition: 'The ledger every settlement batch is posted to.',
      },
    })
    const term = await expectJson<{ id: string; slug: string; revision: number }>(save, 201)
    const saved = performance.now()
    Object.assign(state, { slug: term.slug, revision: term.revision })

    const [validatedMs, lookedUpMs] = await Promise.all([
      msUntil(
        saved,
        async () => equal(await flagged(webB(), 'Post it to the Settle Book.'), ['Settle Book']),
        'web B to flag the new deprecated notation',
      ),
      msUntil(
        saved,
        async () => equal(await lookedUp(webB(), ['Settle Book']), ['Settle Book']),
        'web B to look up the new deprecated notation',
      ),
    ])
    console.info(
      `web B after web A's save: validate flagged it after ${validatedMs} ms, lookup found it after ${lookedUpMs} ms`,
    )
    expect(validatedMs).toBeLessThanOrEqual(OTHER_WEB_SEES_SAVE_MS)
    expect(lookedUpMs).toBeLessThanOrEqual(OTHER_WEB_SEES_SAVE_MS)
  })

  it(`an edit through web B reaches web A's warm matcher within ${OTHER_WEB_SEES_SAVE_MS} ms`, async () => {
    const text = 'The Settle Book became the Settle Register.'
    expect(await flagged(webA(), text)).toEqual(['Settle Book']) // A's matcher holds the first revision
    const edit = await webB().api(`/terms/${state.slug}`, {
      method: 'PATCH',
      token: state.token,
      body: { baseRevision: state.revision, notations: [{ text: 'Settle Register', kind: 'deprecated' }] },
    })
    state.revision = (await expectJson<{ revision: number }>(edit)).revision
    const saved = performance.now()

    const [validatedMs, lookedUpMs] = await Promise.all([
      msUntil(
        saved,
        async () => equal(await flagged(webA(), text), ['Settle Register']),
        'web A to flag the edited notation and not the removed one',
      ),
      msUntil(
        saved,
        async () => equal(await lookedUp(webA(), ['Settle Book', 'Settle Register']), ['Settle Register']),
        'web A to look up the edited notation and not the removed one',
      ),
    ])
    console.info(`web A after web B's edit: validate after ${validatedMs} ms, lookup after ${lookedUpMs} ms`)
    expect(validatedMs).toBeLessThanOrEqual(OTHER_WEB_SEES_SAVE_MS)
    expect(lookedUpMs).toBeLessThanOrEqual(OTHER_WEB_SEES_SAVE_MS)
  })

  it('an API key revoked on web B is refused by web A at its next request', async () => {
    const key = await createApiKey(webB(), state.admin, ['read', 'validate'])
    // Used on A first, so a key cache of A's would hold it.
    expect((await webA().api('/terms', { token: key.token })).status).toBe(200)
    expect(
      (await webA().api('/validate', { method: 'POST', token: key.token, body: { text: 'x' } })).status,
    ).toBe(200)
    expect((await webB().api(`/keys/${key.id}`, { method: 'DELETE', cookie: state.admin })).status).toBe(204)
    expect((await webA().api('/terms', { token: key.token })).status).toBe(401)
    expect(
      (await webA().api('/validate', { method: 'POST', token: key.token, body: { text: 'x' } })).status,
    ).toBe(401)
  })

  it(`failed logins spread over both webs share one bucket: the ${LOGIN_LIMIT + 1}th is refused with 429`, async () => {
    const client = { 'x-forwarded-for': '203.0.113.28' }
    const statuses: number[] = []
    let retryAfter: string | null = null
    for (let i = 0; i < LOGIN_LIMIT + 2; i++) {
      const web = cluster.webs[i % 2]!
      const res = await web.api('/auth/login', {
        method: 'POST',
        headers: client,
        body: { email: 'nobody@cluster.test', password: 'not the password' },
      })
      await res.arrayBuffer()
      statuses.push(res.status)
      retryAfter ??= res.headers.get('retry-after')
    }
    expect(statuses).toEqual([...Array<number>(LOGIN_LIMIT).fill(401), 429, 429])
    expect(Number(retryAfter)).toBeGreaterThan(0)
    // Another client's bucket is untouched.
    const other = await webB().api('/auth/login', {
      method: 'POST',
      headers: { 'x-forwarded-for': '203.0.113.29' },
      body: { email: 'nobody@cluster.test', password: 'not the password' },
    })
    expect(other.status).toBe(401)
  })

  it("with the stand-in provider, a term saved through web B is indexed by the workers and found by web A's search", async () => {
    const provider = await cluster.provider()
    await configureSearch(webA(), state.admin, provider)
    const save = await webB().api('/terms', {
      method: 'POST',
      token: state.token,
      body: {
        name: 'Nightly Reconciliation',
        definition: 'The run that matches the clearing house statements against the ledger every night.',
      },
    })
    const term = await expectJson<{ id: string; slug: string }>(save, 201)
    const status = await until(
      async () => {
        const s = await indexStatus(cluster.database, term.id)
        if (s === 'failed') throw new Error('the index row failed')
        return s === 'ready' && s
      },
      { timeoutMs: 30_000, intervalMs: 50, what: 'the saved term to be indexed' },
    )
    expect(status).toBe('ready')
    expect(provider.requests.some((r) => r.path.endsWith('/embeddings'))).toBe(true)

    const found = await expectJson<{ items: { slug: string }[] }>(
      await webA().api('/rag/search', {
        method: 'POST',
        token: state.token,
        body: { query: 'clearing house statements' },
      }),
    )
    expect(found.items[0]?.slug).toBe(term.slug)
  })

  it('every process still runs and none logged an error', () => {
    for (const p of [...cluster.webs, ...cluster.workers]) {
      expect(p.running, `${p.name} runs`).toBe(true)
      expect(errorLines(p.output()), `${p.name}'s errors`).toEqual([])
    }
  })
})
