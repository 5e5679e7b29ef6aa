/**
 * Login benchmark: `npx tsx bench/login.bench.ts [--requests N]`
 *
 * Starts the API server in-process on 127.0.0.1 over an embedded in-memory database (PGlite, migrated here),
 * creates one account through POST /api/v1/setup, then drives POST /api/v1/auth/login at concurrency 1, 8 and
 * 32 with N requests each (default 200, after a short warm-up) and prints logins/s and p50/p99 latency. A
 * second table compares a wrong password with an unknown email at concurrency 1: both must cost one argon2id
 * verification, so their latencies should match. Rate limits are set out of the way. No assertions on time:
 * the figures go to docs/decisions/004-identity.md.
 */
import os from 'node:os'
import type { AddressInfo } from 'node:net'
import argon2 from 'argon2'
import { parseConfig, setConfig } from '../app/lib/config.server.ts'
import { createHttpApp } from '../app/server/http.server.ts'
import { ARGON2_OPTIONS } from '../app/services/auth/password.server.ts'
import { applyMigrations } from '../db/migrator.ts'
import { closeDb, initDb, openPglite } from '../db/orm.ts'
import { benchEnv, percentile } from './support.ts'

const args = process.argv.slice(2)
const REQUESTS = Number(args[args.indexOf('--requests') + 1]) || 200
const ORIGIN = 'http://localhost:3000'
const EMAIL = 'bench@example.test'
const PASSWORD = 'bench password 123'

setConfig(
  parseConfig({
    ...benchEnv(),
    GLOSSARY_DATA_DIR: os.tmpdir(),
    GLOSSARY_RATE_LOGIN_PER_MINUTE: '100000000',
    GLOSSARY_RATE_REGISTER_PER_HOUR: '100000000',
  }),
)

async function drive(
  base: string,
  concurrency: number,
  total: number,
  body: () => { email: string; password: string },
  expected: number,
): Promise<{ perSecond: number; p50: number; p99: number }> {
  const latencies: number[] = []
  let next = 0
  const started = performance.now()
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < total) {
        next++
        const t0 = performance.now()
        const res = await fetch(`${base}/api/v1/auth/login`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', origin: ORIGIN },
          body: JSON.stringify(body()),
        })
        await res.arrayBuffer()
        latencies.push(performance.now() - t0)
        if (res.status !== expected) throw new Error(`login answered ${res.status}, expected ${expected}`)
      }
    }),
  )
  const seconds = (performance.now() - started) / 1000
  latencies.sort((a, b) => a - b)
  return { perSecond: total / seconds, p50: percentile(latencies, 50), p99: percentile(latencies, 99) }
}

const row = (cells: (string | number)[]) => console.log(cells.map((c) => String(c).padStart(12)).join(''))
const ms = (n: number) => n.toFixed(1)

async function main(): Promise<void> {
  const pglite = await openPglite()
  await initDb({ pglite })
  await applyMigrations()
  const server = createHttpApp().listen(0, '127.0.0.1')
  await new Promise<void>((resolve) => server.once('listening', resolve))
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  try {
    const setup = await fetch(`${base}/api/v1/setup`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: ORIGIN },
      body: JSON.stringify({ email: EMAIL, password: PASSWORD }),
    })
    if (setup.status !== 200) throw new Error(`setup answered ${setup.status}`)

    // One bare hash and verification, to relate the HTTP figures to argon2id's own cost.
    const hash = await argon2.hash(PASSWORD, ARGON2_OPTIONS)
    const verifyStarted = performance.now()
    for (let i = 0; i < 10; i++) await argon2.verify(hash, PASSWORD)
    const verifyMs = (performance.now() - verifyStarted) / 10

    console.log(
      `argon2id m=${ARGON2_OPTIONS.memoryCost / 1024} MiB, t=${ARGON2_OPTIONS.timeCost}, ` +
        `p=${ARGON2_OPTIONS.parallelism}; one verify alone: ${ms(verifyMs)} ms`,
    )
    console.log(
      `Node ${process.version}, ${os.cpus().length} CPU(s), libuv pool ${process.env.UV_THREADPOOL_SIZE ?? 4}, ` +
        `${REQUESTS} logins per level, embedded PGlite (in memory)\n`,
    )
    const good = () => ({ email: EMAIL, password: PASSWORD })
    await drive(base, 4, 20, good, 200) // warm-up: JIT, connection pool, the dummy hash
    row(['concurrency', 'logins/s', 'p50 ms', 'p99 ms'])
    for (const concurrency of [1, 8, 32]) {
      const r = await drive(base, concurrency, REQUESTS, good, 200)
      row([concurrency, r.perSecond.toFixed(1), ms(r.p50), ms(r.p99)])
    }

    console.log('\nfailed logins at concurrency 1 (the answer must not tell them apart, nor the time):')
    row(['case', 'logins/s', 'p50 ms', 'p99 ms'])
    const cases: [string, () => { email: string; password: string }][] = [
      ['wrong pass', () => ({ email: EMAIL, password: 'not the password' })],
      ['no account', () => ({ email: `nobody-${Math.random()}@example.test`, password: 'not the password' })],
    ]
    for (const [name, body] of cases) {
      const r = await drive(base, 1, Math.max(50, REQUESTS / 2), body, 401)
      row([name, r.perSecond.toFixed(1), ms(r.p50), ms(r.p99)])
    }
  } finally {
    server.closeAllConnections()
    await new Promise<void>((resolve) => server.close(() => resolve()))
    await closeDb()
  }
}

main().catch((error) => {
  console.error(error)
  process.exit(1)
})
