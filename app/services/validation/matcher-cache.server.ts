import { log } from '#app/lib/logger.server.ts'
import { compileNotationsOffThread, onCompileFallback } from '#app/services/matching/compile-worker.ts'
import { matcherFromCompiled, type Matcher, type MatcherEntry } from '#app/services/matching/matcher.ts'
import { onGlossaryChanged } from '#app/services/terms/events.server.ts'
import { readGlossaryVersion } from '#app/services/terms/store.server.ts'
import { em, observesCommittedChanges, onCommittedChange } from '#db/orm.ts'
import type { NotationKind, TermStatus } from '#domain/terms.ts'

/**
 * The in-memory matcher of this process (docs/decisions/007-validation-and-import.md).
 *
 * - Built from every name and notation of every `active`, `needs_completion` and `deprecated` term (merged
 *   and deleted terms are out), plus a Map normalized notation → entries for exact lookups.
 * - Requests never rebuild. Most take the current snapshot; only the first request of a cold process waits for
 *   the first build. Answers that must reflect every committed save (validation and lookup: a tool saves a
 *   term, then validates) use `getFresh`, which waits for a rebuild under way, at most `FRESH_WAIT_MS`, and
 *   then answers with the snapshot it has, saying which glossary version that is.
 * - After a local save commits, `onGlossaryChanged` schedules a background rebuild (coalesced: saves during a
 *   build cause exactly one more build). Other processes' saves are noticed through the glossary version
 *   counter, read at most once per second, in the background, when a request uses the cache. On the embedded
 *   database no other process writes, and a trigger's `glossary_changed` notification at commit says when
 *   the counter moved (a save of this process that did not go through `onGlossaryChanged`), so the counter is
 *   read only then: a query a second on the web thread put 2–4 ms stalls into lookups.
 */

export interface TermRef {
  id: string
  slug: string
  name: string
  nameKo: string | null
  status: TermStatus
}

export interface FormPayload {
  term: TermRef
  /** The notation as written in the glossary. */
  text: string
  kind: NotationKind
}

export interface MatcherSnapshot {
  /** The glossary version the snapshot was built from. */
  version: number
  matcher: Matcher<FormPayload>
  byKey: Map<string, FormPayload[]>
  terms: number
  forms: number
  builtAt: Date
  /** Milliseconds spent reading changed forms from the database. */
  loadMs: number
  /** Milliseconds from the start of the rebuild until the snapshot was ready (load + matcher build). */
  buildMs: number
}

const VERSION_CHECK_INTERVAL_MS = 1000
const REBUILD_DELAY_MS = 20
/** How long a validation waits for a newer glossary's matcher before answering with the one it has. */
export const FRESH_WAIT_MS = 2000

/** A snapshot handed to an answer, and whether it reflects the newest committed glossary version. */
export interface FreshSnapshot {
  snapshot: MatcherSnapshot
  /** False when the wait ran out while a newer glossary version was still being compiled. */
  upToDate: boolean
}

interface FormRow {
  term_id: string
  slug: string
  name: string
  name_ko: string | null
  status: TermStatus
  text: string
  normalized: string
  kind: NotationKind
}

interface TermForms {
  ref: TermRef
  /**
   * A form's payload is made once and kept while its term is unchanged, so what is derived from it and kept
   * per payload (the facts of findings.server.ts) survives other terms' saves; a changed term is read
   * again, with new payloads.
   */
  forms: { normalized: string; payload: FormPayload }[]
}

const FORM_SELECT = `select n.term_id, t.slug, t.name, t.name_ko, t.status, n.text, n.normalized, n.kind
  from term_notations n join terms t on t.id = n.term_id
 where t.deleted_at is null and t.status in ('active', 'needs_completion', 'deprecated')`

/**
 * The matchable forms of the glossary, kept between builds so a rebuild reads only the terms changed since
 * (rows whose `change_version` is above the version already loaded; see store.server.ts).
 */
export class FormStore {
  private terms = new Map<string, TermForms>()
  private loaded = -1

  /**
   * Brings the store up to date; returns the glossary version it now reflects and whether any form changed
   * (a version bump by a transaction that changed no term, e.g. an identical save, changes nothing).
   */
  async refresh(): Promise<{ version: number; changed: boolean }> {
    const manager = em()
    const version = await readGlossaryVersion(manager)
    let changed = false
    if (this.loaded < 0) {
      this.terms.clear()
      this.add(await manager.execute<FormRow[]>(FORM_SELECT))
      changed = true
    } else if (version !== this.loaded) {
      const rows = await manager.execute<{ id: string }[]>('select id from terms where change_version > ?', [
        this.loaded,
      ])
      if (rows.length) {
        changed = true
        for (const r of rows) this.terms.delete(r.id)
        const list = `{${rows.map((r) => r.id).join(',')}}`
        this.add(await manager.execute<FormRow[]>(`${FORM_SELECT} and t.id = any(?::uuid[])`, [list]))
      }
    }
    this.loaded = version
    return { version, changed }
  }

  private add(rows: FormRow[]): void {
    for (const r of rows) {
      let entry = this.terms.get(r.term_id)
      if (!entry) {
        entry = {
          ref: { id: r.term_id, slug: r.slug, name: r.name, nameKo: r.name_ko, status: r.status },
          forms: [],
        }
        this.terms.set(r.term_id, entry)
      }
      entry.forms.push({ normalized: r.normalized, payload: { term: entry.ref, text: r.text, kind: r.kind } })
    }
  }

  /** A matcher and lookup map over the current forms; the automaton is compiled on a worker thread. */
  async build(version: number, started: number, loaded = performance.now()): Promise<MatcherSnapshot> {
    const entries: MatcherEntry<FormPayload>[] = []
    const byKey = new Map<string, FormPayload[]>()
    for (const { ref, forms } of this.terms.values()) {
      for (const { normalized, payload } of forms) {
        entries.push({ id: entries.length, text: payload.text, payload, owner: ref.id })
        const list = byKey.get(normalized)
        if (list) list.push(payload)
        else byKey.set(normalized, [payload])
      }
    }
    const compiled = await compileNotationsOffThread(entries.map((entry) => entry.text))
    return {
      version,
      matcher: matcherFromCompiled(entries, compiled),
      byKey,
      terms: this.terms.size,
      forms: entries.length,
      builtAt: new Date(),
      loadMs: loaded - started,
      buildMs: performance.now() - started,
    }
  }
}

/** Loads every matchable form from scratch and builds a snapshot (the benchmark uses it). */
export async function buildSnapshot(): Promise<MatcherSnapshot> {
  const started = performance.now()
  const store = new FormStore()
  return store.build((await store.refresh()).version, started)
}

export class MatcherCache {
  private store = new FormStore()
  private current: MatcherSnapshot | undefined
  private building: Promise<MatcherSnapshot> | undefined
  private dirty = false
  private scheduled = false
  private lastCheck = 0
  private checking = false
  /** A committed change was notified (embedded database) and the counter was not read since. */
  private changeNotified = false

  /** The current snapshot; waits only when none was ever built in this process. */
  async get(): Promise<MatcherSnapshot> {
    if (!this.current) return this.building ?? this.rebuild()
    if (this.changeNotified || !observesCommittedChanges()) this.checkVersionSoon()
    return this.current
  }

  /** The glossary version moved in a committed transaction (or the database closed): read it on next use. */
  noteCommittedChange(): void {
    this.changeNotified = true
    this.lastCheck = 0
  }

  /**
   * The snapshot of the newest committed glossary: when a save is not compiled yet, waits for the rebuild, at
   * most `maxWaitMs`, then answers with the current snapshot marked `upToDate: false`.
   *
   * Which saves it knows of: on the embedded database this process is the only writer (the data folder is
   * locked to it), so its own pending rebuild is the whole truth and no query is needed. On PostgreSQL other
   * processes write too, so the committed glossary version is read first (one indexed row).
   */
  async getFresh(options: { maxWaitMs?: number; sharedDatabase?: boolean } = {}): Promise<FreshSnapshot> {
    const deadline = performance.now() + (options.maxWaitMs ?? FRESH_WAIT_MS)
    let snapshot = await this.get()
    let target = snapshot.version
    if (options.sharedDatabase ?? !observesCommittedChanges()) {
      const committed = await withDeadline(readGlossaryVersion(em()), deadline)
      if (committed === undefined) return { snapshot, upToDate: false }
      target = committed
      if (target > snapshot.version) this.invalidate()
    }
    const pending = () => this.dirty || this.scheduled || this.building !== undefined
    while ((pending() || snapshot.version < target) && performance.now() < deadline) {
      await withDeadline<unknown>(this.building ?? sleep(REBUILD_DELAY_MS), deadline)
      snapshot = this.current ?? snapshot
    }
    return { snapshot, upToDate: !pending() && snapshot.version >= target }
  }

  /** Marks the snapshot stale and rebuilds in the background. */
  invalidate(): void {
    this.dirty = true
    if (this.building || this.scheduled) return
    this.scheduled = true
    // A short delay coalesces bursts of saves into one build (the automaton itself compiles on a worker
    // thread, so the build does not occupy this event loop).
    setTimeout(() => {
      this.scheduled = false
      void this.rebuild().catch((err: unknown) => log().error({ err }, 'matcher rebuild failed'))
    }, REBUILD_DELAY_MS)
  }

  /** Resolves once no rebuild is running or pending (tests and the benchmark use it). */
  async whenIdle(): Promise<MatcherSnapshot | undefined> {
    while (this.building || this.dirty || this.scheduled || this.checking) {
      if (this.building) await this.building.catch(() => undefined)
      else await new Promise((resolve) => setImmediate(resolve))
    }
    return this.current
  }

  /** Forgets everything (tests that swap databases). */
  reset(): void {
    this.store = new FormStore()
    this.current = undefined
    this.dirty = false
    this.lastCheck = 0
    this.changeNotified = false
  }

  private rebuild(): Promise<MatcherSnapshot> {
    if (this.building) return this.building
    this.dirty = false
    const started = performance.now()
    const run = this.store
      .refresh()
      .then(({ version, changed }) =>
        !changed && this.current
          ? { ...this.current, version }
          : this.store.build(version, started, performance.now()),
      )
      .then((snapshot) => {
        this.current = snapshot
        log().debug({ terms: snapshot.terms, forms: snapshot.forms, ms: snapshot.buildMs }, 'matcher built')
        return snapshot
      })
      .finally(() => {
        this.building = undefined
        if (this.dirty) this.invalidate()
      })
    this.building = run
    return run
  }

  /** At most once a second, compare the database's glossary version with the snapshot's, in the background. */
  private checkVersionSoon(): void {
    const now = Date.now()
    if (this.checking || now - this.lastCheck < VERSION_CHECK_INTERVAL_MS) return
    this.lastCheck = now
    this.checking = true
    this.changeNotified = false
    readGlossaryVersion(em())
      .then((version) => {
        if (this.current && version !== this.current.version) this.invalidate()
      })
      .catch((err: unknown) => log().warn({ err }, 'glossary version check failed'))
      .finally(() => {
        this.checking = false
      })
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms))
}

/** The promise's value, or undefined once the deadline (a `performance.now()` time) has passed. */
async function withDeadline<T>(promise: Promise<T>, deadline: number): Promise<T | undefined> {
  const remaining = deadline - performance.now()
  if (remaining <= 0) return undefined
  let timer: NodeJS.Timeout | undefined
  const timeout = new Promise<undefined>(
    (resolve) => (timer = setTimeout(() => resolve(undefined), remaining)),
  )
  try {
    return await Promise.race([promise.catch(() => undefined), timeout])
  } finally {
    clearTimeout(timer)
  }
}

/** The process-wide cache. */
export const matcherCache = new MatcherCache()
onCompileFallback((err) =>
  log().warn({ err }, 'matcher compiler thread unavailable; compiling on the main thread'),
)
onGlossaryChanged(() => matcherCache.invalidate())
onCommittedChange('glossary_changed', () => matcherCache.noteCommittedChange())
