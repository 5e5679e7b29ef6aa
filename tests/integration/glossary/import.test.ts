import { beforeAll, describe, expect, it } from 'vitest'
import { readNdjson } from '#app/lib/ndjson.ts'
import { getImportJob, listImportJobs } from '#app/services/import/import-jobs.server.ts'
import { em } from '#db/orm.ts'
import { createApiKey, createTerm, createUser, type TestUser } from '#tests/factories.ts'
import { useApiServer, type Json } from '#tests/http.ts'
import { useTestDb } from '#tests/setup/db.ts'

useTestDb()
const server = useApiServer()
const api = server.api

async function termCount(): Promise<number> {
  const rows = await em().execute<{ n: string }[]>('select count(*) as n from terms')
  return Number(rows[0]!.n)
}

let editor: TestUser
let key: Record<string, string>

beforeAll(async () => {
  editor = await createUser({ role: 'editor' })
  const admin = await createUser({ role: 'admin' })
  key = await createApiKey(editor.user.id, ['write', 'read'])
  await api('POST', '/domains', admin.sessionHeaders, {
    key: 'platform',
    nameKo: '플랫폼',
    nameEn: 'Platform',
  })
})

describe('GET /import/template.csv', () => {
  it('publishes a template that imports cleanly', async () => {
    const res = await api('GET', '/import/template.csv', key)
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toMatch(/^text\/csv/)
    // UTF-8 with a byte order mark (fetch's text() drops it), so spreadsheet programs read Korean correctly.
    const bytes = new Uint8Array(
      await (await fetch(`${server.url()}/api/v1/import/template.csv`, { headers: key })).arrayBuffer(),
    )
    expect([...bytes.slice(0, 3)]).toEqual([0xef, 0xbb, 0xbf])
    expect(res.text.split(/\r\n/)[0]).toBe(
      'slug,name,fullName,nameEn,nameKo,preferred,preferredLang,admitted,admittedLang,deprecated,deprecatedLang,domains,categories,tags,status,definition,body,note',
    )
    // The template's own example rows pass a dry run: they name only domains this install has ("platform").
    const dry = await api('POST', '/import', key, { format: 'csv', csv: res.text, dryRun: true })
    expect(dry.status).toBe(200)
    expect(dry.json.rows.map((r: Json) => r.action)).toEqual(['created', 'created'])
  })
})

describe('POST /import', () => {
  it('a dry run reports created / updated / unchanged / error per row and writes nothing', async () => {
    const existing = await createTerm({ name: 'Existing', slug: 'existing', definition: 'Same.' })
    const same = await createTerm({ name: 'Same One', slug: 'same-one', definition: 'Same.' })
    const before = await termCount()
    const csv = [
      'slug,name,definition,admitted,deprecated,domains,tags',
      'existing,Existing,Changed definition.,EX,,platform,a;b',
      'same-one,Same One,Same.,,,,',
      ',Brand New,New one.,,BN,platform,',
      ',Needs Work,,,,,',
      'bad slug!,Bad,,,,,',
      ',Unknown Domain,Def.,,,nope,',
    ].join('\n')
    const res = await api('POST', '/import', key, { format: 'csv', csv, dryRun: true })
    expect(res.status).toBe(200)
    expect(res.json).toMatchObject({
      dryRun: true,
      total: 6,
      created: 2,
      updated: 1,
      unchanged: 1,
      errors: 2,
    })
    // Present-but-empty cells clear a field: row 2 matches the stored content exactly, so it is unchanged.
    expect(res.json.rows.map((r: Json) => [r.row, r.action, r.slug])).toEqual([
      [1, 'updated', 'existing'],
      [2, 'unchanged', 'same-one'],
      [3, 'created', 'brand-new'],
      [4, 'created', 'needs-work'],
      [5, 'error', 'bad slug!'],
      [6, 'error', 'unknown-domain'],
    ])
    expect(res.json.rows[0].termId).toBe(existing.id)
    expect(res.json.rows[1].termId).toBe(same.id)
    expect(res.json.rows[4].errors[0].path).toBe('slug')
    expect(await termCount()).toBe(before)
    expect((await api('GET', `/terms/existing`, key)).json.revision).toBe(1)
  })

  it('a real run with one bad row applies nothing', async () => {
    const before = await termCount()
    const queued = await em().execute('select count(*) as n from rag_index_queue')
    const res = await api('POST', '/import', key, {
      format: 'json',
      wait: true,
      rows: [
        { name: 'Good One', definition: 'Fine.' },
        { name: 'Good Two', notations: [{ text: 'G2', kind: 'admitted' }] },
        { name: 'Broken', domains: ['missing-domain'] },
      ],
    })
    expect(res.status).toBe(200)
    expect(res.json).toMatchObject({ status: 'failed', created: 2, errors: 1, total: 3 })
    expect(res.json.rows[2]).toMatchObject({ row: 3, action: 'error' })
    expect(await termCount()).toBe(before)
    expect(await em().execute('select count(*) as n from rag_index_queue')).toEqual(queued)
  })

  it('a real run is a job: 202, then progress and the report at GET /import/{jobId}', async () => {
    const rows = Array.from({ length: 1200 }, (_, i) => ({
      name: `Bulk Term ${i}`,
      definition: i % 2 ? `Uses the SLA and the SLA again ${i}.` : '',
      notations: [{ text: `BT${i}`, kind: 'admitted' }],
      domains: i % 3 ? [] : ['platform'],
    }))
    const res = await api('POST', '/import', editor.sessionHeaders, { format: 'json', rows })
    expect(res.status).toBe(202)
    expect(res.json).toMatchObject({ status: 'running', total: 1200 })
    expect(res.headers.get('location')).toBe(`/api/v1/import/${res.json.id}`)
    let job = res.json
    while (job.status === 'running') {
      await new Promise((resolve) => setTimeout(resolve, 50))
      job = (await api('GET', `/import/${res.json.id}`, editor.sessionHeaders)).json
      expect(job.processed).toBeLessThanOrEqual(1200)
    }
    expect(job).toMatchObject({ status: 'succeeded', created: 1200, errors: 0, processed: 1200 })
    expect(job.rows).toHaveLength(1200)
    const t0 = (await api('GET', '/terms/bulk-term-0', key)).json
    expect(t0).toMatchObject({ status: 'needs_completion', domains: ['platform'], revision: 1 })
    const t1 = (await api('GET', '/terms/bulk-term-1', key)).json
    expect(t1.status).toBe('active')
    const queue = await em().execute<{ n: string }[]>(
      `select count(*) as n from rag_index_queue q join terms t on t.id = q.source_id where t.name like 'Bulk Term %'`,
    )
    expect(Number(queue[0]!.n)).toBe(1200)
    // Re-importing the same rows changes nothing.
    const again = await api('POST', '/import', key, { format: 'json', rows, dryRun: true })
    expect(again.json).toMatchObject({ unchanged: 1200, created: 0, updated: 0 })
    // Terms mentioned in imported definitions become candidates (source import).
    const candidates = await api('GET', '/candidates', key)
    const sla = candidates.json.items.find((c: Json) => c.text === 'SLA')
    expect(sla.sightings[0].source).toBe('import')
  })

  it('streams the job as NDJSON while its one transaction is still open (Accept: application/x-ndjson)', async () => {
    const before = await termCount()
    const rows = Array.from({ length: 1600 }, (_, i) => ({
      name: `Streamed Term ${i}`,
      definition: `S${i}.`,
    }))
    const res = await fetch(`${server.url()}/api/v1/import`, {
      method: 'POST',
      headers: { ...key, 'content-type': 'application/json', accept: 'application/x-ndjson' },
      body: JSON.stringify({ format: 'json', rows }),
    })
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toMatch(/^application\/x-ndjson/)
    const lines: Json[] = []
    let runningWhenMidwayArrived: string | undefined
    for await (const job of readNdjson<Json>(res.body!)) {
      lines.push(job)
      if (runningWhenMidwayArrived === undefined && job.processed > 0 && job.processed < 1600) {
        // Read in-process, not from the database: the job must still be running when its line arrives
        // (a response buffered until the end would deliver this line after the commit).
        runningWhenMidwayArrived = (await getImportJob({ jobId: job.id })).status
      }
    }
    expect(runningWhenMidwayArrived).toBe('running')
    const processed = lines.map((l) => l.processed)
    expect(processed).toEqual([...processed].sort((a, b) => a - b))
    expect(lines.slice(0, -1).every((l) => l.status === 'running' && !l.rows)).toBe(true)
    const last = lines.at(-1)
    expect(last).toMatchObject({ status: 'succeeded', processed: 1600, created: 1600 })
    expect(last.rows).toHaveLength(1600)
    expect(await termCount()).toBe(before + 1600)
    // The finished job streams as its one final line; an unknown job is a 404 before any stream starts.
    const again = await fetch(`${server.url()}/api/v1/import/${last.id}`, {
      headers: { ...key, accept: 'application/x-ndjson' },
    })
    const againLines = (await again.text()).trim().split('\n')
    expect(againLines).toHaveLength(1)
    expect(JSON.parse(againLines[0]!)).toMatchObject({ id: last.id, status: 'succeeded' })
    const unknown = await fetch(`${server.url()}/api/v1/import/${crypto.randomUUID()}`, {
      headers: { ...key, accept: 'application/x-ndjson' },
    })
    expect(unknown.status).toBe(404)
    expect(await unknown.json()).toMatchObject({ error: { code: 'not_found' } })
  })

  it('a streamed run with a bad row ends with the failed job and applies nothing', async () => {
    const before = await termCount()
    const res = await fetch(`${server.url()}/api/v1/import`, {
      method: 'POST',
      headers: { ...key, 'content-type': 'application/json', accept: 'application/x-ndjson' },
      body: JSON.stringify({
        format: 'json',
        rows: [{ name: 'Fine Streamed' }, { name: 'Bad Streamed', status: 'merged' }],
      }),
    })
    const lines = (await res.text())
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l))
    expect(lines.at(-1)).toMatchObject({ status: 'failed', errors: 1, created: 1 })
    expect(lines.at(-1).rows[1]).toMatchObject({ row: 2, action: 'error' })
    expect(await termCount()).toBe(before)
  })

  it('reports a job whose process died (a running row nobody holds) as failed, without writing', async () => {
    const insert = (id: string, age: string) =>
      em().execute(
        `insert into import_jobs (id, status, format, total, processed, created_by_id, created_at)
         values (?, 'running', 'json', 10, 3, ?, now() - ?::interval)`,
        [id, editor.user.id, age],
      )
    const stale = crypto.randomUUID()
    const fresh = crypto.randomUUID()
    await insert(stale, '5 minutes')
    await insert(fresh, '5 seconds')
    const job = (await api('GET', `/import/${stale}`, editor.sessionHeaders)).json
    expect(job).toMatchObject({ status: 'failed', processed: 3, finishedAt: null })
    expect(job.error).toMatch(/stopped before it finished.*nothing was imported/)
    // Just started elsewhere (its transaction may not have begun): still running.
    expect((await api('GET', `/import/${fresh}`, editor.sessionHeaders)).json.status).toBe('running')
    const rows = await em().execute<{ status: string }[]>('select status from import_jobs where id = ?', [
      stale,
    ])
    expect(rows[0]!.status).toBe('running')
  })

  it('streams a job that another process runs from its row until the row says it finished', async () => {
    const id = crypto.randomUUID()
    await em().execute(
      `insert into import_jobs (id, status, format, total, processed, created_by_id)
       values (?, 'running', 'json', 4, 1, ?)`,
      [id, editor.user.id],
    )
    const res = await fetch(`${server.url()}/api/v1/import/${id}`, {
      headers: { ...key, accept: 'application/x-ndjson' },
    })
    const lines: Json[] = []
    for await (const job of readNdjson<Json>(res.body!)) {
      lines.push(job)
      // "The other process" advances, then finishes, each time the stream has told the previous state.
      if (job.processed === 1) await em().execute('update import_jobs set processed = 3 where id = ?', [id])
      if (job.processed === 3) {
        await em().execute(
          `update import_jobs set status = 'succeeded', processed = 4, created = 4, report = '[]'::jsonb,
              finished_at = now() where id = ?`,
          [id],
        )
      }
    }
    expect(lines.map((l) => `${l.status}:${l.processed}`)).toEqual(['running:1', 'running:3', 'succeeded:4'])
  })

  it('lists recent jobs newest first, without reports, with who started them', async () => {
    const done = await api('POST', '/import', key, {
      format: 'json',
      wait: true,
      rows: [{ name: 'Listed One' }],
    })
    const recent = await listImportJobs({ limit: 50 })
    expect(recent[0]).toMatchObject({
      id: done.json.id,
      status: 'succeeded',
      createdByName: editor.user.name,
    })
    expect(recent.every((j) => !('rows' in j))).toBe(true)
    const times = recent.map((j) => j.createdAt)
    expect(times).toEqual([...times].sort().reverse())
    // The abandoned job of the test above is listed as failed too.
    expect(
      recent.some((j) => j.status === 'failed' && /stopped before it finished/.test(j.error ?? '')),
    ).toBe(true)
    expect(await listImportJobs({ limit: 2 })).toHaveLength(2)
  })

  it('refuses unreadable CSV and unknown columns with 400', async () => {
    expect((await api('POST', '/import', key, { format: 'csv', csv: 'name,colour\nA,red' })).status).toBe(400)
    expect((await api('POST', '/import', key, { format: 'csv', csv: 'name\n"unterminated' })).status).toBe(
      400,
    )
    expect((await api('POST', '/import', key, { format: 'json', csv: 'x' })).status).toBe(400)
  })
})
