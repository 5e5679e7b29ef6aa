import type { AddressInfo } from 'node:net'
import { beforeAll, describe, expect, it } from 'vitest'
import { createHttpApp } from '#app/server/http.server.ts'
import { consumeRateLimit } from '#app/services/rate-limit/rate-limit.server.ts'
import { deleteExpiredRateLimitBuckets } from '#app/services/rate-limit/store.server.ts'
import { em } from '#db/orm.ts'
import { createUser } from '#tests/factories.ts'
import { useTestDb } from '#tests/setup/db.ts'
import { post, randomIp, withConfig } from './helpers.ts'

useTestDb()

beforeAll(async () => {
  await createUser({ role: 'admin' })
})

describe('consumeRateLimit', () => {
  it('counts per bucket and key within a window, then starts a new window', async () => {
    const first = await consumeRateLimit('unit', 'a', 2, 60)
    expect(first).toMatchObject({ allowed: true, count: 1, limit: 2 })
    expect((await consumeRateLimit('unit', 'a', 2, 60)).allowed).toBe(true)
    const third = await consumeRateLimit('unit', 'a', 2, 60)
    expect(third.allowed).toBe(false)
    expect(third.retryAfterSeconds).toBeGreaterThanOrEqual(1)
    expect(third.retryAfterSeconds).toBeLessThanOrEqual(60)
    // Other keys and buckets are separate.
    expect((await consumeRateLimit('unit', 'b', 2, 60)).count).toBe(1)
    expect((await consumeRateLimit('other', 'a', 2, 60)).count).toBe(1)
    // Once the window has passed, counting starts again.
    await em().execute(
      `update rate_limit_buckets set window_start = now() - interval '61 seconds' where key = 'unit:a'`,
    )
    expect(await consumeRateLimit('unit', 'a', 2, 60)).toMatchObject({ allowed: true, count: 1 })
  })

  it('is atomic: 20 simultaneous requests against a limit of 5 let exactly 5 through', async () => {
    const results = await Promise.all(Array.from({ length: 20 }, () => consumeRateLimit('race', 'k', 5, 60)))
    expect(results.filter((r) => r.allowed).length).toBe(5)
    expect(results.map((r) => r.count).sort((x, y) => x - y)).toEqual(
      Array.from({ length: 20 }, (_, i) => i + 1),
    )
  })

  it('deleteExpiredRateLimitBuckets removes only buckets whose window is surely over, and counts them', async () => {
    await consumeRateLimit('old', 'x', 1, 60)
    await consumeRateLimit('old', 'y', 1, 60)
    await consumeRateLimit('fresh', 'z', 1, 60)
    await em().execute(
      `update rate_limit_buckets set window_start = now() - interval '2 days' where key in ('old:x', 'old:y')`,
    )
    await em().execute(
      `update rate_limit_buckets set window_start = now() - interval '23 hours' where key = 'fresh:z'`,
    )
    expect(await deleteExpiredRateLimitBuckets(new Date())).toBe(2)
    const left = await em().execute<{ key: string }[]>(
      `select key from rate_limit_buckets where key in ('old:x', 'old:y', 'fresh:z')`,
    )
    expect(left.map((r) => r.key)).toEqual(['fresh:z'])
    expect(await deleteExpiredRateLimitBuckets(new Date())).toBe(0)
  })

  it('refuses a window longer than a day (the cleanup could not tell when it ends)', async () => {
    await expect(consumeRateLimit('long', 'k', 1, 86_401)).rejects.toThrow(/window/)
  })
})

describe('rate-limited endpoints', () => {
  it('login: the second call from the same IP answers 429 rate_limited with Retry-After; another IP is not affected', async () => {
    await withConfig({ GLOSSARY_RATE_LOGIN_PER_MINUTE: '1' }, async () => {
      const { user, password } = await createUser()
      const ip = randomIp()
      expect(
        (await post('/auth/login', { email: 'someone@example.test', password: 'x' }, { ip })).status,
      ).toBe(401)
      const limited = await post('/auth/login', { email: user.email, password }, { ip })
      expect(limited.status).toBe(429)
      expect(Number(limited.headers.get('retry-after'))).toBeGreaterThanOrEqual(1)
      expect(Number(limited.headers.get('retry-after'))).toBeLessThanOrEqual(60)
      expect((await limited.json()).error.code).toBe('rate_limited')
      expect((await post('/auth/login', { email: user.email, password }, { ip: randomIp() })).status).toBe(
        200,
      )
    })
  })

  it('login: one account is also limited per email across addresses, at 3x the per-IP limit (no lockout beyond the window)', async () => {
    await withConfig({ GLOSSARY_RATE_LOGIN_PER_MINUTE: '2' }, async () => {
      const { user, password } = await createUser()
      const statuses: number[] = []
      for (let i = 0; i < 7; i++) {
        statuses.push(
          (
            await post(
              '/auth/login',
              { email: user.email.toUpperCase(), password: 'wrong' },
              { ip: randomIp() },
            )
          ).status,
        )
      }
      expect(statuses).toEqual([401, 401, 401, 401, 401, 401, 429])
      // The window passes: the owner signs in again (no account lockout).
      await em().execute(`update rate_limit_buckets set window_start = now() - interval '61 seconds'`)
      expect((await post('/auth/login', { email: user.email, password }, { ip: randomIp() })).status).toBe(
        200,
      )
    })
  })

  it('registration: limited per IP per hour', async () => {
    await withConfig({ GLOSSARY_RATE_REGISTER_PER_HOUR: '2' }, async () => {
      const ip = randomIp()
      expect(
        (await post('/auth/register', { email: 'r1@example.test', password: 'password1' }, { ip })).status,
      ).toBe(200)
      expect(
        (await post('/auth/register', { email: 'r2@example.test', password: 'password1' }, { ip })).status,
      ).toBe(200)
      const limited = await post(
        '/auth/register',
        { email: 'r3@example.test', password: 'password1' },
        { ip },
      )
      expect(limited.status).toBe(429)
      expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(60)
      expect(
        (
          await post(
            '/auth/register',
            { email: 'r3@example.test', password: 'password1' },
            { ip: randomIp() },
          )
        ).status,
      ).toBe(200)
    })
  })

  it('two web servers on one database share the buckets (nothing is counted in process memory)', async () => {
    await withConfig({ GLOSSARY_RATE_LOGIN_PER_MINUTE: '1' }, async () => {
      await em().execute(`delete from rate_limit_buckets where key = 'login:ip:127.0.0.1'`)
      const servers = [createHttpApp().listen(0, '127.0.0.1'), createHttpApp().listen(0, '127.0.0.1')]
      try {
        await Promise.all(servers.map((s) => new Promise<void>((resolve) => s.once('listening', resolve))))
        const statuses: number[] = []
        for (const server of servers) {
          const { port } = server.address() as AddressInfo
          const res = await fetch(`http://127.0.0.1:${port}/api/v1/auth/login`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ email: 'shared@example.test', password: 'whatever' }),
          })
          statuses.push(res.status)
          if (res.status === 429) expect(res.headers.get('retry-after')).toMatch(/^\d+$/)
        }
        expect(statuses).toEqual([401, 429])
      } finally {
        for (const server of servers) {
          server.closeAllConnections()
          await new Promise<void>((resolve) => server.close(() => resolve()))
        }
      }
    })
  })

  it('the bucket key stores no email address', async () => {
    await post('/auth/login', { email: 'private.person@example.test', password: 'whatever' })
    const rows = await em().execute(`select key from rate_limit_buckets`)
    expect(JSON.stringify(rows)).not.toContain('private.person')
  })
})
