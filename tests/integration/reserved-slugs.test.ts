import { beforeAll, describe, expect, it } from 'vitest'
import { call } from '#tests/integration/content/helpers.ts'
import { createUser, type TestUser } from '#tests/factories.ts'
import { useTestDb } from '#tests/setup/db.ts'

useTestDb()
let editor: TestUser

beforeAll(async () => {
  editor = await createUser({ role: 'editor' })
})

// `/terms/new` and `/wiki/new` are the create pages: no term or page may take the address `new`.
describe('reserved slugs', () => {
  it('a term named "New" gets another slug, and "new" cannot be chosen', async () => {
    const created = await call('/terms', {
      body: { name: 'New', definition: 'x' },
      headers: editor.sessionHeaders,
    })
    expect(created.status).toBe(201)
    expect((await created.json()).slug).toBe('new-2')
    const refused = await call('/terms', {
      body: { name: 'Other', slug: 'new' },
      headers: editor.sessionHeaders,
    })
    expect(refused.status).toBe(400)
  })

  it('a wiki page titled "New" gets another slug, and "new" cannot be chosen', async () => {
    const created = await call('/wiki', {
      body: { title: 'New', content: 'x' },
      headers: editor.sessionHeaders,
    })
    expect(created.status).toBe(201)
    // `new-2` is the term above: wiki slugs avoid term slugs too.
    expect((await created.json()).slug).toBe('new-3')
    const refused = await call('/wiki', {
      body: { title: 'Other', content: 'x', slug: 'new' },
      headers: editor.sessionHeaders,
    })
    expect(refused.status).toBe(400)
  })
})
