import fs from 'node:fs'
import { afterAll, beforeAll } from 'vitest'
import { closeDb, initDb, openPglite, type Db } from '#db/orm.ts'
import { openPostgresTestDb } from './postgres.ts'
import { templatePath, testEngine, type TestEngine } from './test-env.ts'

export { testEngine, type TestEngine }

/** Drops this process's last PostgreSQL copy; set while one exists. */
let dropCopy: (() => Promise<void>) | undefined

async function dropLastCopy(): Promise<void> {
  const drop = dropCopy
  dropCopy = undefined
  await drop?.()
}

/**
 * A fresh database loaded from the run's migrated template: an in-memory PGlite, or a PostgreSQL database
 * copied from the template. A copy left by a file that closed with `closeDb()` is dropped here (its connections
 * are gone by then), the rest when the run ends (global-setup.ts).
 */
export async function openTestDb(engine: TestEngine = testEngine()): Promise<Db> {
  await dropLastCopy()
  if (engine === 'postgres') {
    const { db, drop } = await openPostgresTestDb()
    dropCopy = drop
    return db
  }
  const template = new Blob([fs.readFileSync(templatePath())])
  const pglite = await openPglite(undefined, template)
  return initDb({ pglite })
}

/** Closes the database `openTestDb` opened, and drops it when it is a PostgreSQL copy. */
export async function closeTestDb(): Promise<void> {
  await closeDb()
  await dropLastCopy()
}

/** Opens a database for this test file and closes it afterwards. */
export function useTestDb(): void {
  beforeAll(async () => {
    await openTestDb()
  })
  afterAll(async () => {
    await closeTestDb()
  })
}
