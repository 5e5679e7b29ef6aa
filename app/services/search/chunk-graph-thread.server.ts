import { createRequire } from 'node:module'
import { Worker } from 'node:worker_threads'
import { log } from '#app/lib/logger.server.ts'

/**
 * The graphs of chunk signs (decision 035) live in a thread of their own (decision 036). Adding a vector to a
 * usearch graph costs ~0.35 ms of native code at 100,000 chunks; in the service's thread that was ~35 s of a
 * full reindex during which PGlite (the same thread) could do nothing, and a search waited behind every slice.
 * Here the service's thread reads the rows and keeps the int8 codes; this thread only adds to, searches and
 * removes from the graphs.
 *
 * - Per graph, its operations run in the order sent. A graph's adds are done a few at a time between other
 *   messages, so a search of one graph never waits behind a long load of another (a reindex's shadow table);
 *   a search first finishes its own graph's adds, so it sees every row sent before it.
 * - If the thread dies, every graph is lost: `onLost` callers start again from nothing (searches are exact
 *   until the graphs are read again), and calls under way reject.
 * - The thread is held open (`ref`) only while a call awaits an answer.
 *
 * Its code is a string evaluated as a CommonJS worker rather than a file of its own: the web server runs from
 * Remix's bundle, where a second entry file would not exist; usearch is required by its resolved path.
 */

/** Adds done in one go before the thread looks at other messages (~10 ms). */
const ADD_SLICE = 32

const THREAD_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads')
const usearch = require(workerData.usearchPath)
const graphs = new Map() // id -> { index, pending: [{ keys, vectors, done, at }] }
let draining = false

function addSome(graph, limit) {
  let left = limit
  while (left > 0 && graph.pending.length) {
    const job = graph.pending[0]
    const n = Math.min(left, job.keys.length - job.at)
    const d = workerData.dimensions
    graph.index.add(job.keys.subarray(job.at, job.at + n), job.vectors.subarray(job.at * d, (job.at + n) * d), 1)
    job.at += n
    left -= n
    if (job.at === job.keys.length) {
      graph.pending.shift()
      parentPort.postMessage({ reply: job.done })
    }
  }
}

function drainLater() {
  if (draining) return
  draining = true
  setImmediate(() => {
    draining = false
    let more = false
    for (const graph of graphs.values()) {
      try {
        addSome(graph, workerData.addSlice)
      } catch (error) {
        const job = graph.pending.shift()
        parentPort.postMessage({ reply: job.done, error: String(error && error.message || error) })
      }
      if (graph.pending.length) more = true
    }
    if (more) drainLater()
  })
}

parentPort.on('message', (m) => {
  let graph = graphs.get(m.id)
  try {
    if (m.op === 'create') {
      graphs.set(m.id, { index: new usearch.Index(m.options), pending: [] })
    } else if (m.op === 'add') {
      graph.pending.push({ keys: m.keys, vectors: m.vectors, done: m.reply, at: 0 })
      drainLater()
    } else if (m.op === 'search') {
      addSome(graph, Infinity)
      const size = graph.index.size()
      const found = size === 0 ? { keys: new BigUint64Array(0) } : graph.index.search(m.query, Math.min(m.k, size), 1)
      parentPort.postMessage({ reply: m.reply, keys: found.keys, size })
    } else if (m.op === 'remove') {
      addSome(graph, Infinity)
      graph.index.remove(m.keys)
    } else if (m.op === 'drop') {
      graphs.delete(m.id)
    }
  } catch (error) {
    if (m.reply !== undefined) parentPort.postMessage({ reply: m.reply, error: String(error && error.message || error) })
  }
})
`

export interface GraphOptions {
  dimensions: number
  connectivity: number
  expansionAdd: number
  expansionSearch: number
}

/** A graph of signs (usearch b1, Hamming) in the thread, keyed by bigint. */
export interface ChunkGraph {
  /** Adds `vectors` (±1 values, `dimensions` per key); resolves once they are in the graph. */
  add(keys: BigUint64Array, vectors: Float32Array): Promise<void>
  /** The keys of the `k` nearest, and how many the graph holds. */
  search(query: Float32Array, k: number): Promise<{ keys: BigUint64Array; size: number }>
  remove(keys: BigUint64Array): void
  drop(): void
}

interface Thread {
  worker: Worker
  waiting: Map<number, { resolve: (m: Reply) => void; reject: (e: Error) => void }>
}

interface Reply {
  reply: number
  error?: string
  keys?: BigUint64Array
  size?: number
}

let thread: Thread | undefined
let nextId = 1
let nextReply = 1
const lostListeners = new Set<() => void>()

/** `listener` runs when the thread dies and every graph with it. */
export function onGraphsLost(listener: () => void): void {
  lostListeners.add(listener)
}

function threadOf(dimensions: number): Thread {
  if (thread) return thread
  const worker = new Worker(THREAD_SOURCE, {
    eval: true,
    workerData: {
      usearchPath: createRequire(import.meta.url).resolve('usearch'),
      dimensions,
      addSlice: ADD_SLICE,
    },
  })
  worker.unref()
  const started: Thread = { worker, waiting: new Map() }
  worker.on('message', (m: Reply) => {
    const waiter = started.waiting.get(m.reply)
    if (!waiter) return
    started.waiting.delete(m.reply)
    if (started.waiting.size === 0) worker.unref()
    if (m.error !== undefined) waiter.reject(new Error(`chunk graph: ${m.error}`))
    else waiter.resolve(m)
  })
  const lose = (error: unknown) => {
    if (thread !== started) return
    thread = undefined
    log().warn({ err: error }, 'chunk graph thread ended; the graphs are read again from the tables')
    for (const waiter of started.waiting.values()) waiter.reject(new Error('The chunk graph thread ended.'))
    started.waiting.clear()
    for (const listener of lostListeners) listener()
  }
  worker.on('error', lose)
  worker.on('exit', (code) => lose(new Error(`exit code ${code}`)))
  thread = started
  return started
}

function call(t: Thread, message: Record<string, unknown>, transfer: ArrayBuffer[] = []): Promise<Reply> {
  const reply = nextReply++
  return new Promise<Reply>((resolve, reject) => {
    if (t.waiting.size === 0) t.worker.ref()
    t.waiting.set(reply, { resolve, reject })
    t.worker.postMessage({ ...message, reply }, transfer)
  })
}

export function createChunkGraph(options: GraphOptions): ChunkGraph {
  const t = threadOf(options.dimensions)
  const id = nextId++
  t.worker.postMessage({
    op: 'create',
    id,
    options: {
      dimensions: options.dimensions,
      metric: 'hamming',
      quantization: 'b1',
      connectivity: options.connectivity,
      expansion_add: options.expansionAdd,
      expansion_search: options.expansionSearch,
      multi: false,
    },
  })
  const alive = () => {
    if (thread !== t) throw new Error('The chunk graph thread ended.')
    return t
  }
  return {
    async add(keys, vectors) {
      // The arrays are handed over, not copied: the caller made them for this call.
      await call(alive(), { op: 'add', id, keys, vectors }, [
        keys.buffer as ArrayBuffer,
        vectors.buffer as ArrayBuffer,
      ])
    },
    async search(query, k) {
      const m = await call(alive(), { op: 'search', id, query, k })
      return { keys: m.keys!, size: m.size! }
    },
    remove(keys) {
      if (thread === t) t.worker.postMessage({ op: 'remove', id, keys })
    },
    drop() {
      if (thread === t) t.worker.postMessage({ op: 'drop', id })
    },
  }
}

/** Ends the thread as a crash would (its graphs are lost and read again): for the tests of that path. */
export async function endChunkGraphThread(): Promise<void> {
  await thread?.worker.terminate()
}
