/**
 * Offline sync (issue 30, decision 031): export and import of a glossary the issue's size — TERMS terms (default
 * 10,000; two notations besides the name, ~1.5 KB Markdown bodies, every fourth at revision 2), RELATIONS approved
 * relations (20,000), WIKI wiki pages (2,000, two revisions each) and IMAGES_MB of images (50: 500 KB of random
 * bytes behind a PNG or JPEG signature each, referenced from term bodies and wiki contents).
 *
 * Two installations, one after the other in this process (as tests/sync-installations.ts switches them): the
 * sender, seeded with set-based SQL and the term store's bulk writer, then
 * - full export: time, peak RSS, bundle size; then 100 terms changed (one bulk edit) and an incremental export;
 * the receiver, a fresh database:
 * - the bundle's check (`bundleFiles`), then preview (`importBundles`, apply: false) and apply of the full
 *   bundle: time and peak RSS; then the incremental (PROFILE=1 adds the database time by statement);
 * - what other requests wait meanwhile: every 100 ms a request arrives (`select count(*) from terms` through
 *   `em()`), timed from when it arrived, so a held connection and a blocked event loop both count.
 * Peak RSS is sampled every 50 ms (process.memoryUsage().rss; the embedded database lives in this process, so it
 * counts too); a sample cannot be taken while the event loop is blocked, so the process's own high-water mark
 * (getrusage maxRSS, never reset) is printed beside it.
 *
 * Embedded PGlite by default, each installation in a data directory on disk (as `glossary start` keeps it); with
 * DATABASE_URL=postgres://… two throwaway databases on that server, dropped at the end.
 * Run: `npx tsx bench/sync.bench.ts`; a quick look: `TERMS=1000 RELATIONS=2000 WIKI=200 IMAGES_MB=5 npx tsx …`.
 */
import crypto from 'node:crypto'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { monitorEventLoopDelay } from 'node:perf_hooks'
import pg from 'pg'
import { parseConfig, setConfig } from '../app/lib/config.server.ts'
import type { TermContent } from '../app/services/terms/content.server.ts'
import { createBenchPostgres, insertTermContents, openBenchDatabase } from './bench-db.ts'
import { benchEnv, loadAverage, percentile, prng, syntheticWords } from './support.ts'

setConfig(parseConfig(benchEnv()))
const TERMS = Number(process.env.TERMS ?? 10_000)
const RELATIONS = Number(process.env.RELATIONS ?? 20_000)
const WIKI = Number(process.env.WIKI ?? 2_000)
const IMAGE_BYTES = 500 * 1024
const IMAGES = Math.round((Number(process.env.IMAGES_MB ?? 50) * 1024 * 1024) / IMAGE_BYTES)
const CHANGED_TERMS = Math.min(100, TERMS)
const SAMPLE_RSS_MS = 50
const REQUEST_EVERY_MS = 100

const { em, closeDb, getDb } = await import('../db/orm.ts')
const { storeAttachment } = await import('../app/services/attachments/attachments.server.ts')
const { contentHash } = await import('../app/services/terms/content.server.ts')
const { bumpGlossaryVersion, loadClassificationIds, writeTerms } =
  await import('../app/services/terms/store.server.ts')
const { exportBundle } = await import('../app/services/sync/export.server.ts')
const { bundleFiles, importBundles } = await import('../app/services/sync/import.server.ts')
const { matcherCache } = await import('../app/services/validation/matcher-cache.server.ts')
const { stopCompileWorker } = await import('../app/services/matching/compile-worker.ts')

const serverUrl = process.env.DATABASE_URL
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'sync-bench-'))
const bundleDir = path.join(work, 'bundles')
fs.mkdirSync(bundleDir)
const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`
const seconds = (ms: number) => `${(ms / 1000).toFixed(2)} s`
const maxRss = () => process.resourceUsage().maxRSS * 1024

console.log(
  `${serverUrl ? 'PostgreSQL' : 'embedded PGlite (data directories on disk)'}; cpus ${os.cpus().length}, load average at start ${loadAverage()}`,
)
console.log(
  `${TERMS.toLocaleString('en')} terms, ${RELATIONS.toLocaleString('en')} approved relations, ${WIKI.toLocaleString('en')} wiki pages, ${IMAGES} images of ${IMAGE_BYTES / 1024} KB (${mb(IMAGES * IMAGE_BYTES)})`,
)

/** What a phase took: its wall time and its memory, sampled every 50 ms. */
interface Measured<T> {
  result: T
  ms: number
  /** RSS before the phase and its highest sample during it. */
  before: number
  peak: number
  /** The highest sample of the JS heap plus array buffers (where the images' bytes live; PGlite's memory not). */
  heapPeak: number
}

/** Runs a phase, sampling the RSS and the JS heap every 50 ms. */
async function measured<T>(run: () => Promise<T>): Promise<Measured<T>> {
  const before = process.memoryUsage().rss
  let peak = before
  let heapPeak = 0
  const take = () => {
    const now = process.memoryUsage()
    peak = Math.max(peak, now.rss)
    heapPeak = Math.max(heapPeak, now.heapUsed + now.arrayBuffers)
  }
  const sample = setInterval(take, SAMPLE_RSS_MS)
  const started = performance.now()
  try {
    const result = await run()
    const ms = performance.now() - started
    take()
    return { result, ms, before, peak, heapPeak }
  } finally {
    clearInterval(sample)
  }
}

/** The embedded engine's WebAssembly memory: it grows to what the database needed and never shrinks. */
function wasmMemory(): string {
  const module = getDb().pglite?.Module as { HEAP8?: Int8Array } | undefined
  return module?.HEAP8 ? `, PGlite ${mb(module.HEAP8.byteLength)}` : ''
}

function report(label: string, m: Measured<unknown>, extra = ''): void {
  console.log(
    `${label.padEnd(22)} ${seconds(m.ms).padStart(9)}   RSS ${mb(m.before)} before, peak ${mb(m.peak)} (+${mb(m.peak - m.before)}); JS heap peak ${mb(m.heapPeak)}${wasmMemory()}; process max RSS ${mb(maxRss())}${extra}`,
  )
}

/**
 * With PROFILE=1 on the embedded engine, the statements `run` spent its database time on (PGlite's `query` and
 * `exec`, grouped by their first 90 characters): the largest totals and the single slowest calls. A statement
 * runs on this thread, so a slow one is also how long the event loop is blocked.
 */
async function profiled<T>(phase: string, run: () => Promise<T>): Promise<T> {
  const pglite = getDb().pglite
  if (!process.env.PROFILE || !pglite) return run()
  const stats = new Map<string, { ms: number; calls: number; max: number }>()
  const wrap = <F extends (sql: string, ...rest: never[]) => Promise<unknown>>(original: F): F =>
    (async (sql: string, ...rest: never[]) => {
      const t0 = performance.now()
      try {
        return await original.call(pglite, sql, ...rest)
      } finally {
        const ms = performance.now() - t0
        const key = sql.replace(/\s+/g, ' ').trim().slice(0, 90)
        const entry = stats.get(key) ?? { ms: 0, calls: 0, max: 0 }
        entry.ms += ms
        entry.calls += 1
        entry.max = Math.max(entry.max, ms)
        stats.set(key, entry)
      }
    }) as F
  const { query, exec } = pglite
  pglite.query = wrap(query)
  pglite.exec = wrap(exec)
  try {
    return await run()
  } finally {
    pglite.query = query
    pglite.exec = exec
    const all = [...stats]
    const total = all.reduce((n, [, e]) => n + e.ms, 0)
    console.log(
      `  PROFILE, ${phase}: database time ${seconds(total)} in ${all.reduce((n, [, e]) => n + e.calls, 0)} statements; the largest:`,
    )
    for (const [sql, e] of all.sort((a, b) => b[1].ms - a[1].ms).slice(0, 10)) {
      console.log(
        `    ${seconds(e.ms).padStart(9)} ${String(e.calls).padStart(6)}×  max ${seconds(e.max)}  ${sql}`,
      )
    }
  }
}

/**
 * Requests arriving every 100 ms while `run` runs, each a small read through `em()`, timed from the moment it
 * was due: a timer the event loop could not fire on time issues the overdue ones at once, with their due times,
 * so waiting for a busy event loop counts as much as waiting for the connection.
 */
async function withRequests<T>(run: () => Promise<T>): Promise<{ value: T; requests: Requests }> {
  const requests: Requests = { waits: [], failures: new Map(), loopMaxMs: 0 }
  const pending: Promise<void>[] = []
  const started = performance.now()
  let issued = 0
  const issueDue = () => {
    const now = performance.now()
    while (started + (issued + 1) * REQUEST_EVERY_MS <= now) {
      issued += 1
      const due = started + issued * REQUEST_EVERY_MS
      pending.push(
        em()
          .execute('select count(*) from terms')
          .then(
            () => void requests.waits.push(performance.now() - due),
            // A request that waits too long fails (the pool's acquire timeout): what a user would get.
            (error: Error) => {
              requests.waits.push(performance.now() - due)
              requests.failures.set(error.message, (requests.failures.get(error.message) ?? 0) + 1)
            },
          ),
      )
    }
  }
  const timer = setInterval(issueDue, REQUEST_EVERY_MS / 4)
  const loop = monitorEventLoopDelay({ resolution: 10 })
  loop.enable()
  try {
    return { value: await run(), requests }
  } finally {
    clearInterval(timer)
    loop.disable()
    requests.loopMaxMs = loop.max / 1e6
    issueDue()
    await Promise.all(pending)
  }
}

/** The requests that fell due during a phase: each one's wait (until answered or failed), the failures. */
interface Requests {
  waits: number[]
  failures: Map<string, number>
  loopMaxMs: number
}

function reportWaits(label: string, { waits, failures, loopMaxMs }: Requests): void {
  if (waits.length === 0) return void console.log(`${label}: no request fell due (the phase was too short)`)
  const ms = (x: number) => `${Math.round(x)} ms`
  console.log(
    `${label}: ${waits.length} requests, wait p50 ${ms(percentile(waits, 50))}, p95 ${ms(percentile(waits, 95))}, max ${ms(Math.max(...waits))}; longest event-loop block ${ms(loopMaxMs)}`,
  )
  for (const [message, count] of failures) console.log(`    ${count} of them FAILED: ${message}`)
}

/** A database of its own for one installation: a data directory under `work`, or a throwaway PostgreSQL one. */
async function openInstallation(name: string): Promise<{ userId: string; drop: () => Promise<void> }> {
  if (!serverUrl) {
    const { userId } = await openBenchDatabase({ dataDir: path.join(work, name) })
    return { userId, drop: async () => undefined }
  }
  const database = `glossary_bench_${process.pid}_${name}`
  const created = await createBenchPostgres(serverUrl, database)
  const { userId } = await openBenchDatabase({ databaseUrl: created.url })
  return {
    userId,
    // Named databases are kept by createBenchPostgres's drop(); this one is a throwaway.
    drop: async () => {
      const admin = new pg.Client({
        connectionString: Object.assign(new URL(serverUrl), { pathname: '/postgres' }).toString(),
      })
      await admin.connect()
      try {
        await admin.query(`drop database if exists ${database} with (force)`)
      } finally {
        await admin.end()
      }
    },
  }
}

/** Closes the open installation as `glossary sync` does: the matcher's rebuild first, then the database. */
async function closeInstallation(): Promise<void> {
  await matcherCache.whenIdle()
  await closeDb()
}

// ── Seeding the sender ─────────────────────────────────────────────────────────────────────────────────────

/** A PNG or JPEG signature, then random bytes: stored as an image, and incompressible as photos are. */
function imageBytes(i: number): Uint8Array {
  const bytes = crypto.randomBytes(IMAGE_BYTES)
  const signature = i % 2 ? [0xff, 0xd8, 0xff, 0xe0] : [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]
  bytes.set(signature, 0)
  return bytes
}

const imageRef = (id: string) => `\n\n![figure](/api/v1/attachments/${id})\n`

async function seedSender(
  userId: string,
): Promise<{ ids: string[]; contents: TermContent[]; revisions: number[] }> {
  await em().execute(
    `insert into domains (id, key, name_ko, name_en, sort)
     values (gen_random_uuid(), 'payments', '결제', 'Payments', 1), (gen_random_uuid(), 'ledger', '원장', 'Ledger', 2)
     on conflict (key) do nothing`,
  )
  await em().execute(
    `insert into business_categories (id, key, name_ko, name_en, sort)
     values (gen_random_uuid(), 'core', '핵심', 'Core', 1) on conflict (key) do nothing`,
  )
  // Images first: term bodies and wiki contents point at their ids (half each).
  const imageIds: string[] = []
  for (let i = 0; i < IMAGES; i++) {
    const stored = await storeAttachment({
      bytes: imageBytes(i),
      declaredType: 'application/octet-stream',
      actorId: userId,
    })
    imageIds.push(stored.id)
  }
  const termImages = imageIds.slice(0, Math.ceil(IMAGES / 2))
  const wikiImages = imageIds.slice(termImages.length)

  const words = syntheticWords(prng(30))
  const { enWord, koWord } = words
  const paragraph = (n: number) => Array.from({ length: n }, () => enWord(2 + (n % 3))).join(' ')
  const contents: TermContent[] = Array.from({ length: TERMS }, (_, i) => {
    const name = `${enWord(3)}${i}`
    return {
      slug: `t-${i}`,
      name,
      fullName: null,
      nameEn: name,
      nameKo: `${koWord(3)}${i}`,
      notations: [
        { text: `${enWord(4)}${i}`, kind: 'admitted', lang: null },
        { text: `${enWord(2)} ${enWord(3)}${i}`, kind: 'deprecated', lang: null },
      ],
      domains: [i % 2 ? 'payments' : 'ledger'],
      categories: i % 5 ? [] : ['core'],
      tags: ['bench', `group-${i % 10}`],
      status: 'active',
      definition: `Definition of ${name}: ${paragraph(12)}.`,
      body: `## ${name}\n\n${paragraph(90)}.\n\n${paragraph(90)}.${i < termImages.length ? imageRef(termImages[i]!) : ''}`,
    }
  })
  const ids = await insertTermContents(contents, userId)
  const revisions = contents.map(() => 1)
  // Every fourth term has a second revision (the export carries the current one).
  const second = contents.flatMap((content, i) => (i % 4 ? [] : [i]))
  for (const i of second) contents[i] = { ...contents[i]!, definition: `${contents[i]!.definition} Revised.` }
  await writeRevisions(second, ids, contents, revisions, userId)

  // Approved relations: for round k, term j relates to term j + 1 + k (unique by source, target and type).
  await em().execute(
    `with t as (select id, row_number() over (order by slug) - 1 as n from terms),
          g as (select s, s % ? as source_n, (s % ? + 1 + s / ?) % ? as target_n,
                       (array['related_to','is_a','part_of','used_in','prerequisite_of','replaces'])[1 + (s / ?) % 6] as type
                  from generate_series(0, ? - 1) s)
     insert into relations (id, source_term_id, target_term_id, relation_type, evidence_md, source_revision,
                            target_revision, status, version, proposed_by_id, reviewed_by_id, reviewed_at)
     select gen_random_uuid(), a.id, b.id, g.type, 'Both appear in the settlement runbook, section ' || g.s || '.',
            1, 1, 'approved', gen_random_uuid(), ?, ?, now()
       from g join t a on a.n = g.source_n join t b on b.n = g.target_n`,
    [TERMS, TERMS, TERMS, TERMS, TERMS, RELATIONS, userId, userId],
  )
  // Wiki pages at revision 2 with both revisions, two linked terms each, the second half of the images.
  await em().execute(
    `insert into wiki_pages (id, slug, title, content, summary, domain, status, revision, created_by_id, updated_by_id)
     select gen_random_uuid(), 'page-' || g, 'Ledger page ' || g,
            'Ledger page ' || g || E'.\\n\\n' || repeat('The ledger closes at night and the settlement batch runs. ', 25)
              || coalesce(E'\\n\\n![figure](/api/v1/attachments/' || (?::text[])[g] || ')', ''),
            'How page ' || g || ' closes the ledger.', array['ledger'], 'published', 2, ?, ?
       from generate_series(1, ?) g`,
    [`{${wikiImages.join(',')}}`, userId, userId, WIKI],
  )
  await em().execute(
    `insert into wiki_page_revisions (id, page_id, revision, slug, title, content, summary, domain, status, author_id,
                                      author_label)
     select gen_random_uuid(), p.id, r, p.slug, p.title, case when r = 1 then 'First draft.' else p.content end,
            p.summary, p.domain, p.status, ?, 'Bench'
       from wiki_pages p cross join generate_series(1, 2) r`,
    [userId],
  )
  await em().execute(
    `with t as (select id, row_number() over (order by slug) - 1 as n from terms),
          p as (select id, row_number() over (order by slug) - 1 as n from wiki_pages)
     insert into wiki_page_terms (page_id, term_id)
     select p.id, t.id from p join t on t.n = p.n % ?
     union select p.id, t.id from p join t on t.n = (p.n * 7 + 1) % ?`,
    [TERMS, TERMS],
  )
  return { ids, contents, revisions }
}

/** Saves the next revision of the terms at `indexes` (their `contents` already changed), as one bulk edit. */
async function writeRevisions(
  indexes: readonly number[],
  ids: readonly string[],
  contents: readonly TermContent[],
  revisions: number[],
  userId: string,
): Promise<void> {
  await em().transactional(async (tx) => {
    const version = await bumpGlossaryVersion(tx)
    const writes = indexes.map((i) => ({
      id: ids[i]!,
      isNew: false,
      revision: ++revisions[i]!,
      content: contents[i]!,
      hash: contentHash(contents[i]!),
      note: 'bench edit',
      authorId: userId,
    }))
    await writeTerms(tx, writes, await loadClassificationIds(tx), version)
  })
}

// ── The run ────────────────────────────────────────────────────────────────────────────────────────────────

const goal = (ok: boolean, text: string) => `   goal ${text}: ${ok ? 'met' : 'MISSED'}`
const drops: (() => Promise<void>)[] = []
try {
  const sender = await openInstallation('sender')
  drops.push(sender.drop)
  const seeding = await measured(() => seedSender(sender.userId))
  report('seeding', seeding)
  const { ids, contents, revisions } = seeding.result

  const full = await measured(() =>
    exportBundle({ incremental: false, outDir: bundleDir, actorId: sender.userId }),
  )
  report(
    'full export',
    full,
    `\n${''.padEnd(22)} bundle ${mb(full.result.bytes)} ${JSON.stringify(full.result.counts)}${goal(full.ms <= 10_000, 'full export ≤ 10 s')}`,
  )

  const step = Math.floor(TERMS / CHANGED_TERMS)
  const changed = Array.from({ length: CHANGED_TERMS }, (_, k) => k * step)
  for (const i of changed)
    contents[i] = { ...contents[i]!, definition: `${contents[i]!.definition} Changed for sync.` }
  await writeRevisions(changed, ids, contents, revisions, sender.userId)
  const incremental = await measured(() =>
    exportBundle({ incremental: true, outDir: bundleDir, actorId: sender.userId }),
  )
  report(
    `incremental export`,
    incremental,
    `\n${''.padEnd(22)} bundle ${mb(incremental.result.bytes)} after ${CHANGED_TERMS} terms changed ${JSON.stringify(incremental.result.counts.items)}`,
  )
  await closeInstallation()

  const receiver = await openInstallation('receiver')
  drops.push(receiver.drop)
  const actor = { id: receiver.userId, label: 'bench' }
  // What `glossary sync import` runs first: the whole file checked once before anything is read into the database.
  const verify = await measured(() => bundleFiles(full.result.file))
  report('verify (bundleFiles)', verify)
  const fullFiles = verify.result
  const preview = await measured(() =>
    withRequests(() =>
      profiled('preview', () => importBundles(fullFiles, { apply: false, keepLocalEdits: false, actor })),
    ),
  )
  report('preview (full bundle)', preview, `   ${JSON.stringify(preview.result.value.bundles[0]?.counts)}`)
  reportWaits('  requests during the preview', preview.result.requests)

  const apply = await measured(() =>
    withRequests(() =>
      profiled('apply', () => importBundles(fullFiles, { apply: true, keepLocalEdits: false, actor })),
    ),
  )
  report(
    'apply (full bundle)',
    apply,
    `   ${JSON.stringify(apply.result.value.bundles[0]?.counts)}\n${''.padEnd(22)}${goal(apply.ms <= 60_000, 'apply ≤ 60 s on the embedded database')}`,
  )
  reportWaits('  requests during the apply', apply.result.requests)
  if (!serverUrl) {
    console.log(
      '  (embedded engine: a preview or an apply is one transaction, and it holds the one connection until it ends,\n' +
        '   so every other request that reads the database waits for all of it, and one that waits longer than the\n' +
        "   pool's acquire timeout (knex's default, 60 s) fails; the statements run on this thread, so even requests\n" +
        '   that need no database wait out the longest event-loop block)',
    )
  }

  const incrementalFiles = await bundleFiles(incremental.result.file)
  const applyIncremental = await measured(() =>
    importBundles(incrementalFiles, { apply: true, keepLocalEdits: false, actor }),
  )
  report(
    'apply (incremental)',
    applyIncremental,
    `   ${JSON.stringify(applyIncremental.result.bundles[0]?.counts)}`,
  )

  const [{ count }] = await em().execute<{ count: string | number }[]>(
    'select count(*) from terms where deleted_at is null',
  )
  console.log(
    `receiver has ${Number(count).toLocaleString('en')} terms (sender ${TERMS.toLocaleString('en')})`,
  )
  console.log(
    `memory goal (bounded): the images are ${mb(IMAGES * IMAGE_BYTES)}; compare each phase's RSS growth`,
  )
  await closeInstallation()
} finally {
  await closeDb()
  await stopCompileWorker()
  for (const drop of drops) await drop()
  fs.rmSync(work, { recursive: true, force: true })
  console.log(`load average at end ${loadAverage()}`)
}
