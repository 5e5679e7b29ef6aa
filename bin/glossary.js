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
  backup       write a backup of the database (and its manifest) to one file: --out <file>
  verify-backup  restore a backup into a scratch database and check it against its manifest
  restore      restore a backup into an empty data directory or database, then verify it
  version      print the release of the code and of the database

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
  version: `glossary version: print the release of this code and of its database (the release the last
\`glossary migrate\` recorded, and the migrations still pending for this code). Web and worker refuse to start
while the two differ. It never creates the embedded database.`,
  // Its subcommands and their help live with it in the build (sync/cli.ts): `glossary sync --help`.
  sync: null,
  backup: `glossary backup --out <file> [--json]: write a consistent snapshot of the whole database to <file> (refused
when it exists): a tar holding manifest.json (release, migrations, row count and content digest of every
table, the dump's size and SHA-256) and the dump (embedded: PGlite's dump of its data directory; with
DATABASE_URL: pg_dump --format=custom, which needs the PostgreSQL client programs, Debian package
postgresql-client-15, of the server's version or newer). The encryption key is never inside: the command
says where it is; keep it separately. The embedded database must not be held by a running service: stop
it first (the upgrade procedure does). --json prints the result (file, size, key location, manifest) as JSON.
Exit code 0 when written, 1 on failure (no file is left), 2 on bad usage.`,
  'verify-backup': `glossary verify-backup <file> [--json]: restore a backup into a scratch location (embedded: an
in-memory database; PostgreSQL: a scratch database glossary_verify_<random> on the server of DATABASE_URL,
always dropped afterwards; that role creates it and pgvector in it, so use a superuser's DATABASE_URL) and check it: the dump's SHA-256, its migrations
against this release's (migrations still pending for this release are reported, a backup of a newer release
is refused), the row count and digest of every table, a sample of terms with their latest revision, and every
stored secret decrypted with the current key. Nothing touches the installation's database.
Exit code 0 only when everything matches and every secret is readable, 1 otherwise (each difference on its
own line), 2 on bad usage. --json prints the report as JSON.`,
  restore: `glossary restore <file> [--json]: restore a backup into an EMPTY target only, never over live data:
embedded, GLOSSARY_DATA_DIR/db missing or empty; PostgreSQL, the DATABASE_URL database without any table in
its public schema (a superuser creates the vector and pg_trgm extensions first). Then the checks of
verify-backup run against the restored database; when one fails, the restored data is left for inspection.
The encryption key is not in the backup: set GLOSSARY_ENCRYPTION_KEY (or put the key file back) first.
Exit code 0 when restored and verified, 1 otherwise, 2 on bad usage. --json prints the report as JSON.`,
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
  if (command === 'seed-admin' && args.length > 0) {
    fail(
      'seed-admin takes no arguments; pass the password in GLOSSARY_ADMIN_PASSWORD, never on the command line.',
      2,
    )
  }
  if (!['seed-admin', 'sync', 'backup', 'verify-backup', 'restore'].includes(command) && args.length > 0)
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
    case 'version':
      console.log((await runtime.version()).join('\n'))
      return
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
    case 'backup':
    case 'verify-backup':
    case 'restore':
      process.exitCode = await runtime.backup(command, args)
      return
  }
}

// A failure the operator fixes (a server unreachable, a login refused, an extension missing) is one line; any
// other is a fault of the program, and its stack trace is what helps (runtime.operatorMessage decides which).
main().catch((error) => {
  fail(runtime?.operatorMessage(error) ?? (error?.stack || String(error)))
})
