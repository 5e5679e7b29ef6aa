import { describe, expect, it } from 'vitest'
import { em } from '#db/orm.ts'
import { createTerm, createUser } from '#tests/factories.ts'
import { useInstallations } from '#tests/sync-installations.ts'

const installations = useInstallations(['sender', 'receiver'])

/** The harness of the sync tests: two databases, one open at a time, each keeping its own content. */
describe('two installations in one process', () => {
  it('keeps each one’s content apart and across switches', async () => {
    await createUser({ role: 'admin' })
    await createTerm({ name: 'Only at the sender', definition: 'Made at the sender.' })
    await installations.use('receiver')
    const count = async () =>
      Number((await em().execute<{ n: string }[]>('select count(*) as n from terms'))[0]!.n)
    expect(await count()).toBe(0)
    await installations.use('sender')
    expect(await count()).toBe(1)
    expect(installations.current()).toBe('sender')
  })
})
