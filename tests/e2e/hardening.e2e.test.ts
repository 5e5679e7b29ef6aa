import fs from 'node:fs'
import http from 'node:http'
import path from 'node:path'
import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ROOT, startService, type RunningService } from './harness.ts'

/**
 * The pages of the built app, served as `glossary start` serves them with nothing configured (NODE_ENV
 * unset): bad input answers 4xx pages, no answer shows a stack trace or a source path (issue 9), and `npm
 * start` stops for real on SIGTERM.
 */

let service: RunningService
let adminCookie = ''

const STACK = /\n\s+at \S+|node_modules|URIError|TypeError|\.tsx?:\d+|\.js:\d+:\d+/

beforeAll(async () => {
  service = await startService('start')
  const res = await fetch(`${service.url}/api/v1/setup`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: service.url },
    body: JSON.stringify({ email: 'admin@example.test', password: 'admin password 1', name: 'Admin' }),
  })
  expect(res.status).toBe(200)
  adminCookie = res.headers.getSetCookie()[0]!.split(';')[0]!
})

afterAll(async () => {
  await service?.stop()
})

function nodeRequest(
  method: string,
  target: string,
  headers: Record<string, string> = {},
  body?: string | Buffer,
): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(`${service.url}${target}`, { method, headers }, (res) => {
      let text = ''
      res.on('data', (d) => (text += d))
      res.on('end', () => resolve({ status: res.statusCode!, text }))
    })
    req.on('error', reject)
    req.end(body)
  })
}

/** The service's last logged error, to say why an answer was 5xx. */
function lastLoggedError(): string {
  const errors = service
    .output()
    .split('\n')
    .filter((line) => line.includes('"level":50'))
  return errors.at(-1)?.slice(0, 800) ?? '(none logged)'
}

function expectNoLeak(answer: { status: number; text: string }, label: string): void {
  expect(answer.status, `${label}: ${lastLoggedError()}`).toBeLessThan(500)
  expect(answer.text, label).not.toMatch(STACK)
  expect(answer.text, label).not.toContain(ROOT)
}

describe('pages on bad input', () => {
  it('answer malformed addresses and text the database cannot store with 4xx pages, no stack', async () => {
    const targets = [
      '/%',
      '/%zz',
      '/terms/%00',
      '/terms/a%00b',
      '/wiki/%00',
      '/terms?q=%00',
      '/terms?q=%',
      '/meetings/%00',
      '/relations/%00/edit',
      '/terms/%00/history',
      '/admin/users?q=%00',
      '/terms/%ED%A0%80',
      '/assets/%',
    ]
    for (const target of targets) {
      for (const cookie of ['', adminCookie]) {
        const answer = await nodeRequest('GET', target, cookie ? { cookie } : {})
        expectNoLeak(answer, `GET ${target}`)
        expect(answer.status, `GET ${target} ${cookie ? 'signed in' : ''}`).toBeGreaterThanOrEqual(400)
      }
    }
  })

  it('answer TRACE with a plain 405 page', async () => {
    for (const target of ['/', '/terms', '/login']) {
      const answer = await nodeRequest('TRACE', target)
      expect(answer.status).toBe(405)
      expectNoLeak(answer, `TRACE ${target}`)
    }
  })

  it('refuse a form post with no body, a NUL field, or a body that is not a form, with 4xx', async () => {
    const origin = { origin: service.url }
    const empty = await nodeRequest('POST', '/login', origin)
    expect(empty.status).toBe(401)
    expect(empty.text).toContain('The email or password is incorrect.')

    const nul = await nodeRequest(
      'POST',
      '/login',
      { ...origin, 'content-type': 'application/x-www-form-urlencoded' },
      'email=a%00b%40example.test&password=whatever',
    )
    expect(nul.status).toBe(400)
    expect(nul.text).toMatch(/NUL/)

    const boundary = 'xyz'
    const multipart = Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="name"\r\n\r\nbad\u0000name\r\n--${boundary}--\r\n`,
    )
    const part = await nodeRequest(
      'POST',
      '/terms/new',
      { ...origin, cookie: adminCookie, 'content-type': `multipart/form-data; boundary=${boundary}` },
      multipart,
    )
    expect(part.status).toBe(400)

    const plain = await nodeRequest(
      'POST',
      '/check',
      { ...origin, cookie: adminCookie, 'content-type': 'text/plain' },
      'x',
    )
    expect(plain.status).toBe(415)
    for (const answer of [empty, nul, part, plain]) expectNoLeak(answer, 'form post')
  })

  it('refuse a form post from a foreign origin with a 403 page, and accept an allowed one behind a proxy', async () => {
    for (const target of ['/login', '/settings', '/admin/users', '/check']) {
      const answer = await nodeRequest(
        'POST',
        target,
        {
          origin: 'http://evil.example',
          cookie: adminCookie,
          'content-type': 'application/x-www-form-urlencoded',
        },
        'intent=x',
      )
      expect(answer.status, target).toBe(403)
      expectNoLeak(answer, `foreign POST ${target}`)
    }
    // A reverse proxy that rewrites Host: the origin is allowed, so the post is handled (Remix's own
    // Origin-vs-Host check would have answered 500).
    const proxied = await nodeRequest(
      'POST',
      '/login',
      {
        origin: service.url,
        host: 'glossary-internal:3000',
        'content-type': 'application/x-www-form-urlencoded',
      },
      'email=nobody%40example.test&password=wrong-password',
    )
    expect(proxied.status).toBe(401)
  })

  it('fuzz: every page route, GET and POST, signed in or not, never answers 5xx or a stack', async () => {
    // Every route module of the app, so a new page is fuzzed without anyone listing it here.
    const routes = fs
      .readdirSync(path.join(ROOT, 'app/routes'))
      .filter((file) => file.endsWith('.tsx'))
      .map(
        (file) =>
          `/${file
            .replace(/\.tsx$/, '')
            .replace(/(^|\.)_index$/, '')
            .replace(/\./g, '/')}`.replace(/\/$/, '') || '/',
      )
    expect(routes).toContain('/terms/$slug/edit')
    const value = fc.oneof(
      fc.string({ unit: 'binary', maxLength: 20 }),
      fc.constantFrom(
        '',
        '%00',
        '%',
        '%ED%A0%80',
        'new',
        '1',
        '<script>',
        '../x',
        'x'.repeat(3000),
        'apply',
        'dry-run',
        'csv',
        'json',
        'delete',
        'merge',
        'admin',
      ),
    )
    const encode = (v: string) =>
      v.startsWith('%')
        ? v
        : [...v].map((ch) => (ch.isWellFormed() ? encodeURIComponent(ch) : '%ED%A0%80')).join('')
    let requests = 0
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...routes),
        fc.boolean(),
        fc.constantFrom('GET', 'POST'),
        value,
        fc.array(
          fc.tuple(
            fc.constantFrom(
              'intent',
              'q',
              'email',
              'name',
              'text',
              'id',
              'role',
              'page',
              'redirectTo',
              'content',
              'format',
            ),
            value,
          ),
          {
            maxLength: 4,
          },
        ),
        async (route, signedIn, method, param, fields) => {
          const target = route.replace(/\$[a-zA-Z]+/g, encode(param))
          const form = fields.map(([k, v]) => `${k}=${encode(v)}`).join('&')
          const headers: Record<string, string> = { origin: service.url }
          if (signedIn) headers.cookie = adminCookie
          if (method === 'POST') headers['content-type'] = 'application/x-www-form-urlencoded'
          requests++
          const answer = await nodeRequest(
            method,
            method === 'GET' && form ? `${target}?${form}` : target,
            headers,
            method === 'POST' ? form : undefined,
          )
          expectNoLeak(answer, `${method} ${target} ${form.slice(0, 80)}`)
        },
      ),
      { seed: 20261123, numRuns: 1000, endOnFailure: true },
    )
    console.log(`page fuzz: ${requests} requests over ${routes.length} routes`)
  }, 180_000)
})

describe('npm start', () => {
  it('stops the server when npm receives SIGTERM', async () => {
    const npm = await startService('start', { viaNpm: true })
    expect(await npm.stop('SIGTERM')).toBe(0) // to npm itself, as a process manager would
    expect(npm.output()).toContain('stopped cleanly')
    // Nothing is listening any more: the server went down with npm, not orphaned behind it.
    expect(
      await fetch(`${npm.url}/healthz`).then(
        () => 'up',
        () => 'down',
      ),
    ).toBe('down')
  })
})
