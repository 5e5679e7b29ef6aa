import fs from 'node:fs'
import path from 'node:path'
import type { TestProject } from 'vitest/node'
import { parseConfig, setConfig } from '#app/lib/config.server.ts'
import { applyMigrations } from '#db/migrator.ts'
import { closeDb, initDb, openPglite } from '#db/orm.ts'
import { createPostgresTemplate } from './postgres.ts'
import { TEST_TMP, testEngine, testEnv } from './test-env.ts'

/**
 * Runs once per `vitest run`: migrates an in-memory PGlite and saves it as a template tarball. Every test file
 * then loads that template into its own in-memory database (tests/setup/db.ts), so files are isolated and no
 * file pays for the migrations. Each run has its own folder, so two runs at once never disturb each other. It
 * also migrates a template database on the machine's PostgreSQL (tests/setup/postgres.ts), which the files that
 * run on both engines copy, and every file of a PostgreSQL run (which needs no embedded template).
 */
export default async function globalSetup(project: TestProject) {
  fs.mkdirSync(TEST_TMP, { recursive: true })
  const runDir = fs.mkdtempSync(path.join(TEST_TMP, 'run-'))
  const template = path.join(runDir, 'template.tar.gz')
  process.env.GLOSSARY_TEST_TEMPLATE = template
  setConfig(parseConfig(testEnv()))
  // The workers' environment: this one, plus what the config sets for them.
  if (testEngine({ ...process.env, ...project.config.env }) === 'pglite') {
    const pglite = await openPglite()
    await initDb({ pglite })
    await applyMigrations()
    const dump = await pglite.dumpDataDir('gzip')
    fs.writeFileSync(template, Buffer.from(await dump.arrayBuffer()))
    await closeDb()
  }
  // The same for PostgreSQL: one migrated template database per run, copied by each file that uses it.
  const postgres = await createPostgresTemplate(
    `${process.pid}_${path.basename(runDir).replace(/\W/g, '')}`.toLowerCase(),
  )
  process.env.GLOSSARY_TEST_PG_TEMPLATE = postgres.name
  return async () => {
    await postgres.drop()
    fs.rmSync(runDir, { recursive: true, force: true })
  }
}
