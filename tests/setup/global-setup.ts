import fs from 'node:fs'
import { parseConfig, setConfig } from '#app/lib/config.server.ts'
import { applyMigrations } from '#db/migrator.ts'
import { closeDb, initDb, openPglite } from '#db/orm.ts'
import { TEMPLATE_PATH, TEST_TMP, testEnv } from './test-env.ts'

/**
 * Runs once per `vitest run`: migrates an in-memory PGlite and saves it as a template tarball. Every test file
 * then loads that template into its own in-memory database (tests/setup/db.ts), so files are isolated and no
 * file pays for the migrations.
 */
export default async function globalSetup() {
  fs.rmSync(TEST_TMP, { recursive: true, force: true })
  fs.mkdirSync(TEST_TMP, { recursive: true })
  setConfig(parseConfig(testEnv()))
  const pglite = await openPglite()
  await initDb({ pglite })
  await applyMigrations()
  const dump = await pglite.dumpDataDir('gzip')
  fs.writeFileSync(TEMPLATE_PATH, Buffer.from(await dump.arrayBuffer()))
  await closeDb()
}
