/**
 * A full reindex run (decision 028) in one process, as `glossary start` runs it: TERMS terms (default 5,000, two
 * chunks each), a provider on 127.0.0.1 answering at once with dense realistic vectors (`rag-data.ts`, in a
 * process of its own), the
 * runner's steps driven here the way a worker's runner drives them, and a search every 250 ms meanwhile (in
 * this process, so a statement that holds the embedded database is seen only by a search already waiting: the
 * index build's own time is printed apart; on the embedded engine nothing else runs meanwhile).
 * Three runs, each printed with its chunks per second and search p50/p95/max during it:
 *   1. search switched on with nothing indexed (every chunk embedded; the shadow tables replace empty ones);
 *   2. a new embedding model over the full index (every chunk embedded again; search answers from the old index);
 *   3. "Reindex" in the same model (every vector reused; the provider is not called).
 * Then search p50/p95 idle, for comparison. Each search is marked as a request in flight, as the web server marks
 * it, so the runner lets it in between slices (decision 028). SEARCH_EVERY_MS=0 runs the three with no search
 * meanwhile (an idle service: the runner never pauses).
 *
 *   npx tsx bench/full-reindex.bench.ts                         # embedded, in a temporary directory
 *   TERMS=50000 npx tsx bench/full-reindex.bench.ts               # embedded, 100,000 chunks (issue 28's figure)
 *   SEARCH_EVERY_MS=0 npx tsx bench/full-reindex.bench.ts         # the same, nobody searching
 *   SLICE_CHUNKS=100 npx tsx bench/full-reindex.bench.ts          # embedded, another slice size
 *   DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres npx tsx bench/full-reindex.bench.ts
 */
import crypto from 'node:crypto'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { parseConfig, setConfig } from '../app/lib/config.server.ts'
import { createBenchPostgres, insertBenchTerms, openBenchDatabase } from './bench-db.ts'
import { startInstantProviderProcess } from './rag-data.ts'
import { benchEnv, forMs, loadAverage, percentile, sampleTimes } from './support.ts'

const TERMS = Number(process.env.TERMS ?? 5_000)
const SEARCH_EVERY_MS = Number(process.env.SEARCH_EVERY_MS ?? 250)
/** How many of the three runs (RUNS=1: the first only). */
const RUNS = Number(process.env.RUNS ?? 3)
const HOLDER = 'bench-runner'

async function main() {
  const serverUrl = process.env.DATABASE_URL
  const pgDb = serverUrl ? await createBenchPostgres(serverUrl) : undefined
  const dataDir = pgDb ? undefined : fs.mkdtempSync(path.join(os.tmpdir(), 'glossary-bench-reindex-'))
  setConfig(parseConfig(benchEnv(pgDb ? { DATABASE_URL: pgDb.url } : {})))
  // The provider in a process of its own, as a real one runs apart from the service: in the service's process,
  // computing and encoding 100,000 vectors took its one thread from the run.
  const provider = await startInstantProviderProcess(0, new Map())
  const { closeDb, em } = await import('../db/orm.ts')
  try {
    const { userId } = await openBenchDatabase(pgDb ? { databaseUrl: pgDb.url } : { dataDir })
    const words = 'ledger settlement queue batch account invoice payment journal balance report'.split(' ')
    await insertBenchTerms(
      Array.from({ length: TERMS }, (_, i) => ({
        name: `Indexed Term ${i}`,
        notations: [],
        definition: `Definition ${i}: ${Array.from({ length: 40 }, (_, k) => words[(i * 7 + k * 3) % words.length]).join(' ')}.`,
      })),
      userId,
    )
    await em().execute('delete from rag_index_queue')
    const { updateRagConfig } = await import('../app/services/search/rag-config.server.ts')
    const { reindexAll } = await import('../app/services/search/reindex.server.ts')
    const { searchTerms } = await import('../app/services/search/search.server.ts')
    const { RUNNER, runReindexStep } = await import('../pipeline/reindex-runner.ts')
    if (process.env.SLICE_CHUNKS) RUNNER.sliceChunks.embedded = Number(process.env.SLICE_CHUNKS)
    const { beat } = await import('../app/services/index-queue/store.server.ts')
    const audit = { actor: { userId, label: 'bench' } }
    const { markRequest } = await import('../app/lib/quiet-moments.server.ts')
    const search = async () => {
      const ended = markRequest()
      try {
        return await searchTerms({ query: `ledger settlement ${crypto.randomInt(TERMS)}` } as never)
      } finally {
        ended()
      }
    }

    const measure = async (label: string, start: () => Promise<unknown>) => {
      await beat(em(), HOLDER, 'in-process')
      const started = performance.now()
      await start()
      let finished = false
      const during = SEARCH_EVERY_MS
        ? sampleTimes(
            () => search().catch(() => undefined),
            () => finished,
            SEARCH_EVERY_MS,
          )
        : Promise.resolve([])
      let buildMs = 0
      for (;;) {
        const [current] = await em().execute<{ cursor_kind: string }[]>(
          `select cursor_kind from rag_reindex_runs where status = 'building'`,
        )
        const stepStarted = performance.now()
        const outcome = await runReindexStep(HOLDER)
        // The vector index after the load: PostgreSQL's HNSW build; on the embedded engine, what its process index
        // had not read yet (decision 035).
        if (current?.cursor_kind === 'index') buildMs += performance.now() - stepStarted
        if (outcome === 'idle') break
        await beat(em(), HOLDER, 'in-process')
        // As the worker's runner does between steps: let other work (the searches) in.
        await new Promise((resolve) => setImmediate(resolve))
      }
      const seconds = (performance.now() - started) / 1000
      finished = true
      const times = await during
      const [run] = await em().execute<{ status: string; chunks_written: number; chunks_embedded: number }[]>(
        'select status, chunks_written, chunks_embedded from rag_reindex_runs order by created_at desc limit 1',
      )
      console.log(
        `${label}: ${run!.chunks_written.toLocaleString('en')} chunks (${run!.chunks_embedded.toLocaleString('en')} embedded) ` +
          `in ${seconds.toFixed(1)} s = ${(run!.chunks_written / seconds).toFixed(0)} chunks/s, run ${run!.status}; ` +
          (times.length
            ? `search during it p50 ${percentile(times, 50).toFixed(1)} ms, p95 ${percentile(times, 95).toFixed(1)} ms, ` +
              `max ${Math.max(...times).toFixed(1)} ms (${times.length} searches)`
            : 'no search during it') +
          `; index step after the load ` +
          `${(buildMs / 1000).toFixed(1)} s (load ${loadAverage()})`,
      )
    }

    console.log(
      `${TERMS.toLocaleString('en')} terms, ${pgDb ? 'PostgreSQL' : 'embedded'} engine, ${os.cpus().length} cores`,
    )
    await measure('1. search switched on', () =>
      updateRagConfig({
        input: { enabled: true, embeddingBaseUrl: provider.url, embeddingModel: 'bench-embed-1' },
        actorId: userId,
        audit,
      }),
    )
    if (RUNS < 2) return
    await measure('2. new model over the full index', () =>
      updateRagConfig({ input: { embeddingModel: 'bench-embed-2' }, actorId: userId, audit }),
    )
    if (RUNS < 3) return
    await measure('3. reindex in the same model', () => reindexAll())
    const idle = await sampleTimes(() => search(), forMs(10_000))
    console.log(
      `search idle: p50 ${percentile(idle, 50).toFixed(1)} ms, p95 ${percentile(idle, 95).toFixed(1)} ms (${idle.length} searches)`,
    )
  } finally {
    await closeDb()
    await provider.close()
    await pgDb?.drop()
    if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true })
  }
}

await main()
