import { describe, expect, it } from 'vitest'
import * as searchIndexPage from '#app/routes/admin.search-index.tsx'
import { em } from '#db/orm.ts'
import { createTerm, createUser } from '#tests/factories.ts'
import { usePageServer } from '#tests/page-server.ts'
import { useTestDb } from '#tests/setup/db.ts'

useTestDb()

/** The index status page shows the pipeline's health (decision 027): workers, the oldest due row, pauses. */

const pages = usePageServer({
  'routes/admin.search-index': { path: 'admin/search-index', module: searchIndexPage },
})

const textOf = (html: string) =>
  html
    .replace(/<script[\s\S]*?<\/script>/g, '')
    .replace(/<[^>]+>/g, ' ')
    .replace(/\s+/g, ' ')

describe('/admin/search-index health', () => {
  it('says when no worker runs while rows wait, how long the oldest waited, and which provider is paused', async () => {
    const admin = await createUser({ role: 'admin' })
    const term = await createTerm()
    await em().execute(
      `update rag_index_queue set available_at = now() - interval '5 minutes' where source_id = ?`,
      [term.id],
    )
    await em().execute(
      `insert into index_provider_pauses (provider, paused_until, since, failures, reason)
       values ('embedding', now() + interval '1 minute', now(), 1, 'Embedding: provider_unavailable (HTTP 503).')`,
    )
    let page = await pages.get('/admin/search-index', admin.sessionHeaders)
    expect(page.status).toBe(200)
    expect(page.html).toContain('data-testid="index-no-worker"')
    expect(page.html).toMatch(/data-count="workers">0</)
    expect(textOf(page.html)).toMatch(/Oldest waiting row (29\d|30\d) s/)
    expect(textOf(page.html)).toContain('The embedding provider is paused until')
    expect(textOf(page.html)).toContain('Last failure: Embedding: provider_unavailable (HTTP 503).')

    await em().execute(
      `insert into worker_heartbeat (id, transport, started_at, last_seen_at) values ('w1', 'bullmq', now(), now())`,
    )
    await em().execute('delete from index_provider_pauses')
    page = await pages.get('/admin/search-index', { cookie: `${admin.sessionHeaders.cookie}; lang=ko` })
    expect(page.html).not.toContain('data-testid="index-no-worker"')
    expect(page.html).toContain('data-testid="index-behind"')
    expect(page.html).toMatch(/data-count="workers">1</)
    expect(textOf(page.html)).toMatch(/가장 오래된 행이 \d+초 기다렸습니다/)
    expect(page.html).not.toContain('data-testid="index-paused"')
  })
})
