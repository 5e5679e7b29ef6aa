import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { exportBundle } from '#app/services/sync/export.server.ts'
import { bundleFiles, importBundles } from '#app/services/sync/import.server.ts'
import { syncStatus } from '#app/services/sync/status.server.ts'
import { createTerm, createUser } from '#tests/factories.ts'
import { useInstallations } from '#tests/sync-installations.ts'

const installations = useInstallations(['sender', 'receiver'])
const outDir = fs.mkdtempSync(path.join(os.tmpdir(), 'glossary-sync-status-'))
afterAll(() => fs.rmSync(outDir, { recursive: true, force: true }))

/** `syncStatus`: this installation as a sender and as a receiver (`glossary sync status`, the admin history). */
describe('sync status', () => {
  it('names the origin, its last export, and per origin and bundle what was applied and by whom', async () => {
    const before = await syncStatus()
    expect(before).toEqual({
      origin: { id: expect.any(String), name: expect.any(String) },
      lastExport: null,
      origins: [],
      applied: [],
    })
    await createTerm({ name: 'Settlement Ledger' })
    const first = await exportBundle({ incremental: false, outDir, actorId: null })
    await createTerm({ name: 'Clearing House' })
    const second = await exportBundle({ incremental: true, outDir, actorId: null })
    const sender = await syncStatus()
    // The origin is made once: the same id before and after exporting.
    expect(sender.origin).toEqual(before.origin)
    expect(sender.lastExport).toEqual({
      sequence: 2,
      kind: 'incremental',
      exportedAt: second.exportedAt,
      file: path.basename(second.file),
    })

    await installations.use('receiver')
    const admin = await createUser({ role: 'admin', name: 'Ada Admin' })
    await importBundles([first.file], {
      apply: true,
      keepLocalEdits: false,
      actor: { id: admin.user.id, label: admin.user.email },
    })
    await importBundles(await bundleFiles(second.file), {
      apply: true,
      keepLocalEdits: false,
      actor: { id: null, label: 'glossary sync (command line)' },
    })
    const receiver = await syncStatus({ history: 5 })
    expect(receiver.origin.id).not.toBe(sender.origin.id)
    expect(receiver.lastExport).toBeNull()
    expect(receiver.origins).toEqual([
      {
        id: sender.origin.id,
        name: sender.origin.name,
        lastSequence: 2,
        lastExportedAt: second.exportedAt,
        lastAppliedAt: expect.any(String),
      },
    ])
    // Newest first; a user is named by their account, the command line by its label.
    expect(receiver.applied).toMatchObject([
      {
        originName: sender.origin.name,
        sequence: 2,
        kind: 'incremental',
        appliedBy: 'glossary sync (command line)',
      },
      { originName: sender.origin.name, sequence: 1, kind: 'full', appliedBy: 'Ada Admin' },
    ])
    expect(receiver.applied[0]!.file).toBe(path.basename(second.file))
    expect(receiver.applied[1]!.counts).toMatchObject({ create: 1 })
    expect((await syncStatus({ history: 1 })).applied).toHaveLength(1)
  })
})
