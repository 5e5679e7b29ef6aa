import crypto from 'node:crypto'
import { once } from 'node:events'
import fs from 'node:fs'
import net from 'node:net'
import path from 'node:path'
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { POSTGRES_ADMIN_URL } from '../setup/postgres.ts'
import {
  ROOT,
  freePort,
  runCli,
  spawnCli,
  startService,
  tempDataDir,
  type BackgroundCli,
  type RunningService,
} from './harness.ts'
import { startPrivateRedis } from '#tests/private-redis.ts'

/**
 * What an operator sees when the deployment around the service is wrong (issue 28): one line on stderr, no
 * stack trace, exit code 1. And the README's production recipe, run as written against the machine's
 * PostgreSQL and a private Redis.
 */

/** A failure said in one line: no stack frame, nothing but the message. */
function expectOneLine(result: { code: number | null; stderr: string }, pattern: RegExp): void {
  expect(result.code).toBe(1)
  expect(result.stderr).toMatch(pattern)
  expect(result.stderr).not.toMatch(/\n\s+at /)
  expect(result.stderr.trim().split('\n')).toHaveLength(1)
}

function adminUrl(database: string): string {
  const url = new URL(POSTGRES_ADMIN_URL)
  url.pathname = `/${database}`
  return url.toString()
}

/** Runs statements as the superuser of the machine's PostgreSQL, in `database`. */
async function asSuperuser(database: string, statements: string[]): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl(database) })
  await client.connect()
  try {
    for (const statement of statements) await client.query(statement)
  } finally {
    await client.end()
  }
}

/** A throwaway ordinary role (no superuser, no CREATEDB) and the database it owns; `drop` removes both. */
function throwawayOwner(): {
  name: string
  password: string
  url: (database?: string) => string
  drop: () => Promise<void>
} {
  const name = `ops_e2e_${process.pid}_${crypto.randomBytes(3).toString('hex')}`
  const password = crypto.randomBytes(12).toString('hex')
  const admin = new URL(POSTGRES_ADMIN_URL)
  return {
    name,
    password,
    url: (database = name) => `postgres://${name}:${password}@${admin.host}/${database}`,
    drop: () =>
      asSuperuser('postgres', [
        `drop database if exists ${name} with (force)`,
        `drop role if exists ${name}`,
      ]),
  }
}

const PRODUCTION = {
  NODE_ENV: 'production',
  GLOSSARY_ALLOWED_ORIGINS: 'https://glossary.example.com',
  GLOSSARY_ENCRYPTION_KEY: crypto.randomBytes(32).toString('hex'),
}

describe('migrate as an ordinary owner of a database without the extensions', () => {
  const owner = throwawayOwner()

  beforeAll(async () => {
    await asSuperuser('postgres', [
      `create role ${owner.name} login password '${owner.password}'`,
      `create database ${owner.name} owner ${owner.name}`,
    ])
  })
  afterAll(() => owner.drop())

  it('says in one line what a superuser must run; once run, migrate succeeds', async () => {
    const env = { ...PRODUCTION, DATABASE_URL: owner.url(), GLOSSARY_DATA_DIR: tempDataDir() }
    const refused = runCli(['migrate'], env)
    expectOneLine(refused, /superuser must run/)
    expect(refused.stderr).toContain(`database "${owner.name}" lacks the extension "vector"`)
    expect(refused.stderr).toContain(
      'create extension if not exists vector; create extension if not exists pg_trgm;',
    )

    // The statements as the message gives them, run by a superuser in that database.
    const statements = refused.stderr.match(/create extension if not exists \w+;/g)!
    await asSuperuser(owner.name, statements)
    const migrated = runCli(['migrate'], env)
    expect(migrated.stderr).toBe('')
    expect(migrated.code).toBe(0)
    expect(migrated.stdout).toMatch(/^applied: Migration/)
  })

  it('names a database that does not exist, which the role may not create', () => {
    const result = runCli(['migrate'], {
      DATABASE_URL: owner.url(`${owner.name}_missing`),
      GLOSSARY_DATA_DIR: tempDataDir(),
    })
    expectOneLine(result, new RegExp(`no database "${owner.name}_missing".*create database`))
  })
})

describe('an unreachable database stops every command that needs it', () => {
  let closedPort: number
  beforeAll(async () => {
    closedPort = await freePort() // free a moment ago: nothing listens there
  })

  it.each(['migrate', 'web', 'worker', 'start', 'seed-admin'])('%s: connection refused', (command) => {
    const result = runCli([command], {
      DATABASE_URL: `postgres://glossary:secret-pass@127.0.0.1:${closedPort}/glossary`,
      GLOSSARY_DATA_DIR: tempDataDir(),
      GLOSSARY_ADMIN_EMAIL: 'root@example.test',
      GLOSSARY_ADMIN_PASSWORD: 'a-long-password',
    })
    expectOneLine(
      result,
      new RegExp(`Cannot reach PostgreSQL at 127\\.0\\.0\\.1:${closedPort} \\(DATABASE_URL\\)`),
    )
    expect(result.stderr).not.toContain('secret-pass')
  })

  it('a login the server refuses', () => {
    // The machine's server trusts every known role, so an unknown role stands for a refused login.
    const admin = new URL(POSTGRES_ADMIN_URL)
    const result = runCli(['migrate'], {
      DATABASE_URL: `postgres://no_such_role_e2e:secret-pass@${admin.host}/postgres`,
      GLOSSARY_DATA_DIR: tempDataDir(),
    })
    expectOneLine(result, /refused the login of role "no_such_role_e2e" \(DATABASE_URL\)/)
    expect(result.stderr).not.toContain('secret-pass')
  })
})

/** An embedded database migrated once, for the tests where something else is wrong. */
const migratedDataDir = tempDataDir()
beforeAll(() => {
  expect(runCli(['migrate'], { GLOSSARY_DATA_DIR: migratedDataDir }).code).toBe(0)
})

describe('an unreachable Redis stops web, worker and start', () => {
  let redisUrl: string
  beforeAll(async () => {
    redisUrl = `redis://127.0.0.1:${await freePort()}`
  })

  it.each(['web', 'worker', 'start'])('%s', (command) => {
    const result = runCli([command], { GLOSSARY_DATA_DIR: migratedDataDir, REDIS_URL: redisUrl })
    expectOneLine(
      result,
      /Cannot reach Redis at redis:\/\/127\.0\.0\.1:\d+ \(REDIS_URL\): connection refused/,
    )
  })
})

describe('the web says where it listens', () => {
  it('logs the host and port it bound and the URL to open', async () => {
    const service = await startService('web', { dataDir: migratedDataDir, env: { HOST: '127.0.0.1' } })
    try {
      expect(service.output()).toContain(
        `web listening on 127.0.0.1:${service.port}: open http://127.0.0.1:${service.port}`,
      )
    } finally {
      await service.stop()
    }
  })

  it('a port in use is one line', async () => {
    const port = await freePort()
    const taken = net.createServer().listen(port, '127.0.0.1')
    await once(taken, 'listening')
    try {
      const result = runCli(['web'], {
        HOST: '127.0.0.1',
        PORT: String(port),
        GLOSSARY_DATA_DIR: migratedDataDir,
      })
      expectOneLine(result, new RegExp(`Cannot listen on 127\\.0\\.0\\.1:${port}: the port is in use`))
    } finally {
      taken.close()
    }
  })
})

/** The README's "Production: PostgreSQL + Redis" section: its superuser SQL and its shell lines. */
function productionRecipe(): { sql: string[]; shell: string[] } {
  const readme = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8')
  const section = readme.split('\n## Production: PostgreSQL + Redis\n')[1]!.split('\n## ')[0]!
  const block = (language: string) => {
    const match = new RegExp('```' + language + '\\n([\\s\\S]*?)```').exec(section)
    expect(match, `a ${language} block in the production section`).not.toBeNull()
    return match![1]!
      .split('\n')
      .map((line) => line.replace(/\s+#.*$/, '').trim())
      .filter(Boolean)
  }
  return { sql: block('sql'), shell: block('sh') }
}

describe('the README production recipe, as written', () => {
  const owner = throwawayOwner()
  const running: (RunningService | BackgroundCli)[] = []
  let redis: { url: string; stop: () => Promise<void> } | undefined

  afterAll(async () => {
    for (const started of running.reverse()) await started.stop()
    await redis?.stop()
    await owner.drop()
  })

  it('a superuser prepares the database; the owner migrates and runs two webs and a worker', async () => {
    const recipe = productionRecipe()
    // The README's names stand for this run's throwaway role, database and password.
    const ours = (text: string) =>
      text.replace(/\bglossary\b(?!\.)/g, owner.name).replace(/change-me/g, owner.password)

    // 1. As the superuser, statement by statement; `\connect` moves to the new database as psql would.
    let database = 'postgres'
    let batch: string[] = []
    for (const line of [...recipe.sql.map(ours), '\\connect end']) {
      const connect = /^\\c(?:onnect)? (\S+)$/.exec(line)
      if (!connect) {
        batch.push(line)
        continue
      }
      await asSuperuser(database, batch)
      database = connect[1]!
      batch = []
    }
    expect(batch).toEqual([])

    // 2. The shell lines: the exported environment, then the commands in order.
    redis = await startPrivateRedis()
    const env: Record<string, string> = { GLOSSARY_DATA_DIR: tempDataDir() }
    const commands: { command: string; background: boolean; vars: Record<string, string> }[] = []
    for (const line of recipe.shell) {
      if (line.startsWith('export ')) {
        for (const pair of line.slice('export '.length).split(/\s+/)) {
          const [name, value] = pair.split(/=(.*)/) as [string, string]
          env[name] = ours(value)
        }
        continue
      }
      const run = /^((?:\w+=\S+\s+)*)node bin\/glossary\.js (\S+)\s*(&)?$/.exec(line)
      if (run) {
        const vars = Object.fromEntries(
          run[1]!
            .trim()
            .split(/\s+/)
            .filter(Boolean)
            .map((pair) => pair.split('=') as [string, string]),
        )
        commands.push({ command: run[2]!, background: Boolean(run[3]), vars })
        continue
      }
      // Installing and building is what this suite runs against already (build/).
      expect(line).toBe('npm ci && npm run build')
    }
    expect(Object.keys(env).sort()).toEqual(
      [
        'DATABASE_URL',
        'GLOSSARY_ALLOWED_ORIGINS',
        'GLOSSARY_DATA_DIR',
        'GLOSSARY_ENCRYPTION_KEY',
        'NODE_ENV',
        'REDIS_URL',
      ].sort(),
    )
    expect(env.DATABASE_URL).toBe(owner.url())
    // The placeholders a reader fills in: a real key, and this run's private Redis.
    env.GLOSSARY_ENCRYPTION_KEY = PRODUCTION.GLOSSARY_ENCRYPTION_KEY
    env.REDIS_URL = redis.url
    expect(commands.map((c) => c.command)).toEqual(['migrate', 'web', 'web', 'worker'])

    const webs: RunningService[] = []
    let worker: BackgroundCli | undefined
    for (const { command, background, vars } of commands) {
      if (!background) {
        const result = runCli([command], { ...env, ...vars })
        expect(result.stderr).toBe('')
        expect(result.code).toBe(0)
        continue
      }
      if (command === 'web') {
        // Each web on a PORT of its own, as the README's are; a free one here, since 3000 may be taken.
        expect(vars.PORT).toMatch(/^\d+$/)
        const web = await startService('web', { env })
        running.push(web)
        webs.push(web)
      } else {
        worker = spawnCli(command, env)
        running.push(worker)
      }
    }
    expect(new Set(commands.filter((c) => c.command === 'web').map((c) => c.vars.PORT)).size).toBe(2)

    // 3. Every web is ready, and sees the worker's heartbeat.
    for (const web of webs) {
      expect(web.output()).toMatch(new RegExp(`web listening on 127\\.0\\.0\\.1:${web.port}: open `))
      let report: { checks: { queue: string; workers: string }; index?: { workers: { transport: string }[] } }
      for (;;) {
        const res = await fetch(`${web.url}/readyz`)
        expect(res.status).toBe(200)
        report = await res.json()
        if (report.index?.workers.length) break
        expect(worker!.child.exitCode, worker!.output()).toBeNull()
        await new Promise((r) => setTimeout(r, 200))
      }
      expect(report.checks.queue).toBe('ok')
      expect(report.checks.workers).toBe('1 live')
      expect(report.index!.workers[0]!.transport).toBe('bullmq')
    }
  })
})
