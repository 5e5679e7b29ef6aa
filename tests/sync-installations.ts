import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll } from 'vitest'
import { closeDb, embeddedDataPath, initDb, openPglite } from '#db/orm.ts'
import { createPostgresCopy } from '#tests/setup/postgres.ts'
import { templatePath, testEngine } from '#tests/setup/test-env.ts'

/**
 * Several installations of the service in one test process (issue 30: a sync sender and its receivers), each a
 * database of its own made from the run's migrated template: on the embedded engine a PGlite data directory on
 * disk, on PostgreSQL a database copied from the template. `use(name)` makes one of them the process's database,
 * closing the one open before, so the services under test see one installation at a time, as a real process
 * does (closing also clears what the process cached from the other). Use it instead of `useTestDb()`.
 */
export function useInstallations<Name extends string>(
  names: readonly Name[],
): { use(name: Name): Promise<void>; current(): Name } {
  const made = new Map<Name, { open: () => Promise<void>; remove: () => Promise<void> }>()
  let active: Name | undefined

  async function make(name: Name) {
    if (testEngine() === 'postgres') {
      const copy = await createPostgresCopy()
      return {
        open: async () => void (await initDb({ databaseUrl: copy.url })),
        remove: copy.drop,
      }
    }
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), `glossary-${name}-`))
    // The first opening loads the template into the directory; later ones open what is there.
    let loaded = false
    return {
      open: async () => {
        if (loaded) {
          await initDb({ dataDir: dir })
        } else {
          const template = new Blob([fs.readFileSync(templatePath())])
          await initDb({ pglite: await openPglite(embeddedDataPath(dir), template) })
          loaded = true
        }
      },
      remove: async () => fs.rmSync(dir, { recursive: true, force: true }),
    }
  }

  async function use(name: Name): Promise<void> {
    if (active === name) return
    await closeDb()
    active = undefined
    let installation = made.get(name)
    if (!installation) {
      installation = await make(name)
      made.set(name, installation)
    }
    await installation.open()
    active = name
  }

  beforeAll(async () => {
    await use(names[0]!)
  })
  afterAll(async () => {
    await closeDb()
    for (const installation of made.values()) await installation.remove()
  })
  return {
    use,
    current: () => {
      if (!active) throw new Error('No installation is open.')
      return active
    },
  }
}
