import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { chromium, type Browser, type Page } from 'playwright-core'

export const ROOT = path.resolve(import.meta.dirname, '../..')
const CLI = path.join(ROOT, 'bin', 'glossary.js')

import { freePort } from '#tests/private-redis.ts'

export { freePort }

export function tempDataDir(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'glossary-e2e-'))
}

/** The environment of a CLI run: only what a user would have plus the given variables. */
function cliEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: Record<string, string | undefined> = {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    LOG_LEVEL: 'warn',
  }
  return { ...env, ...extra } as NodeJS.ProcessEnv
}

/** Runs `glossary <args>` to completion. */
export function runCli(args: string[], env: Record<string, string> = {}) {
  const result = spawnSync(process.execPath, [CLI, ...args], {
    env: cliEnv(env),
    encoding: 'utf8',
    timeout: 60_000,
  })
  return { code: result.status, stdout: result.stdout, stderr: result.stderr }
}

export interface RunningService {
  url: string
  port: number
  dataDir: string
  child: ChildProcess
  output: () => string
  stop: (signal?: NodeJS.Signals) => Promise<number | null>
}

/**
 * Starts `glossary <command>` (or, with `viaNpm`, `npm start`, as a process manager would) in the background
 * and waits until /readyz answers 200.
 */
export async function startService(
  command: 'start' | 'web' = 'start',
  options: { dataDir?: string; env?: Record<string, string>; viaNpm?: boolean } = {},
): Promise<RunningService> {
  const port = await freePort()
  const dataDir = options.dataDir ?? tempDataDir()
  const [file, args] = options.viaNpm ? ['npm', ['start']] : [process.execPath, [CLI, command]]
  const child = spawn(file, args, {
    cwd: ROOT,
    env: cliEnv({
      PORT: String(port),
      HOST: '127.0.0.1',
      GLOSSARY_DATA_DIR: dataDir,
      LOG_LEVEL: 'info',
      ...options.env,
    }),
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let output = ''
  child.stdout!.on('data', (d) => (output += d))
  child.stderr!.on('data', (d) => (output += d))
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)))
  const url = `http://127.0.0.1:${port}`
  await waitUntilReady(url, child, () => output, options.viaNpm ? 'npm start' : `glossary ${command}`)
  return {
    url,
    port,
    dataDir,
    child,
    output: () => output,
    stop: async (signal = 'SIGTERM') => {
      if (child.exitCode === null) child.kill(signal)
      return exited
    },
  }
}

/** Waits until `url`/readyz answers 200; fails when the child exits first or after a minute. */
async function waitUntilReady(
  url: string,
  child: ChildProcess,
  output: () => string,
  what: string,
): Promise<void> {
  const deadline = Date.now() + 60_000
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${what} exited ${child.exitCode}:\n${output()}`)
    try {
      const res = await fetch(`${url}/readyz`)
      if (res.status === 200) return
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      child.kill('SIGKILL')
      throw new Error(`${what} did not become ready:\n${output()}`)
    }
    await new Promise((r) => setTimeout(r, 100))
  }
}

export interface BackgroundCli {
  child: ChildProcess
  /** Everything it printed so far, stdout and stderr. */
  output: () => string
  stop: (signal?: NodeJS.Signals) => Promise<number | null>
}

/**
 * Starts `glossary <command>` in the background and returns at once: for processes with no /readyz of their
 * own (a worker), which a test watches through what they print or write.
 */
export function spawnCli(command: string, env: Record<string, string> = {}): BackgroundCli {
  const child = spawn(process.execPath, [CLI, command], {
    cwd: ROOT,
    env: cliEnv({ LOG_LEVEL: 'info', ...env }),
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let output = ''
  child.stdout!.on('data', (d) => (output += d))
  child.stderr!.on('data', (d) => (output += d))
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)))
  return {
    child,
    output: () => output,
    stop: async (signal = 'SIGTERM') => {
      if (child.exitCode === null) child.kill(signal)
      return exited
    },
  }
}

/** Debian's Chromium, headless, with no network of its own (design.md §1 flags). */
export async function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
    ],
  })
}

/** Collects console errors and page errors; a test asserts the list is empty. */
export function watchConsole(page: Page): string[] {
  const errors: string[] = []
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(message.text())
  })
  page.on('pageerror', (error) => errors.push(error.message))
  return errors
}
