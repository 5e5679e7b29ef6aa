#!/usr/bin/env node
// The `glossary` command. It only parses argv: every command runs inside the server build, so the CLI, the web
// server and the worker share one copy of the application (and one database handle) in a process.
import fs from 'node:fs'
import path from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
const SERVER_BUILD = path.join(ROOT, 'build', 'server', 'index.js')
const CLIENT_DIR = path.join(ROOT, 'build', 'client')
const { version } = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8'))

const HELP = {
  main: `glossary ${version}: the terminology glossary service

Usage: glossary <command> [--help]

Commands:
  start        migrate, then run web + worker in one process (the embedded default)
  migrate      apply pending database migrations and exit (non-zero on failure)
  web          run the web server (refuses to start while a migration is pending)
  worker       run the worker: the index pipeline, the hourly cleanup, and with REDIS_URL the queued imports
  seed-admin   create an administrator from GLOSSARY_ADMIN_EMAIL / GLOSSARY_ADMIN_PASSWORD
  sync         offline sync bundles: export, import (preview or --apply), status
  version      print the release

Configuration comes from environment variables only (see README.md).`,
  start: `glossary start: apply migrations, then serve the web app and run the worker in this process.
With nothing configured it uses the embedded database in ./data and listens on PORT (3000).`,
  migrate: `glossary migrate: apply every pending migration in one transaction and exit.
Exit code 0 when the schema is up to date, 1 when a migration failed (the schema is left as it was).`,
  web: `glossary web: serve the UI, /api/v1, /healthz and /readyz on HOST:PORT. Needs a migrated database.`,
  worker: `glossary worker: run the worker process. Needs a migrated database.
It registers a heartbeat (seen by /readyz and operators), runs the index pipeline (chunk, embed, upsert,
rerank check of the rag_index_queue rows) and the hourly cleanup (expired sessions and rate-limit buckets,
old AI run records and audit rows, unreferenced attachments, stale index rows). With REDIS_URL it runs the jobs queued in BullMQ (imports and the index
stages) and relays queued index rows to them: a deployment with REDIS_URL needs at least one worker (or
\`glossary start\`). Without it the worker claims index rows from the database itself, and an import runs in
the process that submits it. Nothing calls an AI provider until an administrator configures one.`,
  'seed-admin': `glossary seed-admin: create an administrator account.
Reads GLOSSARY_ADMIN_EMAIL, GLOSSARY_ADMIN_PASSWORD (and optionally GLOSSARY_ADMIN_NAME) from the environment.
A password on the command line is refused: it would be visible in the process list and shell history.`,
  version: `glossary version: print the release of this installation.`,
  // Its subcommands and their help live with it in the build (sync/cli.ts): `glossary sync --help`.
  sync: null,
}

function fail(message, code = 1) {
  process.stderr.write(`glossary: ${message}\n`)
  process.exit(code)
}

async function loadBuild() {
  if (!fs.existsSync(SERVER_BUILD)) {
    fail('the application is not built yet: run `npm run build` first (README: the run command does it).')
  }
  return import(pathToFileURL(SERVER_BUILD).href)
}

/** The server build's entry points, once loaded (they also say which failures are the operator's to fix). */
let runtime

async function main() {
  const [command, ...args] = process.argv.slice(2)
  if (!command || command === '--help' || command === '-h' || command === 'help') {
    console.log(HELP.main)
    return
  }
  if (!(command in HELP)) fail(`unknown command "${command}"\n\n${HELP.main}`, 2)
  if (HELP[command] && (args.includes('--help') || args.includes('-h'))) {
    console.log(HELP[command])
    return
  }
  if (command === 'version') {
    console.log(version)
    return
  }
  if (command === 'seed-admin' && args.length > 0) {
    fail(
      'seed-admin takes no arguments; pass the password in GLOSSARY_ADMIN_PASSWORD, never on the command line.',
      2,
    )
  }
  if (command !== 'seed-admin' && command !== 'sync' && args.length > 0)
    fail(`"${command}" takes no arguments (got: ${args.join(' ')})`, 2)

  const build = await loadBuild()
  runtime = build.entry.module.runtime
  try {
    runtime.loadConfig()
  } catch (error) {
    fail(error.message)
  }
  const web = { build, clientDir: CLIENT_DIR }
  switch (command) {
    case 'migrate': {
      const applied = await runtime.migrate()
      console.log(applied.length ? `applied: ${applied.join(', ')}` : 'the schema is up to date')
      return
    }
    case 'web':
      return runtime.web(web)
    case 'worker':
      return runtime.worker()
    case 'start':
      return runtime.start(web)
    case 'seed-admin': {
      const result = await runtime.seedAdmin()
      console.log(result)
      return
    }
    case 'sync':
      // Set, not process.exit(): stdout (a JSON report can be long) is written out before the process ends.
      process.exitCode = await runtime.sync(args)
      return
  }
}

// A failure the operator fixes (a server unreachable, a login refused, an extension missing) is one line; any
// other is a fault of the program, and its stack trace is what helps (runtime.operatorMessage decides which).
main().catch((error) => {
  fail(runtime?.operatorMessage(error) ?? (error?.stack || String(error)))
})
