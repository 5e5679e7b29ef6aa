import fs from 'node:fs'
import { afterAll, beforeAll } from 'vitest'
import { closeDb, initDb, openPglite, type Db } from '#db/orm.ts'
import { templatePath } from './test-env.ts'

/** A fresh in-memory database, loaded from the migrated template. */
export async function openTestDb(): Promise<Db> {
  const template = new Blob([fs.readFileSync(templatePath())])
  const pglite = await openPglite(undefined, template)
  return initDb({ pglite })
}

/** Opens a database for this test file and closes it afterwards. */
export function useTestDb(): void {
  beforeAll(async () => {
    await openTestDb()
  })
  afterAll(async () => {
    await closeDb()
  })
}
