import fs from 'node:fs'
import { fileURLToPath } from 'node:url'
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads'
import { compileNotations, type CompiledNotations } from './matcher.ts'

/**
 * Compiles matchers on a worker thread, so that rebuilding the automaton after a save (0.1–0.3 s at 10,000
 * terms, seconds at 100,000) never holds up the requests the main thread is answering. The worker runs this
 * module: its own small build in production (`compilerEntry`), through tsx from source in tests and development.
 * If the worker cannot start, compiling falls back to the calling thread (slower, never wrong).
 */
const ROLE = 'glossary-matcher-compiler'

interface Request {
  id: number
  texts: string[]
}
type Reply = { id: number; compiled: CompiledNotations } | { id: number; error: string }

if (!isMainThread && (workerData as { role?: string } | null)?.role === ROLE) {
  parentPort!.on('message', (request: Request) => {
    try {
      const compiled = compileNotations(request.texts)
      const { tables } = compiled
      const buffers = new Set<ArrayBufferLike>([
        tables.rec.buffer,
        tables.ch.buffer,
        tables.fail.buffer,
        tables.dict.buffer,
        tables.rootNext.buffer,
        compiled.groupOf.buffer,
      ])
      parentPort!.postMessage({ id: request.id, compiled } satisfies Reply, [...buffers] as ArrayBuffer[])
    } catch (error) {
      parentPort!.postMessage({ id: request.id, error: String(error) } satisfies Reply)
    }
  })
}

let worker: Worker | undefined
let unavailable = false
let nextId = 1
const pending = new Map<number, { resolve: (c: CompiledNotations) => void; reject: (e: Error) => void }>()

function failAll(error: Error): void {
  for (const { reject } of pending.values()) reject(error)
  pending.clear()
  worker = undefined
}

/**
 * The file the thread runs. From the server build, the compiler's own build beside it
 * (`build/server/matcher-compiler.js`, vite.config.ts): the whole server build would load every module of the
 * app into the thread (0.9 s and ~140 MB, against 35 ms and ~18 MB). This module itself when that file is
 * missing (a build made without it), or from source.
 */
export function compilerEntry(self = new URL(import.meta.url)): URL {
  if (self.pathname.endsWith('.ts')) return self
  const own = new URL('./matcher-compiler.js', self)
  return own.href !== self.href && fs.existsSync(fileURLToPath(own)) ? own : self
}

function compiler(): Worker {
  if (worker) return worker
  const entry = compilerEntry()
  // From source (tests, `npm run dev`) this module is TypeScript: the worker registers tsx's loader first
  // (an `--import tsx` exec argument does not reach worker threads on Node 20).
  const started = entry.pathname.endsWith('.ts')
    ? new Worker(
        `import('tsx/esm/api').then(({ register }) => { register(); return import(${JSON.stringify(entry.href)}) })`,
        { eval: true, workerData: { role: ROLE } },
      )
    : new Worker(entry, { workerData: { role: ROLE } })
  started.unref()
  started.on('message', (reply: Reply) => {
    const waiting = pending.get(reply.id)
    if (!waiting) return
    pending.delete(reply.id)
    if ('error' in reply) waiting.reject(new Error(reply.error))
    else waiting.resolve(reply.compiled)
  })
  started.on('error', (error) => failAll(error))
  started.on('exit', () => failAll(new Error('the matcher compiler thread stopped')))
  worker = started
  return started
}

/** Where the last compile ran (tests assert the worker path; operators can log it). */
export let lastCompileThread: 'worker' | 'main' | undefined

/** `compileNotations(texts)` on the worker thread, or on this one if the worker is unavailable. */
export async function compileNotationsOffThread(texts: string[]): Promise<CompiledNotations> {
  if (!unavailable) {
    try {
      const compiled = await new Promise<CompiledNotations>((resolve, reject) => {
        const id = nextId++
        pending.set(id, { resolve, reject })
        compiler().postMessage({ id, texts } satisfies Request)
      })
      lastCompileThread = 'worker'
      return compiled
    } catch (error) {
      unavailable = true
      onFallback?.(error)
    }
  }
  lastCompileThread = 'main'
  return compileNotations(texts)
}

/** Told once when the worker fails and compiling falls back to the main thread. */
let onFallback: ((error: unknown) => void) | undefined
export function onCompileFallback(listener: (error: unknown) => void): void {
  onFallback = listener
}

/** Stops the worker (graceful shutdown, tests). */
export async function stopCompileWorker(): Promise<void> {
  const current = worker
  worker = undefined
  if (current) await current.terminate()
}
