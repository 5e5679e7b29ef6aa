import { log } from '#app/lib/logger.server.ts'
import { requestsInFlight, whenQuiet } from '#app/lib/quiet-moments.server.ts'
import { ProviderError } from '#app/services/ai/provider.server.ts'
import { WORKER_LIVENESS } from '#app/services/index-queue/health.server.ts'
import {
  clearPause,
  pauseProvider,
  providerPauses,
  takeProbe,
} from '#app/services/index-queue/store.server.ts'
import { documentChunks, termChunks, type ChunkDraft } from '#app/services/search/chunker.ts'
import { embedderFor, searchState, type SearchSettings } from '#app/services/search/settings.server.ts'
import {
  advanceRun,
  buildShadowVectorIndex,
  createShadowTables,
  dropReplacedTables,
  dropShadowTables,
  endBuildingRun,
  finishRun,
  knownHashes,
  RUN_STEPS,
  RunLostError,
  sourcesAfter,
  swapShadowTables,
  takeRun,
  writeShadowChunks,
  type ReindexRun,
  type RunSource,
  type ShadowChunk,
} from '#app/services/search/reindex-store.server.ts'
import { catchUpChunkAnn, followChunkAnn, usesChunkAnn } from '#app/services/search/chunk-ann.server.ts'
import { shadowOf, type SourceKind } from '#app/services/search/store.server.ts'
import type { TermContent } from '#app/services/terms/content.server.ts'
import { em } from '#db/orm.ts'
import { parseJson, sqlState } from '#db/sql.ts'
import { failureMessage, OUTAGE, PROBE_WINDOW_MS, RETRY } from './flow.ts'
import { startLoop, type Loop } from './loop.ts'
import { EMBED_BATCH } from './stages/embed.ts'

/**
 * A full reindex run (decision 028): every searchable source is chunked and embedded in large batches (a
 * chunk whose text already has a vector in the space reuses it) into shadow tables, which are then swapped in
 * for the live chunk tables in one transaction. Search answers from the old tables until the swap; saves made
 * meanwhile go through the ordinary pipeline into the live tables and are carried over by the swap.
 *
 * One worker builds a run at a time (its heartbeat id is the run's holder); another takes over at the run's
 * cursor when that worker stops beating. Every batch's rows and the cursor move in one transaction, so a
 * crash loses at most the batch under way. A provider outage pauses the run like the ordinary pipeline (the
 * same pause, `Retry-After` honoured, the same budget); past the budget, or on a permanent provider error or
 * `RETRY.attempts` failures in a row, the run fails and gives its rows back to the ordinary pipeline.
 */

/**
 * `sourcesPerBatch`: sources read, chunked and embedded together. `sliceChunks`: chunks written per
 * transaction. Where the shadow tables get their index (decisions 028 and 035): PostgreSQL builds the HNSW
 * index once after the load, on its own connection while the others serve requests. The embedded engine's
 * tables have none: its process index (chunk-ann.server.ts) reads each slice's rows in the background as the
 * load goes on, and the run catches it up before the swap. PGlite is one backend in this process, so there
 * each slice holds every request for its length (~0.4 ms a chunk): after a slice, requests in flight go first
 * (`letRequestsIn`).
 */
export const RUNNER = {
  pollMs: 2_000,
  sourcesPerBatch: 100,
  sliceChunks: { embedded: 200, server: 2_000 },
  embedConcurrency: 4,
  /** PostgreSQL's `maintenance_work_mem` for building an index: the graph of 100,000 chunks is ~800 MB. */
  buildMemory: '1GB',
  lockTimeoutMs: 5_000,
}

const SHADOW_TABLES = (['term', 'wiki', 'meeting'] as const).map(shadowOf)

export type StepOutcome = 'idle' | 'progress' | 'waiting'

/** Failures in a row of the run this process holds (a worker that takes over starts again at 0). */
const failuresInRow = new Map<string, number>()

/**
 * Does the next piece of the building run on worker `holder`: a batch of sources, the index build, or the swap.
 * `idle` when there is no run for this worker, `waiting` when it waits (search off, a paused provider, a
 * retry's delay), `progress` when it moved on.
 */
export async function runReindexStep(holder: string): Promise<StepOutcome> {
  const run = await takeRun(em(), holder, WORKER_LIVENESS.deadAfterMs)
  if (!run) {
    // The tables a swap replaced go in a transaction of their own (dropping one locks the source table it
    // refers to); one that could not be dropped then is dropped now.
    await dropReplacedTables(em(), RUNNER.lockTimeoutMs)
    return 'idle'
  }
  const state = await searchState()
  if (!state.ready) return 'waiting'
  // The provider's pause is the pipeline's (decision 027): wait it out; once it ended, go on only with the
  // probe (one caller at a time), and only a step that called the provider ends the outage.
  const pause = (await providerPauses(em())).find((p) => p.provider === 'embedding')
  if (pause && (pause.remainingMs > 0 || !(await takeProbe(em(), 'embedding', PROBE_WINDOW_MS))))
    return 'waiting'
  const held = { id: run.id, holder }
  try {
    const called = await step(run, held, state.settings)
    if (pause && called) await clearPause(em(), 'embedding')
    failuresInRow.delete(run.id)
    return 'progress'
  } catch (error) {
    return handleFailure(run, error)
  }
}

/** Does one piece of the run; answers whether it called the provider. */
async function step(
  run: ReindexRun,
  held: { id: string; holder: string },
  settings: SearchSettings,
): Promise<boolean> {
  if (run.cursorKind === 'term' && run.cursorId === null && run.sourcesDone === 0) {
    // A new run (or one whose first worker died before its first batch): fresh shadow tables.
    await em().transactional(async (tx) => {
      await createShadowTables(tx)
      await advanceRun(tx, held, { cursorKind: 'term', cursorId: null })
    })
  }
  if (run.cursorKind === 'index') {
    // PostgreSQL builds the indexes the shadow tables do not have yet (a worker that took the run over may
    // find some built); the embedded engine's process index reads the rows it has not read yet.
    const started = performance.now()
    if (usesChunkAnn()) await catchUpChunkAnn(em(), SHADOW_TABLES)
    else
      for (const kind of ['term', 'wiki', 'meeting'] as const)
        await buildShadowVectorIndex(em(), kind, RUNNER.buildMemory)
    log().info(
      { runId: run.id, ms: Math.round(performance.now() - started) },
      'full reindex vector index built',
    )
    await em().transactional((tx) => advanceRun(tx, held, { cursorKind: 'swap', cursorId: null }))
    return false
  }
  if (run.cursorKind === 'swap') {
    const ready = await em().transactional(async (tx) => {
      await swapShadowTables(tx, run.space, RUNNER.lockTimeoutMs)
      return finishRun(tx, held)
    })
    log().info(
      { runId: run.id, sources: run.sourcesDone, chunks: run.chunksWritten, rows: ready },
      'full reindex swapped in',
    )
    await dropReplacedTables(em(), RUNNER.lockTimeoutMs)
    return false
  }
  return loadBatch(run, held, settings)
}

/**
 * Reads, chunks and embeds the next batch of sources of the run's kind and writes it in slices; answers
 * whether it called the provider.
 */
async function loadBatch(
  run: ReindexRun,
  held: { id: string; holder: string },
  settings: SearchSettings,
): Promise<boolean> {
  const kind = run.cursorKind as SourceKind
  const sources = await sourcesAfter(em(), kind, run.cursorId, RUNNER.sourcesPerBatch)
  if (sources.length === 0) {
    const nextKind = RUN_STEPS[RUN_STEPS.indexOf(kind) + 1]!
    await em().transactional((tx) => advanceRun(tx, held, { cursorKind: nextKind, cursorId: null }))
    return false
  }
  const drafts = sources.map((source) => ({ source, chunks: chunksOf(source, run) }))
  const vectors = await embedMissing(
    run,
    settings,
    drafts.flatMap((d) => d.chunks),
  )
  const called = vectors.size > 0
  const embeddedEngine = usesChunkAnn()
  const sliceChunks = embeddedEngine ? RUNNER.sliceChunks.embedded : RUNNER.sliceChunks.server
  let slice: typeof drafts = []
  let size = 0
  const flush = async () => {
    if (slice.length === 0) return
    const rows: ShadowChunk[] = slice.flatMap(({ source, chunks }) =>
      chunks.map((c, i) => ({
        sourceId: source.id,
        revision: source.revision,
        chunkIndex: i,
        sourceField: c.sourceField,
        startOffset: c.startOffset,
        endOffset: c.endOffset,
        content: c.content,
        contentHash: c.contentHash,
        vector: vectors.get(c.contentHash) ?? null,
      })),
    )
    const sliceStarted = performance.now()
    const embedded = new Set(rows.filter((r) => r.vector).map((r) => r.contentHash)).size
    const last = slice[slice.length - 1]!.source.id
    await em().transactional(async (tx) => {
      await advanceRun(tx, held, {
        cursorKind: kind,
        cursorId: last,
        sources: slice.length,
        chunks: rows.length,
        embedded,
      })
      await writeShadowChunks(tx, kind, run.space, rows)
    })
    // A hash written with its vector is reused by the later slices (and saved from being written twice).
    for (const r of rows) vectors.delete(r.contentHash)
    slice = []
    size = 0
    if (embeddedEngine) {
      followChunkAnn([shadowOf(kind)])
      await letRequestsIn(performance.now() - sliceStarted)
    }
  }
  for (const d of drafts) {
    if (size > 0 && size + d.chunks.length > sliceChunks) await flush()
    slice.push(d)
    size += d.chunks.length
  }
  await flush()
  return called
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/**
 * Between two slices on the embedded engine's one connection. The slice's statements held this process's
 * event loop, so a request that arrived meanwhile is read only now: two turns of the loop let it begin. Then,
 * while requests are in flight, the runner waits until none is, for at most as long as the slice took, so
 * requests get the database at least half the time while they need it, and no time is lost when nobody waits
 * (decision 036: before, it paused as long as the slice after every slice while any request had begun within
 * 2 s, and a full reindex of 100,000 chunks with a search every 250 ms took 290–326 s instead of 233–262 s,
 * the searches no faster).
 */
export async function letRequestsIn(sliceMs: number): Promise<{ pausedMs: number }> {
  await sleep(0)
  await new Promise((resolve) => setImmediate(resolve))
  if (!requestsInFlight()) return { pausedMs: 0 }
  const started = performance.now()
  await whenQuiet(sliceMs)
  return { pausedMs: performance.now() - started }
}

function chunksOf(source: RunSource, run: ReindexRun): ChunkDraft[] {
  return source.kind === 'term'
    ? termChunks(parseJson<TermContent>(source.content), run.chunkSize, run.chunkOverlap)
    : documentChunks(source.title, source.text, run.chunkSize, run.chunkOverlap)
}

/**
 * Vectors of the chunks whose text has none in the run's space yet, by content hash, from the provider in
 * batches of `EMBED_BATCH`, `RUNNER.embedConcurrency` calls at a time. Each text is embedded once.
 */
async function embedMissing(
  run: ReindexRun,
  settings: SearchSettings,
  chunks: readonly ChunkDraft[],
): Promise<Map<string, readonly number[]>> {
  const unique = new Map(chunks.map((c) => [c.contentHash, c.embedText]))
  const known = await knownHashes(em(), run.space, [...unique.keys()])
  const missing = [...unique].filter(([hash]) => !known.has(hash))
  const vectors = new Map<string, readonly number[]>()
  if (missing.length === 0) return vectors
  if (settings.space !== run.space) throw new Error('The search settings changed during the reindex.')
  const batches: (typeof missing)[] = []
  for (let i = 0; i < missing.length; i += EMBED_BATCH) batches.push(missing.slice(i, i + EMBED_BATCH))
  let next = 0
  let failed: { error: unknown } | undefined
  // A failed call ends the step only once the step's other calls have ended too (and no new one starts): the
  // step after it makes the same calls again (same traces), which must never find one still running.
  await Promise.all(
    Array.from({ length: Math.min(RUNNER.embedConcurrency, batches.length) }, async () => {
      while (!failed && next < batches.length) {
        const call = next++
        const batch = batches[call]!
        // One trace per call, the same for whichever worker makes it: the run, where it stands, the call.
        const traceId = `${run.id}:${run.cursorKind}:${run.cursorId ?? 'start'}:${call}`
        const embedder = embedderFor(settings, { purpose: 'index', traceId })
        try {
          const { vectors: got } = await embedder.embed(batch.map(([, text]) => text))
          batch.forEach(([hash], k) => vectors.set(hash, got[k]!))
        } catch (error) {
          failed ??= { error }
        }
      }
    }),
  )
  if (failed) throw failed.error
  return vectors
}

/** A failed step: lost run, provider outage (pause), retry, or the run's failure. */
async function handleFailure(run: ReindexRun, error: unknown): Promise<StepOutcome> {
  if (error instanceof RunLostError) return 'idle'
  const message = failureMessage(error)
  if (error instanceof ProviderError && error.retryable) {
    const retryAfterMs =
      error.retryAfterMs === null ? null : Math.min(error.retryAfterMs, OUTAGE.retryAfterMaxMs)
    const pause = await pauseProvider(em(), 'embedding', retryAfterMs, OUTAGE, message)
    log().warn(
      { runId: run.id, pausedForMs: pause.remainingMs, outageMs: pause.outageMs, reason: message },
      'index provider paused',
    )
    if (pause.outageMs <= OUTAGE.budgetMs) return 'waiting'
    await failRun(run, message)
    return 'idle'
  }
  if (sqlState(error) === '55P03') {
    // The swap waited `lockTimeoutMs` for searches holding the live tables: not a failure, just try again.
    log().info({ runId: run.id }, 'full reindex swap waited for the chunk tables; trying again')
    return 'waiting'
  }
  const failures = (failuresInRow.get(run.id) ?? 0) + 1
  failuresInRow.set(run.id, failures)
  const permanent = error instanceof ProviderError && !error.retryable
  if (!permanent && failures < RETRY.attempts) {
    log().warn({ runId: run.id, failures, reason: message }, 'full reindex step failed; trying again')
    return 'waiting'
  }
  await failRun(run, message)
  return 'idle'
}

/** Ends the run as failed: its rows go back to the ordinary pipeline, its shadow tables are dropped. */
async function failRun(run: ReindexRun, message: string): Promise<void> {
  failuresInRow.delete(run.id)
  log().warn({ runId: run.id, reason: message }, 'full reindex failed; its sources go through the queue')
  await em().transactional((tx) => endBuildingRun(tx, 'failed', message, run.id))
  await dropShadowTables(em())
}

/** Runs the building run's steps on this worker until stopped; idle, it looks again every `RUNNER.pollMs`. */
export function startReindexRunner(holder: string): Loop {
  return startLoop(async () => {
    try {
      // After progress only yield (the web's requests run between two steps); else wait a tick.
      return (await runReindexStep(holder)) === 'progress' ? 0 : RUNNER.pollMs
    } catch (err) {
      log().warn({ err }, 'full reindex step failed; trying again')
      return RUNNER.pollMs
    }
  }, RUNNER.pollMs)
}
