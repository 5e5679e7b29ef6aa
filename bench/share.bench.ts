/**
 * Sharing benchmark: `npx tsx bench/share.bench.ts [--terms N] [--sheet-terms M]`
 *
 * 1. `/sheet` with all 15 columns and 200 rows at M terms (default 10,000): the built app (`npm run build`
 *    first) runs as `glossary start` in production mode on a temporary embedded database, the terms come in
 *    through `POST /import`, and 100 page loads are timed from this process (p50/p95).
 * 2. Each export at 10,000 and at N terms (default 100,000), in this process on an in-memory database: time,
 *    bytes, and the peak of the live JS heap above the level before the download (a full collection, then a
 *    reading, every 500 ms during the download; the collections are included in the time), the figure that
 *    shows whether memory stays flat in the number of terms. The embedded database's own memory (WASM) is not
 *    in the JS heap.
 * No assertions: figures for docs/decisions/019-sharing.md.
 */
import { spawn } from 'node:child_process'
import fs from 'node:fs'
import type { AddressInfo } from 'node:net'
import os from 'node:os'
import path from 'node:path'
import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'
import { parseConfig, setConfig } from '../app/lib/config.server.ts'
import { EXPORT_FORMATS, SHEET_COLUMNS } from '../domain/share.ts'
import { insertTermContents, openBenchDatabase } from './bench-db.ts'
import { benchEnv, percentile, prng, syntheticTerm, syntheticWords } from './support.ts'

setConfig(parseConfig(benchEnv({ GLOSSARY_DATA_DIR: '/tmp/glossary-bench' })))
setFlagsFromString('--expose-gc')
const gc = runInNewContext('gc') as () => void

const arg = (name: string, fallback: number) =>
  process.argv.includes(name) ? Number(process.argv[process.argv.indexOf(name) + 1]) : fallback
const TERMS = arg('--terms', 100_000)
const SHEET_TERMS = arg('--sheet-terms', 10_000)
const ROOT = path.resolve(import.meta.dirname, '..')

const rand = prng(7)
const words = syntheticWords(rand)
const ms = (x: number) => `${x.toFixed(1)} ms`
const mb = (x: number) => `${(x / 1024 / 1024).toFixed(1)} MB`

const content = (i: number) => syntheticTerm(i, words)

// ── 1. /sheet on the built app ──────────────────────────────────────────────────────────────────────────

async function sheetBenchmark(): Promise<void> {
  if (!fs.existsSync(path.join(ROOT, 'build', 'server', 'index.js'))) {
    console.log('/sheet: skipped (no build; run `npm run build` first)')
    return
  }
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'glossary-share-bench-'))
  const port = 30_000 + Math.floor(Math.random() * 20_000)
  const url = `http://127.0.0.1:${port}`
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '',
    ...benchEnv({
      PORT: String(port),
      HOST: '127.0.0.1',
      GLOSSARY_DATA_DIR: dataDir,
      GLOSSARY_ALLOWED_ORIGINS: url,
    }),
  }
  const child = spawn(process.execPath, [path.join(ROOT, 'bin', 'glossary.js'), 'start'], {
    env: env as unknown as NodeJS.ProcessEnv,
    stdio: 'ignore',
  })
  try {
    for (let i = 0; ; i++) {
      const ok = await fetch(`${url}/readyz`).then(
        (r) => r.ok,
        () => false,
      )
      if (ok) break
      if (i > 600) throw new Error('glossary start did not become ready')
      await new Promise((r) => setTimeout(r, 100))
    }
    const setup = await fetch(`${url}/api/v1/setup`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: url },
      body: JSON.stringify({ email: 'bench@example.test', password: 'bench password', name: 'Bench' }),
    })
    const cookie = setup.headers.getSetCookie()[0]!.split(';')[0]!
    const headers = { 'content-type': 'application/json', origin: url, cookie }
    await fetch(`${url}/api/v1/domains`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ key: 'platform', nameKo: '플랫폼', nameEn: 'Platform' }),
    })
    let t0 = performance.now()
    for (let start = 0; start < SHEET_TERMS; start += 10_000) {
      const rows = Array.from({ length: Math.min(10_000, SHEET_TERMS - start) }, (_, k) => {
        const { body: _body, ...c } = content(start + k)
        return c
      })
      const res = await fetch(`${url}/api/v1/import`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ format: 'json', rows, wait: true }),
      })
      if (res.status !== 200) throw new Error(`import answered ${res.status}: ${await res.text()}`)
    }
    console.log(`/sheet: ${SHEET_TERMS} terms imported in ${ms(performance.now() - t0)}`)
    const page = `${url}/sheet?columns=${SHEET_COLUMNS.join(',')}&tag=bench`
    const times: number[] = []
    let bytes = 0
    for (let i = 0; i < 110; i++) {
      t0 = performance.now()
      const res = await fetch(page, { headers: { cookie } })
      const html = await res.text()
      if (i >= 10) times.push(performance.now() - t0)
      bytes = html.length
      if (!html.includes('data-rows="200"')) throw new Error(`/sheet did not show 200 rows (${res.status})`)
    }
    console.log(
      `/sheet, 200 rows × ${SHEET_COLUMNS.length} columns at ${SHEET_TERMS} terms (100 loads after 10 warm-up): p50 ${ms(percentile(times, 50))}, p95 ${ms(percentile(times, 95))}, ${(bytes / 1024).toFixed(0)} KiB of HTML`,
    )
  } finally {
    child.kill('SIGTERM')
    await new Promise((r) => child.once('exit', r))
    fs.rmSync(dataDir, { recursive: true, force: true })
  }
}

// ── 2. exports in this process ──────────────────────────────────────────────────────────────────────────

async function exportBenchmark(): Promise<void> {
  const { userId, auth } = await openBenchDatabase()
  const { em } = await import('../db/orm.ts')
  const { createHttpApp } = await import('../app/server/http.server.ts')
  const { stopCompileWorker } = await import('../app/services/matching/compile-worker.ts')
  await em().execute(
    `insert into domains (id, key, name_ko, name_en, sort, created_at, updated_at)
     values (gen_random_uuid(), 'platform', '플랫폼', 'Platform', 0, now(), now())`,
  )
  const ids: string[] = []
  const relationEvery = 10
  let inserted = 0
  const insertUpTo = async (n: number) => {
    for (; inserted < n;) {
      const size = Math.min(5_000, n - inserted)
      const contents = Array.from({ length: size }, (_, k) => content(inserted + k))
      ids.push(...(await insertTermContents(contents, userId)))
      inserted += size
    }
    // An approved relation for every tenth term (is_a to the previous one), for SKOS broader/narrower.
    await em().execute(
      `insert into relations (id, source_term_id, target_term_id, relation_type, evidence_md, source_revision,
                              target_revision, status, version)
       select gen_random_uuid(), x.s, x.t, 'is_a', 'bench', 1, 1, 'approved', gen_random_uuid()
         from jsonb_to_recordset(?::jsonb) as x(s uuid, t uuid)
       on conflict do nothing`,
      [
        JSON.stringify(
          ids.flatMap((id, i) => (i > 0 && i % relationEvery === 0 ? [{ s: id, t: ids[i - 1] }] : [])),
        ),
      ],
    )
  }

  const server = createHttpApp().listen(0, '127.0.0.1')
  await new Promise<void>((resolve) => server.once('listening', resolve))
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v1/export`

  for (const size of [...new Set([Math.min(10_000, TERMS), TERMS])]) {
    const t0 = performance.now()
    await insertUpTo(size)
    // The insert runs on this thread (the embedded database) and holds the event loop for seconds at a time, so
    // the server's keep-alive timer of the last download's connection fires late, right as fetch reuses that
    // connection (ECONNRESET at 100,000 terms). Closing idle connections first makes the next download open one.
    server.closeIdleConnections()
    await new Promise((resolve) => setTimeout(resolve, 100))
    console.log(`\nexports at ${size} terms (inserted in ${ms(performance.now() - t0)}):`)
    for (const format of EXPORT_FORMATS) {
      gc()
      const before = process.memoryUsage().heapUsed
      let peak = before
      // Live memory, not garbage waiting for the next collection: collect, then read, every 500 ms.
      const sampler = setInterval(() => {
        gc()
        peak = Math.max(peak, process.memoryUsage().heapUsed)
      }, 500)
      const started = performance.now()
      const res = await fetch(`${base}/${format}`, { headers: auth })
      let bytes = 0
      const reader = res.body!.getReader()
      for (let next = await reader.read(); !next.done; next = await reader.read())
        bytes += next.value.byteLength
      const took = performance.now() - started
      clearInterval(sampler)
      console.log(
        `  ${format.padEnd(18)} ${ms(took).padStart(11)}  ${mb(bytes).padStart(9)}  heap peak +${mb(peak - before)}`,
      )
    }
  }
  server.close()
  await stopCompileWorker()
}

console.log(
  `share benchmark: Node ${process.version}, /sheet at ${SHEET_TERMS} terms, exports at ${TERMS} terms`,
)
await sheetBenchmark()
await exportBenchmark()
process.exit(0)
