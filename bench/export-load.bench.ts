/**
 * Exports under load (issue 26 item 3; docs/decisions/019-sharing.md, "Round two (issue 26): bounded exports"):
 * `npx tsx bench/export-load.bench.ts [--terms 2000,10000] [--formats terms.tbx,prh.yml] [--runs 3] [--seconds 15]`
 *
 * The API server runs in this process on an in-memory embedded database (production mode, as share.bench.ts's
 * exports), filled with generated terms through the term store's bulk writer. Another client (its own key, in
 * its own process: bench/export-load-client.mjs) times `GET /api/v1/terms?pageSize=1` one request at a time, to
 * the last byte, 10 ms apart, for `--seconds` (20 untimed first when idle; under load the first is timed and
 * printed apart, as it meets the downloads as they start):
 *
 * - idle (nothing else running);
 * - during 20 parallel downloads with one read key, each starting again when it ends (and after a 429, once its
 *   Retry-After has passed, as a polite client does);
 * - during as many downloads as one caller may run at once (GLOSSARY_EXPORTS_PER_CALLER), one key, continuously;
 * - during as many as the process allows (GLOSSARY_EXPORTS_PER_PROCESS), spread over keys of their own.
 *
 * The downloads run in one more process. For each phase: the probe's p50/p95/max, the downloads finished (and the
 * median time of one) and the 429s answered meanwhile, and the longest the server's event loop was held (`monitorEventLoopDelay`). After each
 * phase the downloads in flight are destroyed by their client (a client going away mid-download) and the
 * benchmark checks that every export slot came back. Each phase runs `--runs` times; the medians over runs are
 * printed last. No assertions: figures for docs/decisions/019-sharing.md.
 */
import { fork, type ChildProcess } from 'node:child_process'
import crypto from 'node:crypto'
import type { AddressInfo } from 'node:net'
import os from 'node:os'
import path from 'node:path'
import { monitorEventLoopDelay } from 'node:perf_hooks'
import { parseConfig, setConfig } from '../app/lib/config.server.ts'
import { insertTermContents, openBenchDatabase } from './bench-db.ts'
import { benchEnv, percentile, prng, syntheticTerm, syntheticWords } from './support.ts'

const config = parseConfig(benchEnv({ GLOSSARY_DATA_DIR: '/tmp/glossary-bench' }))
setConfig(config)

const arg = (name: string, fallback: string) =>
  process.argv.includes(name) ? process.argv[process.argv.indexOf(name) + 1]! : fallback
const SIZES = arg('--terms', '2000').split(',').map(Number)
const FORMATS = arg('--formats', 'terms.tbx,prh.yml').split(',')
const RUNS = Number(arg('--runs', '3'))
const SECONDS = Number(arg('--seconds', '15'))
// The configuration's limits when it has them (a tree before issue 26 has none: every download runs).
const limits = (config as { exportLimits?: { perCaller: number; perProcess: number } }).exportLimits
const PER_CALLER = limits?.perCaller ?? 2
const PER_PROCESS = limits?.perProcess ?? 4
const CLIENT = path.join(import.meta.dirname, 'export-load-client.mjs')
const load = () =>
  os
    .loadavg()
    .map((x) => x.toFixed(1))
    .join(' / ')

const rand = prng(7)
const words = syntheticWords(rand)

const content = (i: number) => syntheticTerm(i, words)

const { userId } = await openBenchDatabase()
const { em } = await import('../db/orm.ts')
const { issueApiKey } = await import('../app/services/auth/api-keys.server.ts')
const { createHttpApp } = await import('../app/server/http.server.ts')
const { stopCompileWorker } = await import('../app/services/matching/compile-worker.ts')
// Absent before issue 26; then the check that every slot came back is skipped.
const slots = (await import('../app/services/share/export-slots.server.ts').catch(() => null)) as {
  exportsRunning(): number
} | null

await em().execute(
  `insert into domains (id, key, name_ko, name_en, sort, created_at, updated_at)
   values (gen_random_uuid(), 'platform', '플랫폼', 'Platform', 0, now(), now())`,
)

/** A read key of a user of its own: each is another caller. */
async function readKey(name: string): Promise<Record<string, string>> {
  const id = crypto.randomUUID()
  await em().execute(
    `insert into users (id, email, name, role, auth_type) values (?, ?, ?, 'viewer', 'agent')`,
    [id, `${name}-${id.slice(0, 8)}@example.test`, name],
  )
  const { token } = await issueApiKey({ userId: id, name, scopes: ['read'] })
  return { authorization: `Bearer ${token}` }
}
const probeKey = await readKey('probe')
const exportKeys = await Promise.all(
  Array.from({ length: Math.ceil(PER_PROCESS / PER_CALLER) }, (_, i) => readKey(`exporter-${i}`)),
)

let inserted = 0
async function insertUpTo(n: number): Promise<void> {
  for (; inserted < n;) {
    const size = Math.min(5_000, n - inserted)
    await insertTermContents(
      Array.from({ length: size }, (_, k) => content(inserted + k)),
      userId,
    )
    inserted += size
  }
}

const server = createHttpApp().listen(0, '127.0.0.1')
await new Promise<void>((resolve) => server.once('listening', resolve))
const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v1`

function child(mode: string, settings: unknown): ChildProcess {
  return fork(CLIENT, [mode, JSON.stringify(settings)], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] })
}
const nextMessage = <T>(process: ChildProcess, pick: (m: Record<string, unknown>) => boolean) =>
  new Promise<T>((resolve, reject) => {
    const onMessage = (m: Record<string, unknown>) => {
      if (!pick(m)) return
      process.off('message', onMessage)
      resolve(m as T)
    }
    process.on('message', onMessage)
    process.once('exit', (code) => (code ? reject(new Error(`client exited with ${code}`)) : undefined))
  })

interface Phase {
  first: number
  p50: number
  p95: number
  max: number
  probes: number
  ok: number
  /** Median time of a whole download finished in the phase (NaN when none finished). */
  download: number
  limited: number
  loopMax: number
  seconds: number
}

/** One phase: the downloads (each worker a caller's headers), then the probe, then the downloads stopped. */
async function phase(format: string, workers: Record<string, string>[]): Promise<Phase> {
  const exporters = workers.length ? child('exporters', { url: `${base}/export/${format}`, workers }) : null
  if (exporters) await nextMessage(exporters, (m) => m.ready === true)
  const loop = monitorEventLoopDelay({ resolution: 1 })
  loop.enable()
  const started = performance.now()
  const probe = child('probe', {
    url: `${base}/terms?pageSize=1`,
    headers: probeKey,
    // Under load the first request counts too: it meets the downloads as they start.
    warmup: workers.length ? 0 : 20,
    pauseMs: 10,
    seconds: SECONDS,
    minCount: 5,
  })
  const result = await nextMessage<{ times: number[] }>(probe, (m) => Array.isArray(m.times))
  const seconds = (performance.now() - started) / 1000
  loop.disable()
  let stats = { ok: 0, limited: 0, durations: [] as number[] }
  if (exporters) {
    exporters.send('stop')
    stats = (await nextMessage<{ stats: typeof stats }>(exporters, (m) => 'stats' in m)).stats
  }
  // Every slot must come back once the clients are gone (their downloads were cut mid-stream).
  for (let i = 0; slots && slots.exportsRunning() > 0; i++) {
    if (i === 100) throw new Error(`${slots.exportsRunning()} export slots still held after the clients left`)
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  server.closeIdleConnections()
  return {
    first: result.times[0]!,
    p50: percentile(result.times, 50),
    p95: percentile(result.times, 95),
    max: Math.max(...result.times),
    probes: result.times.length,
    ok: stats.ok,
    download: stats.durations.length ? percentile(stats.durations, 50) : NaN,
    limited: stats.limited,
    loopMax: loop.max / 1e6,
    seconds,
  }
}

const ms = (x: number) => `${x.toFixed(1)} ms`.padStart(10)
const median = (xs: number[]) => percentile(xs, 50)
/** The median of the download times that exist, in seconds; a dash when no download finished. */
const seconds = (xs: number[]) => {
  const finished = xs.filter((x) => !Number.isNaN(x))
  return finished.length ? `${(median(finished) / 1000).toFixed(1)} s` : '–'
}

console.log(
  `export load benchmark: Node ${process.version}, ${os.cpus().length} cpus, limits ${limits ? `${PER_CALLER} per caller, ${PER_PROCESS} per process` : 'none (tree before issue 26)'}, ${RUNS} run(s) a phase`,
)
for (const size of SIZES) {
  const t0 = performance.now()
  await insertUpTo(size)
  console.log(
    `\n${size} terms (inserted in ${((performance.now() - t0) / 1000).toFixed(1)} s), load ${load()}`,
  )
  const phases: [string, string | null, Record<string, string>[]][] = [['idle', null, []]]
  for (const format of FORMATS) {
    phases.push(
      [`${format}: 20 parallel, one key`, format, Array.from({ length: 20 }, () => exportKeys[0]!)],
      [
        `${format}: ${PER_CALLER} at once, one key`,
        format,
        Array.from({ length: PER_CALLER }, () => exportKeys[0]!),
      ],
      [
        `${format}: ${PER_PROCESS} at once, ${exportKeys.length} keys`,
        format,
        Array.from({ length: PER_PROCESS }, (_, i) => exportKeys[Math.floor(i / PER_CALLER)]!),
      ],
    )
  }
  const results = new Map<string, Phase[]>()
  for (let run = 1; run <= RUNS; run++) {
    for (const [label, format, workers] of phases) {
      const r = await phase(format ?? '', workers)
      results.set(label, [...(results.get(label) ?? []), r])
      console.log(
        `  run ${run} ${label.padEnd(34)} first ${ms(r.first)} p50 ${ms(r.p50)} p95 ${ms(r.p95)} max ${ms(r.max)} (${r.probes} probes in ${r.seconds.toFixed(1)} s)` +
          (format ? `; downloads ${r.ok} (median ${seconds([r.download])}), 429s ${r.limited}` : '') +
          `; event loop held at most ${ms(r.loopMax)}; load ${load()}`,
      )
    }
  }
  const idle = median(results.get('idle')!.map((r) => r.p95))
  console.log(`  medians over ${RUNS} run(s), ${size} terms:`)
  for (const [label, rs] of results) {
    const p95 = median(rs.map((r) => r.p95))
    console.log(
      `    ${label.padEnd(34)} p50 ${ms(median(rs.map((r) => r.p50)))} p95 ${ms(p95)} (${(p95 / idle).toFixed(1)}× idle p95)` +
        (label === 'idle'
          ? ''
          : `; downloads/phase ${median(rs.map((r) => r.ok))} (median ${seconds(rs.map((r) => r.download))}), 429s/phase ${median(rs.map((r) => r.limited))}`),
    )
  }
}
server.close()
await stopCompileWorker()
process.exit(0)
