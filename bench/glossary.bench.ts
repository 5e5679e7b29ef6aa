/**
 * Glossary benchmark: `npx tsx bench/glossary.bench.ts [--terms N]`
 *
 * Generates (seeded) N terms (default 10,000) × 4 notations — an English word, an English phrase, a Korean
 * word, a Korean phrase — bulk-inserts them through the real persistence path, serves the API on a real HTTP
 * port (embedded PGlite in memory) and prints:
 * - bulk insert time, a 10,000-row `POST /import` (one transaction, progress streamed) and how long a request
 *   sent meanwhile waits,
 * - the matcher's own scan of a 1 MB mixed text and `POST /validate` p50 on it through HTTP, timed from a
 *   client in its own process (bench/post-client.mjs),
 * - `POST /terms/lookup` with 500 texts, `GET /terms?q=` p50/p95,
 * - the time from a term save until the new matcher serves (requests use the old one meanwhile),
 * - matcher memory and build time at 10,000 and 100,000 terms.
 * No assertions: figures for docs/decisions/007-validation-and-import.md.
 */
import { execFile } from 'node:child_process'
import crypto from 'node:crypto'
import fs from 'node:fs'
import type { AddressInfo } from 'node:net'
import os from 'node:os'
import path from 'node:path'
import { promisify } from 'node:util'
import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'
import { parseConfig, setConfig } from '../app/lib/config.server.ts'
import { insertBenchTerms, openBenchDatabase } from './bench-db.ts'
import { benchEnv, percentile, prng, syntheticWords } from './support.ts'

setConfig(parseConfig(benchEnv({ GLOSSARY_DATA_DIR: '/tmp/glossary-bench' })))

const { buildMatcher } = await import('../app/services/matching/matcher.ts')
const { createHttpApp } = await import('../app/server/http.server.ts')
const { stopCompileWorker } = await import('../app/services/matching/compile-worker.ts')
const { closeDb } = await import('../db/orm.ts')
const { matcherCache, buildSnapshot } = await import('../app/services/validation/matcher-cache.server.ts')
const { notifyGlossaryChanged } = await import('../app/services/terms/events.server.ts')
const { whenCandidatesIdle } = await import('../app/services/candidates/candidates.server.ts')
const { updateTerm } = await import('../app/services/terms/write.server.ts')
const { readNdjson } = await import('../app/lib/ndjson.ts')

setFlagsFromString('--expose-gc')
const gc = runInNewContext('gc') as () => void

const execFileAsync = promisify(execFile)

const TERMS = Number(process.argv[process.argv.indexOf('--terms') + 1]) || 10_000

const rand = prng(42)
const { pick, enWord, koWord } = syntheticWords(rand)

interface Generated {
  name: string
  notations: { text: string; kind: 'preferred' | 'admitted' | 'deprecated'; lang: string | null }[]
}

/** Unique terms: an English word name plus English word, English phrase, Korean word, Korean phrase. */
function generate(n: number): Generated[] {
  const seen = new Set<string>()
  const fresh = (make: () => string) => {
    for (;;) {
      const s = make()
      if (!seen.has(s)) {
        seen.add(s)
        return s
      }
    }
  }
  return Array.from({ length: n }, (_, i) => ({
    name: fresh(() => `${enWord(3)}${i}`),
    notations: [
      { text: fresh(() => enWord(4)), kind: 'admitted', lang: 'en' },
      {
        text: fresh(() => `${enWord(2)} ${enWord(3)}`),
        kind: i % 5 === 0 ? 'deprecated' : 'admitted',
        lang: 'en',
      },
      { text: fresh(() => koWord(3)), kind: 'preferred', lang: 'ko' },
      {
        text: fresh(() => `${koWord(2)} ${koWord(2)}`),
        kind: i % 7 === 0 ? 'deprecated' : 'admitted',
        lang: 'ko',
      },
    ],
  }))
}

/** ~1 MB (UTF-8) of mixed text: filler words with notations (Korean ones with particles) at `density`. */
function document(terms: Generated[], bytes: number, density: number): string {
  const particles = ['를', '는', '에서', '의', '']
  const parts: string[] = []
  let size = 0
  while (size < bytes) {
    const r = rand()
    let piece: string
    if (r < density) {
      const t = pick(terms)
      const n = pick(t.notations)
      piece = n.lang === 'ko' ? n.text + pick(particles) : n.text
    } else if (r < 0.55) piece = enWord(2 + Math.floor(rand() * 3))
    else piece = koWord(2)
    if (rand() < 0.05) piece += '.\n'
    parts.push(piece)
    size += Buffer.byteLength(piece) + 1
  }
  return parts.join(' ')
}

const pct = percentile
const ms = (x: number) => `${x.toFixed(1)} ms`
const mb = (x: number) => `${(x / 1024 / 1024).toFixed(1)} MB`

async function main(): Promise<void> {
  console.log(`glossary benchmark: ${TERMS} terms × 4 notations, Node ${process.version}`)
  const { userId, auth } = await openBenchDatabase()

  // --- bulk insert ---------------------------------------------------------------------------------
  const terms = generate(TERMS)
  let t0 = performance.now()
  await insertBenchTerms(
    terms.map((g) => ({ name: g.name, notations: g.notations, definition: `Definition of ${g.name}.` })),
    userId,
  )
  console.log(`bulk insert of ${TERMS} terms (one transaction): ${ms(performance.now() - t0)}`)

  const server = createHttpApp().listen(0, '127.0.0.1')
  await new Promise<void>((resolve) => server.once('listening', resolve))
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v1`
  const post = (path: string, body: unknown) =>
    fetch(`${base}${path}`, { method: 'POST', headers: auth, body: JSON.stringify(body) })

  t0 = performance.now()
  const snapshot = await matcherCache.get()
  console.log(
    `first matcher build (cold process): ${ms(performance.now() - t0)} (${snapshot.forms} forms, ${snapshot.matcher.stats.notations} notations)`,
  )

  // --- validate 1 MB --------------------------------------------------------------------------------
  // Candidate gathering runs after each answer; waiting for it between requests measures the request alone.
  for (const [label, density] of [
    ['dense: 15% of words are notations', 0.15],
    ['typical: 2% of words are notations', 0.02],
  ] as const) {
    const text = document(terms, 1024 * 1024, density)
    const scans: number[] = []
    let matches = 0
    for (let i = 0; i < 7; i++) {
      t0 = performance.now()
      matches = snapshot.matcher.scan(text).length
      scans.push(performance.now() - t0)
    }
    console.log(
      `[${label}] matcher scan of 1 MB (${text.length} UTF-16 units, ${matches} matches): p50 ${ms(pct(scans, 50))}`,
    )
    for (const includePreferred of [false, true]) {
      // Timed from a client in its own process (bench/post-client.mjs), to the last byte of the answer;
      // the client's parse of the answer is its own work and reported apart.
      const body = JSON.stringify({ text, includePreferred })
      const { summary } = (await (await post('/validate', { text, includePreferred })).json()) as {
        summary: { occurrences: number }
      }
      await whenCandidatesIdle()
      const bodyFile = path.join(os.tmpdir(), `glossary-bench-validate-${process.pid}.json`)
      fs.writeFileSync(bodyFile, body)
      const { stdout } = await execFileAsync(process.execPath, [
        path.join(import.meta.dirname, 'post-client.mjs'),
        `${base}/validate`,
        JSON.stringify(auth),
        bodyFile,
      ])
      fs.rmSync(bodyFile)
      const client = JSON.parse(stdout) as { times: number[]; bytes: number; parseMs: number }
      console.log(
        `[${label}] POST /validate 1 MB over HTTP, includePreferred=${includePreferred} (${summary.occurrences} occurrences, answer ${mb(client.bytes)}): p50 ${ms(pct(client.times, 50))} to the last byte, max ${ms(Math.max(...client.times))}; the client's JSON.parse of the answer takes ${ms(client.parseMs)}`,
      )
    }
  }

  // --- lookup 500 -----------------------------------------------------------------------------------
  const lookupTexts = Array.from({ length: 500 }, (_, i) =>
    i % 10 === 0 ? `unknown ${i}` : pick(pick(terms).notations).text,
  )
  const lookups: number[] = []
  for (let i = 0; i < 30; i++) {
    t0 = performance.now()
    await (await post('/terms/lookup', { texts: lookupTexts })).arrayBuffer()
    lookups.push(performance.now() - t0)
  }
  console.log(
    `POST /terms/lookup 500 texts over HTTP: p50 ${ms(pct(lookups, 50))}, p95 ${ms(pct(lookups, 95))}`,
  )

  // --- search -----------------------------------------------------------------------------------------
  const searches: number[] = []
  for (let i = 0; i < 200; i++) {
    const t = pick(terms)
    const n = pick(t.notations)
    const q = i % 4 === 0 ? t.name.slice(0, 4) : i % 4 === 1 ? n.text.slice(0, 2) : n.text
    t0 = performance.now()
    await (await fetch(`${base}/terms?q=${encodeURIComponent(q)}`, { headers: auth })).arrayBuffer()
    searches.push(performance.now() - t0)
  }
  console.log(
    `GET /terms?q= over HTTP (200 queries): p50 ${ms(pct(searches, 50))}, p95 ${ms(pct(searches, 95))}`,
  )

  // --- save → new matcher serving ----------------------------------------------------------------------
  for (let round = 0; round < 3; round++) {
    const fresh = `zzfresh${crypto.randomUUID().slice(0, 6)}`
    const target = (await (await fetch(`${base}/terms/t-${round + 1}`, { headers: auth })).json()) as {
      revision: number
      notations: unknown[]
    }
    const oldSnapshot = await matcherCache.get()
    t0 = performance.now()
    const saved = await fetch(`${base}/terms/t-${round + 1}`, {
      method: 'PATCH',
      headers: auth,
      body: JSON.stringify({
        baseRevision: target.revision,
        notations: [...target.notations, { text: fresh, kind: 'admitted' }],
      }),
    })
    const saveMs = performance.now() - t0
    let servedOld = 0
    for (;;) {
      const res = (await (await post('/validate', { text: `uses ${fresh} here` })).json()) as {
        occurrences: unknown[]
      }
      if (res.occurrences.length) break
      servedOld++
    }
    const serveMs = performance.now() - t0
    const s2 = await matcherCache.get()
    console.log(
      `term save (PATCH ${saved.status}) answered in ${ms(saveMs)}; save → new matcher serving: ${ms(serveMs)} (rebuild: load ${ms(s2.loadMs)} + build ${ms(s2.buildMs - s2.loadMs)}; ${servedOld} requests answered by the old matcher meanwhile; snapshot replaced: ${oldSnapshot !== s2})`,
    )
    await whenCandidatesIdle()
  }
  {
    // The save alone, through the service (no HTTP), with the rebuild it triggers measured after it.
    const before = await matcherCache.get()
    t0 = performance.now()
    await updateTerm({
      idOrSlug: 't-9',
      input: { baseRevision: 1, definition: 'changed', note: '' },
      actorId: userId,
    })
    const saveMs = performance.now() - t0
    const after = await matcherCache.whenIdle()
    console.log(
      `updateTerm service call: ${ms(saveMs)}; then the rebuild took ${ms(after!.buildMs)} (replaced: ${before !== after})`,
    )
  }

  // --- import 10,000 rows ----------------------------------------------------------------------------
  const importRows = generate(10_000).map((g) => ({
    name: `imp ${g.name}`,
    definition: 'Imported.',
    notations: g.notations,
  }))
  t0 = performance.now()
  const imported = (await (
    await post('/import', { format: 'json', rows: importRows, dryRun: true })
  ).json()) as {
    created: number
  }
  console.log(
    `POST /import dry run, 10,000 rows: ${ms(performance.now() - t0)} (${imported.created} would be created)`,
  )
  // The real run, its progress streamed (Accept: application/x-ndjson). When the first line after a batch
  // arrives, another request that needs the database is sent: on the embedded database it waits for the
  // import's transaction (one connection), which is why progress is streamed rather than polled.
  t0 = performance.now()
  const streamed = await fetch(`${base}/import`, {
    method: 'POST',
    headers: { ...auth, accept: 'application/x-ndjson' },
    body: JSON.stringify({ format: 'json', rows: importRows }),
  })
  const arrivals: { ms: number; processed: number; status: string; created: number }[] = []
  let concurrent: Promise<number> | undefined
  for await (const job of readNdjson<{ processed: number; status: string; created: number }>(
    streamed.body!,
  )) {
    arrivals.push({ ms: performance.now() - t0, ...job })
    if (!concurrent && job.processed > 0 && job.status === 'running') {
      const sent = performance.now()
      concurrent = fetch(`${base}/terms?q=zz&pageSize=1`, { headers: auth })
        .then((res) => res.arrayBuffer())
        .then(() => performance.now() - sent)
    }
  }
  const last = arrivals.at(-1)!
  console.log(
    `POST /import real run, 10,000 rows, one transaction, progress streamed: ${ms(last.ms)} (${last.status}, ${last.created} created); ${arrivals.length} progress lines at ${arrivals.map((a) => `${(a.ms / 1000).toFixed(1)} s:${a.processed}`).join(', ')}`,
  )
  if (concurrent) {
    console.log(
      `GET /terms sent during that import answered after ${ms(await concurrent)} (embedded: waits for the commit)`,
    )
  }
  await matcherCache.whenIdle()

  server.closeAllConnections()
  server.close()

  // --- matcher memory ----------------------------------------------------------------------------------
  for (const n of [10_000, 100_000]) {
    const generated = generate(n)
    const entries = generated.flatMap((g, i) =>
      [{ text: g.name, kind: 'preferred' }, ...g.notations].map((x, k) => ({
        id: i * 5 + k,
        text: x.text,
        payload: { term: { id: String(i) }, text: x.text, kind: x.kind },
      })),
    )
    gc()
    const before = process.memoryUsage().heapUsed + process.memoryUsage().arrayBuffers
    t0 = performance.now()
    const matcher = buildMatcher(entries)
    const buildMs = performance.now() - t0
    const peak = process.memoryUsage().heapUsed + process.memoryUsage().arrayBuffers
    gc()
    const retained = process.memoryUsage().heapUsed + process.memoryUsage().arrayBuffers
    console.log(
      `matcher at ${n} terms (${entries.length} forms): build ${ms(buildMs)}, automaton ${mb(matcher.stats.bytes)}, heap+buffers peak during build +${mb(peak - before)}, retained +${mb(retained - before)}`,
    )
    void matcher.scan('x')
  }
  gc()
  t0 = performance.now()
  const dbSnapshot = await buildSnapshot()
  console.log(
    `full snapshot rebuild from the database at ${dbSnapshot.terms} terms: ${ms(performance.now() - t0)}`,
  )
  notifyGlossaryChanged()
  await matcherCache.whenIdle()
  // The matcher's compiler thread keeps the process alive until it is stopped.
  await stopCompileWorker()
  await closeDb()
}

await main()
