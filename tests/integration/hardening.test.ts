import http from 'node:http'
import net from 'node:net'
import { Writable } from 'node:stream'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { setLogDestination } from '#app/lib/logger.server.ts'
import { em } from '#db/orm.ts'
import { createApiKey, createUser, TEST_ORIGIN, type TestUser } from '#tests/factories.ts'
import { useApiServer } from '#tests/http.ts'
import { useTestDb } from '#tests/setup/db.ts'

// Bad input at the boundary (issue 9): text the database cannot store, methods a Fetch Request cannot carry,
// requests Node's parser refuses, and what a failing write may leave in the log.
useTestDb()
const server = useApiServer()

let editor: TestUser
let readKey: Record<string, string>

beforeAll(async () => {
  editor = await createUser({ role: 'editor' })
  readKey = await createApiKey(editor.user.id, ['read'])
})
const api = server.api

/** A request with a body sent exactly as given (bytes), for what JSON.stringify would never produce. */
async function rawPost(
  path: string,
  headers: Record<string, string>,
  body: string | Uint8Array<ArrayBuffer>,
) {
  const res = await fetch(`${server.url()}/api/v1${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body,
  })
  return { status: res.status, json: await res.json() }
}

/** Sends bytes on a raw socket and returns what came back (Node's parser answers before the app). */
function rawExchange(bytes: Buffer): Promise<string> {
  const { port } = new URL(server.url())
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), '127.0.0.1')
    let answer = ''
    socket.on('data', (d) => (answer += d.toString('utf8')))
    socket.on('end', () => resolve(answer))
    socket.on('close', () => resolve(answer))
    socket.on('error', reject)
    socket.write(bytes)
  })
}

function problemPaths(json: { error: { details?: { problems?: { path: string }[] } } }): string[] {
  return (json.error.details?.problems ?? []).map((p) => p.path)
}

describe('text the database cannot store is refused at the boundary', () => {
  it('a NUL in a query value, a path segment or a JSON string is 400 validation_failed naming the field', async () => {
    const query = await api('GET', '/terms?q=a%00b', readKey)
    expect(query.status).toBe(400)
    expect(query.json.error.code).toBe('validation_failed')
    expect(problemPaths(query.json)).toEqual(['query.q'])

    const path = await api('GET', '/terms/%00', readKey)
    expect(path.status).toBe(400)
    expect(problemPaths(path.json)).toEqual(['params.idOrSlug'])

    const register = await api(
      'POST',
      '/auth/register',
      { origin: TEST_ORIGIN },
      {
        email: 'nul@example.test',
        password: 'long enough password',
        name: 'A\u0000B',
      },
    )
    expect(register.status).toBe(400)
    expect(problemPaths(register.json)).toEqual(['name'])

    const login = await api(
      'POST',
      '/auth/login',
      { origin: TEST_ORIGIN },
      {
        email: 'a\u0000@example.test',
        password: 'whatever password',
      },
    )
    expect(login.status).toBe(400)
    expect(problemPaths(login.json)).toEqual(['email'])

    const nested = await api('POST', '/terms', editor.sessionHeaders, {
      name: 'Nul Notation',
      notations: [{ text: 'bad\u0000form', kind: 'deprecated', lang: null }],
    })
    expect(nested.status).toBe(400)
    expect(problemPaths(nested.json)).toEqual(['notations.0.text'])
    expect(nested.json.error.details.problems[0].message).toMatch(/NUL/)
  })

  it('refuses lone surrogates, NUL in a field name, and bytes that are not UTF-8', async () => {
    const surrogate = await rawPost('/terms', editor.sessionHeaders, '{"name":"half \\ud800 pair"}')
    expect(surrogate.status).toBe(400)
    expect(problemPaths(surrogate.json)).toEqual(['name'])
    expect(surrogate.json.error.details.problems[0].message).toMatch(/surrogate/)

    const key = await rawPost('/terms', editor.sessionHeaders, '{"na\\u0000me":"x"}')
    expect(key.status).toBe(400)
    expect(problemPaths(key.json)).toEqual(['(key)'])

    const bytes = new Uint8Array([...Buffer.from('{"name":"'), 0xff, 0xfe, ...Buffer.from('"}')])
    const latin = await rawPost('/terms', editor.sessionHeaders, bytes)
    expect(latin.status).toBe(400)
    expect(problemPaths(latin.json)).toEqual(['(body)'])

    // A pair written as two escapes is one valid character and passes the text rule.
    const pair = await rawPost('/terms', editor.sessionHeaders, '{"name":"smile \\ud83d\\ude00"}')
    expect(pair.status).toBe(201)
  })
})

describe('methods and requests outside what the app can parse', () => {
  function nodeRequest(
    method: string,
    path: string,
  ): Promise<{ status: number; body: string; allow?: string }> {
    return new Promise((resolve, reject) => {
      const req = http.request(`${server.url()}${path}`, { method }, (res) => {
        let body = ''
        res.on('data', (d) => (body += d))
        res.on('end', () => resolve({ status: res.statusCode!, body, allow: res.headers.allow }))
      })
      req.on('error', reject)
      req.end()
    })
  }

  it('TRACE on an API path is 405 in the envelope with Allow; on an unknown path 404', async () => {
    const trace = await nodeRequest('TRACE', '/api/v1/terms')
    expect(trace.status).toBe(405)
    expect(JSON.parse(trace.body).error.code).toBe('method_not_allowed')
    expect(trace.allow).toBe('GET, POST')
    const unknown = await nodeRequest('TRACE', '/api/v1/nothing-here')
    expect(unknown.status).toBe(404)
    expect(JSON.parse(unknown.body).error.code).toBe('not_found')
  })

  it('a request line over the parser limit is 431 in the JSON envelope', async () => {
    const answer = await rawExchange(
      Buffer.from(`GET /api/v1/terms?q=${'a'.repeat(20_000)} HTTP/1.1\r\nHost: localhost\r\n\r\n`),
    )
    expect(answer).toMatch(/^HTTP\/1\.1 431 /)
    const body = JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4))
    expect(body.error.code).toBe('header_too_large')
  })

  it('raw non-ASCII bytes in the request line are 400 in the JSON envelope', async () => {
    const answer = await rawExchange(
      Buffer.concat([
        Buffer.from('GET /api/v1/'),
        Buffer.from([0xff, 0xfe]),
        Buffer.from(' HTTP/1.1\r\nHost: localhost\r\n\r\n'),
      ]),
    )
    expect(answer).toMatch(/^HTTP\/1\.1 400 /)
    const body = JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4))
    expect(body.error.code).toBe('bad_request')
  })
})

describe('the log of a failing write', () => {
  const lines: string[] = []
  beforeAll(() => {
    setLogDestination(
      new Writable({
        write(chunk, _encoding, done) {
          lines.push(...String(chunk).split('\n').filter(Boolean))
          done()
        },
      }),
    )
  })
  afterAll(async () => {
    setLogDestination(undefined)
    await em().execute(
      'drop trigger if exists fail_insert on users; drop trigger if exists fail_insert on api_keys',
    )
  })

  /** Makes every insert into `table` fail inside the database, as a broken constraint or disk would. */
  async function breakInserts(table: string): Promise<void> {
    await em().execute(`create or replace function fail_insert() returns trigger language plpgsql as $$
      begin raise exception 'simulated storage failure'; end $$`)
    await em().execute(
      `create trigger fail_insert before insert on ${table} for each row execute function fail_insert()`,
    )
  }

  it('never holds the password, its hash, the email, a key token or its hash', async () => {
    await breakInserts('users')
    const email = 'leaky.person@example.test'
    const password = 'Secret-password-123'
    const register = await api(
      'POST',
      '/auth/register',
      { origin: TEST_ORIGIN },
      { email, password, name: 'Leaky' },
    )
    expect(register.status).toBe(500)
    expect(register.json.error).toEqual({
      code: 'internal_error',
      message: 'Something went wrong on the server.',
    })

    await breakInserts('api_keys')
    const key = await api('POST', '/keys', editor.sessionHeaders, { name: 'leaky key', scopes: ['read'] })
    expect(key.status).toBe(500)

    const log = lines.join('\n')
    // The failures were logged, with the statement's shape and the database's own message...
    // (the stores' raw SQL names tables unquoted; ORM-built SQL quotes them)
    expect(log).toMatch(/insert into (?:\\?")?users\b/)
    expect(log).toMatch(/insert into (?:\\?")?api_keys\b/)
    expect(log).toContain('simulated storage failure')
    // ...and nothing the writes carried.
    expect(log).not.toContain(password)
    expect(log).not.toContain('$argon2')
    expect(log).not.toContain(email)
    expect(log).not.toContain(editor.user.email)
    expect(log).not.toMatch(/glk_[0-9a-f]{8}_[A-Za-z0-9_-]{10,}/)
    expect(log).not.toMatch(/\b[0-9a-f]{64}\b/)
  })
})
