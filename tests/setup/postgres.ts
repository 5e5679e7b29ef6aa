import pg from 'pg'
import { applyMigrations } from '#db/migrator.ts'
import { closeDb, initDb, type Db } from '#db/orm.ts'

/**
 * The machine's PostgreSQL (127.0.0.1:5432, trust auth, user `postgres`; scripts/setup-test-deps.sh installs
 * pgvector into it), for the tests that run on both engines. Like the embedded engine's template tarball, one
 * migrated template database is made per `vitest run` (global-setup.ts), and each test file that asks for
 * PostgreSQL gets its own database copied from it (`CREATE DATABASE … TEMPLATE`, a file copy: no migrations).
 */
export const POSTGRES_ADMIN_URL =
  process.env.TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres'

function databaseUrl(name: string): string {
  const url = new URL(POSTGRES_ADMIN_URL)
  url.pathname = `/${name}`
  return url.toString()
}

async function admin<T>(work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: POSTGRES_ADMIN_URL })
  try {
    await client.connect()
  } catch (error) {
    throw new Error(
      `PostgreSQL is not reachable at ${POSTGRES_ADMIN_URL} (${(error as Error).message}); ` +
        'the tests that run on both engines need it (set TEST_POSTGRES_URL to use another server).',
    )
  }
  try {
    return await work(client)
  } finally {
    await client.end()
  }
}

/** The template of this run (named by global-setup.ts in the environment the workers inherit). */
function templateName(): string {
  const name = process.env.GLOSSARY_TEST_PG_TEMPLATE
  if (!name)
    throw new Error('GLOSSARY_TEST_PG_TEMPLATE is not set: run the tests through vitest (global setup).')
  return name
}

/** Global setup: a migrated template database with the extensions the schema needs; answers its name. */
export async function createPostgresTemplate(
  runId: string,
): Promise<{ name: string; drop: () => Promise<void> }> {
  const name = `glossary_tpl_${runId}`
  await admin(async (client) => {
    await client.query(`drop database if exists ${name}`)
    await client.query(`create database ${name}`)
  })
  // Extensions need a superuser (the README's production recipe says so too); the test server's user is one.
  const template = new pg.Client({ connectionString: databaseUrl(name) })
  await template.connect()
  await template.query('create extension if not exists vector; create extension if not exists pg_trgm')
  await template.end()
  await initDb({ databaseUrl: databaseUrl(name) })
  await applyMigrations()
  await closeDb()
  return {
    name,
    // Also removes databases copied from it that a crashed test file left behind.
    drop: () =>
      admin(async (client) => {
        const { rows } = await client.query<{ datname: string }>(
          `select datname from pg_database where datname = $1 or datname like $2`,
          [name, `${name}\\_%`],
        )
        for (const row of rows) await client.query(`drop database if exists ${row.datname} with (force)`)
      }),
  }
}

let databases = 0

/**
 * A new database of this process, named after the run's template so that the run's end drops it even when
 * its file crashed. `from` is the template to copy: the run's migrated one, or `template0` for an empty one.
 */
async function createDatabase(from: string): Promise<{ url: string; drop: () => Promise<void> }> {
  const name = `${templateName()}_${process.pid}_${++databases}`
  await admin((client) => client.query(`create database ${name} template ${from}`))
  return {
    url: databaseUrl(name),
    drop: () =>
      admin((client) => client.query(`drop database if exists ${name} with (force)`)).then(() => {}),
  }
}

/**
 * Opens this process's database on PostgreSQL: a fresh copy of the run's template. Answers the database and a
 * function that closes it and drops the copy.
 */
export async function openPostgresTestDb(): Promise<{ db: Db; drop: () => Promise<void> }> {
  const copy = await createDatabase(templateName())
  const db = await initDb({ databaseUrl: copy.url })
  return {
    db,
    drop: async () => {
      await closeDb()
      await copy.drop()
    },
  }
}

/** A new copy of the run's migrated template (not opened): its address, and a function that drops it. */
export function createPostgresCopy(): Promise<{ url: string; drop: () => Promise<void> }> {
  return createDatabase(templateName())
}

/**
 * A new empty PostgreSQL database (no schema, no extension), for the tests of the migrations: its address,
 * and a function that drops it (close the database first).
 */
export function createEmptyPostgresDb(): Promise<{ url: string; drop: () => Promise<void> }> {
  return createDatabase('template0')
}
