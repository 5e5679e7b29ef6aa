/**
 * Relations and wiki list benchmark: `npx tsx bench/content.bench.ts [--runs N]`
 *
 * Builds an in-memory database (embedded PGlite, all migrations) with 2,000 terms (10% of them edited once,
 * so some relations are stale), 10,000 relations (proposed / approved / rejected, six types) and 2,000 wiki
 * pages of ~1.5 KB Markdown each (published / draft / archived, 1–3 linked terms, domains), all bulk
 * inserted with seeded random data. Then it serves the real API (`createHttpApp()`) on 127.0.0.1 and times
 * N sequential requests per scenario with an editor's session cookie, printing p50 / p95 / max in ms.
 * No assertions: the figures go to the report and docs/decisions/008-relations.md / 009-wiki-and-meetings.md.
 */
import crypto from 'node:crypto'
import type { AddressInfo } from 'node:net'
import { parseConfig, setConfig } from '../app/lib/config.server.ts'
import { benchEnv, percentile, prng } from './support.ts'

setConfig(parseConfig(benchEnv({ GLOSSARY_DATA_DIR: '/tmp/glossary-bench' })))

const { createHttpApp } = await import('../app/server/http.server.ts')
const { applyMigrations } = await import('../db/migrator.ts')
const { closeDb, em, initDb, openPglite } = await import('../db/orm.ts')
const { createUser } = await import('../tests/factories.ts')

const RUNS = Number(process.argv[process.argv.indexOf('--runs') + 1]) || 200
const TERMS = 2_000
const RELATIONS = 10_000
const PAGES = 2_000
const TYPES = ['related_to', 'is_a', 'part_of', 'used_in', 'prerequisite_of', 'replaces']
const WORDS = (
  'payment ledger gateway settlement batch account invoice refund token session cache queue index search ' +
  'policy review approval domain service client server network latency 결제 정산 원장 배치 계좌 환불 토큰 ' +
  '세션 캐시 대기열 색인 검색 정책 검토 승인 도메인 서비스'
).split(' ')

const random = prng(42)
const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!

function sentence(words: number): string {
  return Array.from({ length: words }, () => pick(WORDS)).join(' ')
}

async function insertJson(sql: string, rows: unknown[]): Promise<void> {
  for (let i = 0; i < rows.length; i += 1000) {
    await em().execute(sql, [JSON.stringify(rows.slice(i, i + 1000))], 'run')
  }
}

async function seed(authorId: string): Promise<{ hubTermId: string }> {
  const terms = Array.from({ length: TERMS }, (_, i) => ({
    id: crypto.randomUUID(),
    slug: `term-${i}`,
    name: `Term ${i} ${pick(WORDS)}`,
    revision: i % 10 === 0 ? 2 : 1,
  }))
  await insertJson(
    `insert into terms (id, slug, name, status, revision, content_hash, search_text, created_by_id, updated_by_id,
                        created_at, updated_at)
     select x.id, x.slug, x.name, 'active', x.revision, md5(x.slug), E'\\u0001' || lower(x.name) || E'\\u0001',
            '${authorId}', '${authorId}', now(), now()
       from jsonb_to_recordset(?::jsonb) as x(id uuid, slug text, name text, revision integer)`,
    terms,
  )
  await em().execute(
    `insert into term_revisions (id, term_id, revision, content, content_hash, created_at)
     select gen_random_uuid(), t.id, r, jsonb_build_object('slug', t.slug, 'name', t.name,
            'definition', 'Definition ' || r || ' of ' || t.name), t.content_hash, now()
       from terms t, generate_series(1, t.revision) r`,
    [],
    'run',
  )

  const seen = new Set<string>()
  const relations: unknown[] = []
  const hub = terms[0]!
  while (relations.length < RELATIONS) {
    // A few hub terms carry many relations, like real glossaries.
    const source = relations.length < 300 ? hub : pick(terms)
    const target = pick(terms)
    const type = pick(TYPES)
    const key = `${source.id}:${target.id}:${type}`
    if (source.id === target.id || seen.has(key)) continue
    seen.add(key)
    const roll = random()
    relations.push({
      id: crypto.randomUUID(),
      source_term_id: source.id,
      target_term_id: target.id,
      relation_type: type,
      evidence_md: `Seen together in **${sentence(6)}**.\n\n- ${sentence(8)}`,
      status: roll < 0.6 ? 'proposed' : roll < 0.9 ? 'approved' : 'rejected',
      age: Math.floor(random() * 100_000),
    })
  }
  await insertJson(
    `insert into relations (id, source_term_id, target_term_id, relation_type, evidence_md, source_revision,
                            target_revision, status, version, proposed_by_id, created_at, updated_at)
     select x.id, x.source_term_id, x.target_term_id, x.relation_type, x.evidence_md, 1, 1, x.status,
            gen_random_uuid(), '${authorId}', now() - make_interval(secs => x.age), now() - make_interval(secs => x.age)
       from jsonb_to_recordset(?::jsonb) as x(id uuid, source_term_id uuid, target_term_id uuid,
            relation_type text, evidence_md text, status text, age integer)`,
    relations,
  )

  const pages: {
    id: string
    slug: string
    title: string
    content: string
    status: string
    domain: string[]
    age: number
  }[] = []
  for (let i = 0; i < PAGES; i++) {
    const roll = random()
    const paragraphs = Array.from({ length: 8 }, () => sentence(28)).join('\n\n')
    pages.push({
      id: crypto.randomUUID(),
      slug: `page-${i}`,
      title: `${sentence(3)} ${i}`,
      content: `# ${sentence(4)}\n\n${paragraphs}`,
      status: roll < 0.7 ? 'published' : roll < 0.9 ? 'draft' : 'archived',
      domain: [pick(['payments', 'platform', 'finance', 'ops', 'security'])],
      age: Math.floor(random() * 100_000),
    })
  }
  await insertJson(
    `insert into wiki_pages (id, slug, title, content, summary, domain, status, revision, created_by_id,
                             updated_by_id, created_at, updated_at)
     select x.id, x.slug, x.title, x.content, left(x.content, 120), x.domain, x.status, 1, '${authorId}',
            '${authorId}', now() - make_interval(secs => x.age), now() - make_interval(secs => x.age)
       from jsonb_to_recordset(?::jsonb) as x(id uuid, slug text, title text, content text, status text,
            domain text[], age integer)`,
    pages,
  )
  await em().execute(
    `insert into wiki_page_revisions (id, page_id, revision, slug, title, content, summary, domain, status,
                                      author_id, created_at)
     select gen_random_uuid(), id, 1, slug, title, content, summary, domain, status, created_by_id, created_at
       from wiki_pages`,
    [],
    'run',
  )
  const links: unknown[] = []
  for (const [i, page] of pages.entries()) {
    const linked = new Set<string>([pick(terms).id, pick(terms).id, i % 3 === 0 ? hub.id : pick(terms).id])
    for (const termId of linked) links.push({ page_id: page.id, term_id: termId })
  }
  await insertJson(
    `insert into wiki_page_terms (page_id, term_id)
     select x.page_id, x.term_id from jsonb_to_recordset(?::jsonb) as x(page_id uuid, term_id uuid)
     on conflict do nothing`,
    links,
  )
  await em().execute('analyze', [], 'run')
  return { hubTermId: hub.id }
}

/** `--explain`: the plans and in-process timings behind the list endpoints (for tuning indexes). */
async function explain(hubTermId: string): Promise<void> {
  const { listRelations } = await import('../app/services/relations/read.server.ts')
  const { listWikiPages } = await import('../app/services/wiki/read.server.ts')
  const time = async (label: string, fn: () => Promise<unknown>) => {
    const times: number[] = []
    for (let i = 0; i < 30; i++) {
      const t0 = performance.now()
      await fn()
      times.push(performance.now() - t0)
    }
    times.sort((a, b) => a - b)
    console.log(`${label.padEnd(50)} p50 ${percentile(times, 50).toFixed(1)} ms`)
  }
  const notDeleted =
    'r.source_term_id not in (select id from terms where deleted_at is not null) and r.target_term_id not in (select id from terms where deleted_at is not null)'
  for (const sql of [
    `select r.id from relations r where ${notDeleted} order by r.updated_at desc, r.id limit 20`,
    `select count(*) from relations r where ${notDeleted}`,
    `select count(*) from relations r`,
  ]) {
    await time(sql.slice(0, 50), () => em().execute(sql))
    const plan = await em().execute<{ 'QUERY PLAN': string }[]>(`explain analyze ${sql}`)
    console.log(plan.map((r) => `  ${r['QUERY PLAN']}`).join('\n'))
  }
  const { loadRelationDtos } = await import('../app/services/relations/store.server.ts')
  const ids = (
    await em().execute<{ id: string }[]>('select id from relations order by updated_at desc limit 20')
  ).map((r) => r.id)
  await time('loadRelationDtos(20 ids)', () => loadRelationDtos(em(), ids))
  const plan = await em().execute<{ 'QUERY PLAN': string }[]>(
    `explain analyze select r.id, sr.content ->> 'definition', tr.content ->> 'definition' from relations r
       join terms s on s.id = r.source_term_id join terms t on t.id = r.target_term_id
       left join term_revisions sr on sr.term_id = s.id and sr.revision = s.revision
       left join term_revisions tr on tr.term_id = t.id and tr.revision = t.revision
       left join users pu on pu.id = r.proposed_by_id where r.id = any(?::uuid[])`,
    [`{${ids.join(',')}}`],
  )
  console.log(
    plan
      .slice(-2)
      .map((r) => `  ${r['QUERY PLAN']}`)
      .join('\n'),
  )
  await time('same select without explain', () =>
    em().execute(
      `select r.*, sr.content ->> 'definition', tr.content ->> 'definition' from relations r
         join terms s on s.id = r.source_term_id join terms t on t.id = r.target_term_id
         left join term_revisions sr on sr.term_id = s.id and sr.revision = s.revision
         left join term_revisions tr on tr.term_id = t.id and tr.revision = t.revision
         left join users pu on pu.id = r.proposed_by_id where r.id = any(?::uuid[])`,
      [`{${ids.join(',')}}`],
    ),
  )
  await time('select 1', () => em().execute('select 1'))
  await time('listRelations({page:1})', () => listRelations({ page: 1 }))
  await time('listRelations({termId})', () => listRelations({ page: 1, termId: hubTermId }))
  await time('listWikiPages({})', () => listWikiPages({ page: 1, pageSize: 20, domain: [] }))
  await time('listWikiPages({q})', () => listWikiPages({ page: 1, pageSize: 20, domain: [], q: 'gateway' }))
}

async function main(): Promise<void> {
  const pglite = await openPglite()
  await initDb({ pglite })
  await applyMigrations()
  const editor = await createUser({ role: 'editor' })
  const started = performance.now()
  const { hubTermId } = await seed(editor.user.id)
  console.log(
    `seeded ${TERMS} terms, ${RELATIONS} relations, ${PAGES} wiki pages in ${((performance.now() - started) / 1000).toFixed(1)} s`,
  )

  if (process.argv.includes('--explain')) await explain(hubTermId)

  const server = createHttpApp().listen(0, '127.0.0.1')
  await new Promise<void>((resolve) => server.once('listening', resolve))
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v1`
  const headers = { cookie: editor.sessionHeaders.cookie! }

  const scenarios: [string, string][] = [
    ['GET /relations', '/relations'],
    ['GET /relations?page=200', '/relations?page=200'],
    ['GET /relations?status=proposed', '/relations?status=proposed'],
    ['GET /relations?termId=<hub, ~300>', `/relations?termId=${hubTermId}`],
    ['GET /relations?type=is_a&status=approved&page=3', '/relations?type=is_a&status=approved&page=3'],
    ['GET /relations?stale=true', '/relations?stale=true'],
    ['GET /relations/terms?q=term 1', `/relations/terms?q=${encodeURIComponent('term 1')}`],
    ['GET /wiki', '/wiki'],
    ['GET /wiki?pageSize=100', '/wiki?pageSize=100'],
    ['GET /wiki?q=gateway (common)', '/wiki?q=gateway'],
    ['GET /wiki?q=정산 (Korean)', `/wiki?q=${encodeURIComponent('정산')}`],
    ['GET /wiki?q=zzz-no-match', '/wiki?q=zzz-no-match'],
    ['GET /wiki?status=published&domain=payments', '/wiki?status=published&domain=payments'],
    ['GET /wiki?termId=<hub>', `/wiki?termId=${hubTermId}`],
  ]
  console.log(`\n${RUNS} sequential requests per scenario (after 10 warm-up), one session cookie:\n`)
  console.log(
    `${'scenario'.padEnd(52)} ${'p50 ms'.padStart(8)} ${'p95 ms'.padStart(8)} ${'max ms'.padStart(8)}  items/total`,
  )
  for (const [name, path] of scenarios) {
    let last: { items?: unknown[]; total?: number } = {}
    for (let i = 0; i < 10; i++) await (await fetch(base + path, { headers })).arrayBuffer()
    const times: number[] = []
    for (let i = 0; i < RUNS; i++) {
      const t0 = performance.now()
      const res = await fetch(base + path, { headers })
      const json = (await res.json()) as { items?: unknown[]; total?: number }
      times.push(performance.now() - t0)
      if (res.status !== 200) throw new Error(`${path}: ${res.status} ${JSON.stringify(json)}`)
      last = json
    }
    times.sort((a, b) => a - b)
    console.log(
      `${name.padEnd(52)} ${percentile(times, 50).toFixed(1).padStart(8)} ${percentile(times, 95).toFixed(1).padStart(8)} ${times[times.length - 1]!.toFixed(1).padStart(8)}  ${last.items?.length}/${last.total}`,
    )
  }
  server.closeAllConnections()
  await new Promise<void>((resolve) => server.close(() => resolve()))
  await closeDb()
}

await main()
