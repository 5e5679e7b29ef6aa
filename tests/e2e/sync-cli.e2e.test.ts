import { spawn } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import zlib from 'node:zlib'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createScratchDatabase, type ScratchDatabase } from './cluster.ts'
import { ROOT, startService, tempDataDir, type RunningService } from './harness.ts'
import { SESSION_COOKIE } from './use-app.ts'

/**
 * `glossary sync` as an operator runs it (issue 30, "Command line"), between two installations that share
 * nothing but files: the sender on PostgreSQL, with `glossary start` serving it throughout (PostgreSQL lets the
 * command run beside it; its changes are made through the API), and the receiver on the embedded database in a
 * data folder of its own. Every `glossary sync` is a process of the built app, so the steps are few and each
 * checks several things.
 */

const SENDER_NAME = 'Seoul office'
let database: ScratchDatabase
let sender: RunningService
let senderEnv: Record<string, string>
let adminCookie = ''
const receiverDir = tempDataDir()
const receiverEnv = { GLOSSARY_DATA_DIR: receiverDir }
const outDir = tempDataDir()
/** The bundles the sender exported, by sequence. */
const bundles: string[] = []
/** The terms made at the sender, by name. */
const senderTerms = new Map<string, { id: string; revision: number }>()

async function senderApi(route: string, method: string, body: unknown): Promise<Record<string, unknown>> {
  const res = await fetch(`${sender.url}/api/v1${route}`, {
    method,
    headers: { 'content-type': 'application/json', origin: sender.url, cookie: adminCookie },
    body: JSON.stringify(body),
  })
  expect(res.status, `${method} ${route}: ${await res.clone().text()}`).toBeLessThan(300)
  return (await res.json()) as Record<string, unknown>
}

interface CliResult {
  code: number | null
  stdout: string
  stderr: string
}

/**
 * `glossary sync <args>` to completion, with only what a user would have in the environment plus `env`. In the
 * background (unlike the harness's `runCli`), so that steps at the two installations can run side by side.
 */
function sync(args: string[], env: Record<string, string>): Promise<CliResult> {
  const childEnv: Record<string, string | undefined> = {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    LOG_LEVEL: 'warn',
    ...env,
  }
  const child = spawn(process.execPath, [path.join(ROOT, 'bin', 'glossary.js'), 'sync', ...args], {
    env: childEnv as NodeJS.ProcessEnv,
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let stdout = ''
  let stderr = ''
  child.stdout.on('data', (d) => (stdout += d))
  child.stderr.on('data', (d) => (stderr += d))
  return new Promise((resolve) => child.once('close', (code) => resolve({ code, stdout, stderr })))
}

/** Success, and nothing on stderr: no warning or error was logged (LOG_LEVEL=warn) on the way. */
function expectClean(result: { code: number | null; stderr: string }) {
  expect(result.code, result.stderr).toBe(0)
  expect(result.stderr).toBe('')
}

/** A failure the operator reads: one line on stderr, no stack trace. */
function expectOneLine(result: { stderr: string }, pattern: RegExp) {
  expect(result.stderr).toMatch(pattern)
  expect(result.stderr.trim().split('\n')).toHaveLength(1)
  expect(result.stderr).not.toMatch(/\n\s+at /)
}

/** `glossary sync export` at the sender; answers the bundle's path (the first line it prints). */
async function exportAtSender(...args: string[]) {
  const result = await sync(['export', '--out', outDir, ...args], senderEnv)
  expectClean(result)
  const file = result.stdout.split('\n')[0]!
  expect(fs.existsSync(file), file).toBe(true)
  bundles.push(file)
  return { file, text: result.stdout }
}

async function statusJson(env: Record<string, string>) {
  const result = await sync(['status', '--json'], env)
  expectClean(result)
  return JSON.parse(result.stdout) as {
    origin: { id: string; name: string }
    lastExport: { sequence: number; kind: string } | null
    origins: { id: string; name: string; lastSequence: number }[]
  }
}

interface Report {
  missing: boolean
  bundles: {
    sequence: number
    outcome: string
    entries: { type: string; title: string; action: string }[]
    counts: Record<string, number>
  }[]
}

async function importJson(target: string, ...flags: string[]) {
  const result = await sync(['import', target, '--json', ...flags], receiverEnv)
  return { code: result.code, stderr: result.stderr, report: JSON.parse(result.stdout || 'null') as Report }
}

beforeAll(async () => {
  database = await createScratchDatabase()
  senderEnv = {
    DATABASE_URL: database.url,
    GLOSSARY_DATA_DIR: tempDataDir(),
    GLOSSARY_SYNC_NAME: SENDER_NAME,
  }
  sender = await startService('start', { dataDir: senderEnv.GLOSSARY_DATA_DIR, env: senderEnv })
  const setup = await fetch(`${sender.url}/api/v1/setup`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: sender.url },
    body: JSON.stringify({ email: 'admin@example.test', password: 'admin password 1', name: 'Ada Admin' }),
  })
  expect(setup.status).toBe(200)
  adminCookie = setup.headers
    .getSetCookie()
    .find((line) => line.startsWith(`${SESSION_COOKIE}=`))!
    .split(';')[0]!
  for (const name of ['Settlement Ledger', 'Clearing House']) {
    const term = await senderApi('/terms', 'POST', { name, definition: `${name}: defined at the sender.` })
    senderTerms.set(name, term as { id: string; revision: number })
  }
})

afterAll(async () => {
  await sender?.stop()
  await database?.drop()
})

describe('glossary sync', () => {
  it('answers --help for sync and each subcommand, and refuses an unknown option with the usage', async () => {
    const names = ['export', 'import', 'status']
    const [overview, refused, ...helps] = await Promise.all([
      sync(['--help'], {}),
      sync(['status', '--verbose'], {}),
      ...names.map((name) => sync([name, '--help'], {})),
    ])
    expect(overview!.code).toBe(0)
    expect(overview!.stdout).toMatch(/^glossary sync: [^]*export[^]*import[^]*status[^]*\/admin\/sync/)
    names.forEach((name, i) => {
      expect(helps[i]!.code, name).toBe(0)
      expect(helps[i]!.stdout).toMatch(new RegExp(`^glossary sync ${name} `))
    })
    expect(refused!.code).toBe(2)
    expect(refused!.stderr).toMatch(/^glossary sync: Unknown option '--verbose'\n\nglossary sync status /)
  })

  it('refuses a pending migration, and names the admin screen when a running service holds the data', async () => {
    expectOneLine(await sync(['status'], receiverEnv), /migration\(s\) pending.*glossary migrate/)
    // `glossary start` migrates the receiver's folder and holds it while it runs.
    const running = await startService('start', { dataDir: receiverDir })
    try {
      expectOneLine(
        await sync(['import', outDir], receiverEnv),
        /held by a running glossary service.*admin screen, \/admin\/sync/,
      )
    } finally {
      expect(await running.stop()).toBe(0)
    }
  })

  it('exports a full bundle; the preview writes nothing; --apply applies it; status names the origin', async () => {
    const full = await exportAtSender()
    expect(path.basename(full.file)).toMatch(/^seoul-office-\d{8}T\d{6}Z-000001\.glossary-sync\.json\.gz$/)
    expect(full.text).toMatch(/full bundle #1, exported /)
    expect(full.text).toMatch(/terms 2/)
    const [senderStatus, preview] = await Promise.all([
      statusJson(senderEnv),
      sync(['import', full.file], receiverEnv),
    ])
    expect(senderStatus.origin.name).toBe(SENDER_NAME)
    expect(senderStatus.lastExport).toMatchObject({ sequence: 1, kind: 'full' })

    expectClean(preview)
    expect(preview.stdout).toMatch(/full bundle #1 of Seoul office .*: preview/)
    expect(preview.stdout).toMatch(/create +term +Settlement Ledger/)
    expect(preview.stdout).toMatch(/create +term +Clearing House/)
    expect(preview.stdout).toMatch(/Preview only: nothing was written/)
    expect((await statusJson(receiverEnv)).origins).toEqual([])

    const applied = await sync(['import', full.file, '--apply'], receiverEnv)
    expectClean(applied)
    expect(applied.stdout).toMatch(/: applied/)
    const status = await sync(['status'], receiverEnv)
    expect(status.code).toBe(0)
    expect(status.stdout).toContain(`${SENDER_NAME} (origin ${senderStatus.origin.id}): bundle #1 exported`)
    expect(status.stdout).toMatch(/by glossary sync \(command line\)/)
  })

  it('carries a change in an incremental bundle; a lost incremental exits 2 until the chain is whole', async () => {
    const term = senderTerms.get('Settlement Ledger')!
    await senderApi(`/terms/${term.id}`, 'PATCH', {
      baseRevision: term.revision,
      definition: 'Where every account settles at night.',
    })
    const second = await exportAtSender('--incremental')
    expect(second.text).toMatch(/incremental bundle #2/)
    expect(second.text).toMatch(/terms 1/)
    await senderApi('/terms', 'POST', { name: 'Netting', definition: 'Offsetting what two parties owe.' })
    await exportAtSender('--incremental', '--label', 'usb stick')

    // The carrier lost #2: #3 cannot follow #1, and nothing of it is applied.
    const lost = tempDataDir()
    for (const file of [bundles[0]!, bundles[2]!]) fs.copyFileSync(file, path.join(lost, path.basename(file)))
    const refused = await importJson(lost, '--apply')
    expect(refused.code, refused.stderr).toBe(2)
    expect(refused.report.missing).toBe(true)
    expect(refused.report.bundles.find((b) => b.sequence === 3)?.outcome).toBe('missing')

    // With #2 found again the whole folder applies, in export order, each bundle with what it changed.
    const whole = await importJson(outDir, '--apply')
    expectClean(whole)
    const bySequence = (n: number) => whole.report.bundles.find((b) => b.sequence === n)
    const [two, three] = [bySequence(2), bySequence(3)]
    expect(two).toMatchObject({ sequence: 2, outcome: 'applied' })
    expect(two!.entries).toContainEqual(
      expect.objectContaining({ type: 'term', title: 'Settlement Ledger', action: 'update' }),
    )
    expect(three).toMatchObject({ sequence: 3, outcome: 'applied' })
    expect(three!.entries).toContainEqual(
      expect.objectContaining({ type: 'term', title: 'Netting', action: 'create' }),
    )
    expect((await statusJson(receiverEnv)).origins).toMatchObject([{ name: SENDER_NAME, lastSequence: 3 }])
  })

  it('refuses a tampered bundle with the reason and exit code 1', async () => {
    const lines = zlib.gunzipSync(fs.readFileSync(bundles[0]!)).toString('utf8').split('\n')
    const item = lines.findIndex((line) => line.includes('defined at the sender'))
    lines[item] = lines[item]!.replace('defined at the sender', 'defined by someone else')
    const tampered = path.join(tempDataDir(), path.basename(bundles[0]!))
    fs.writeFileSync(tampered, zlib.gzipSync(lines.join('\n')))
    const result = await sync(['import', tampered, '--apply'], receiverEnv)
    expect(result.code).toBe(1)
    expectOneLine(result, /^glossary sync: .*was changed after it was exported/)
  })
})
