import crypto from 'node:crypto'
import type { EntityManager } from '@mikro-orm/postgresql'
import { AppError } from '#app/lib/errors.server.ts'
import { log } from '#app/lib/logger.server.ts'
import type { ListCandidatesQuery, PromoteCandidateInput } from '#app/schemas/candidates.ts'
import { normalizeKey } from '#app/services/matching/normalize.ts'
import { notifyGlossaryChanged } from '#app/services/terms/events.server.ts'
import { bumpGlossaryVersion, loadTermDtos, type TermDto } from '#app/services/terms/store.server.ts'
import { createTermInTx } from '#app/services/terms/write.server.ts'
import { em } from '#db/orm.ts'
import {
  markDecided,
  selectCandidate,
  selectCandidatePage,
  upsertSightings,
  type CandidateDto,
  type CandidateSource,
} from './store.server.ts'

/**
 * Term candidates: notations that look like terms but are not in the glossary.
 *
 * Gathering (docs/decisions/007-validation-and-import.md): acronyms (`[A-Z]{2,}[0-9]*`, e.g. "SLA", "K8S2")
 * and capitalized multi-word phrases ("Data Mesh Platform") found at least twice in the texts of one
 * validation call or in the definitions and bodies of one import, that are not a name or notation of a term.
 * Each keeps a count, the first/last time seen and its last five sightings (source and a short context).
 * A dismissed candidate is never gathered again; promoting one creates a `needs_completion` term.
 */
export type { CandidateDto, CandidateSource }

// ASCII word boundaries (fast on megabytes): Hangul next to an acronym is a boundary, as in "SLA를".
const ACRONYM = /\b[A-Z]{2,}[0-9]*\b/g
const PHRASE = /\b[A-Z][a-z0-9]+(?:[ -][A-Z][a-z0-9]+)+\b/g
/** Capitalized words that start sentences rather than names. */
const LEADING_STOPWORDS = new Set([
  'The',
  'A',
  'An',
  'This',
  'That',
  'These',
  'In',
  'On',
  'At',
  'For',
  'If',
  'We',
  'It',
])
const MAX_PER_CALL = 100
const MAX_SCAN_CHARS = 2_000_000
const CONTEXT = 40

interface Found {
  text: string
  normalized: string
  count: number
  context: string
}

/** Candidate notations in `texts` (pure: no database). Exported for tests and the benchmark. */
export function findCandidates(texts: readonly string[], known: { has(key: string): boolean }): Found[] {
  const found = new Map<string, Found>()
  let budget = MAX_SCAN_CHARS
  for (const text of texts) {
    if (budget <= 0) break
    const scanned = text.length > budget ? text.slice(0, budget) : text
    budget -= scanned.length
    for (const pattern of [ACRONYM, PHRASE]) {
      pattern.lastIndex = 0
      for (const m of scanned.matchAll(pattern)) {
        let value = m[0]
        let index = m.index
        if (pattern === PHRASE) {
          const first = value.split(/[ -]/, 1)[0]!
          if (LEADING_STOPWORDS.has(first)) {
            value = value.slice(first.length + 1)
            index += first.length + 1
            if (!/[ -]/.test(value)) continue
          }
        }
        const normalized = normalizeKey(value)
        const entry = found.get(normalized)
        if (entry) {
          entry.count++
          continue
        }
        const context = scanned
          .slice(Math.max(0, index - CONTEXT), index + value.length + CONTEXT)
          .replace(/\s+/g, ' ')
          .trim()
        found.set(normalized, { text: value, normalized, count: 1, context })
      }
    }
  }
  return [...found.values()]
    .filter((f) => f.count >= 2 && !known.has(f.normalized))
    .sort((a, b) => b.count - a.count)
    .slice(0, MAX_PER_CALL)
}

/**
 * Records candidates seen in `texts`. Failures are logged, not thrown: gathering must never fail the
 * validation or import that triggered it.
 */
export async function gatherCandidates(options: {
  texts: readonly string[]
  source: CandidateSource
  known: { has(key: string): boolean }
}): Promise<number> {
  const found = findCandidates(options.texts, options.known)
  if (found.length === 0) return 0
  const seenAt = new Date().toISOString()
  const rows = found.map((f) => ({
    id: crypto.randomUUID(),
    text: f.text,
    normalized: f.normalized,
    count: f.count,
    sighting: { source: options.source, context: f.context, seenAt },
  }))
  try {
    await upsertSightings(em(), rows)
  } catch (err) {
    log().warn({ err }, 'recording term candidates failed')
    return 0
  }
  return found.length
}

let pending: Promise<unknown> = Promise.resolve()
let queued = 0
const MAX_QUEUED = 20

/**
 * Gathers candidates after the request that saw the texts has been answered (validation must not wait for
 * it). Runs one at a time; under a burst beyond 20 waiting texts, further ones are skipped.
 */
export function gatherCandidatesLater(options: Parameters<typeof gatherCandidates>[0]): void {
  if (queued >= MAX_QUEUED) return
  queued++
  pending = pending
    .then(() => new Promise((resolve) => setImmediate(resolve)))
    .then(() => gatherCandidates(options))
    .catch(() => 0)
    .finally(() => queued--)
}

/** Resolves when no deferred gathering is waiting (tests and the benchmark). */
export async function whenCandidatesIdle(): Promise<void> {
  let current: Promise<unknown>
  do {
    current = pending
    await current
  } while (current !== pending)
}

/**
 * Lists candidates, most frequent first. Open candidates that meanwhile became a name or notation of a term
 * are left out.
 */
export async function listCandidates(
  options: ListCandidatesQuery,
): Promise<{ items: CandidateDto[]; total: number; page: number; pageSize: number }> {
  const q = options.q ? normalizeKey(options.q) : ''
  const { items, total } = await selectCandidatePage(em(), {
    status: options.status,
    hideKnown: options.status === 'open',
    folded: q,
    limit: options.pageSize,
    offset: (options.page - 1) * options.pageSize,
  })
  return { items, total, page: options.page, pageSize: options.pageSize }
}

async function loadCandidate(tx: EntityManager, id: string, lock: boolean): Promise<CandidateDto> {
  const found = await selectCandidate(tx, id, lock)
  if (!found) throw new AppError('not_found', 'No such candidate.')
  return found
}

/** Hides a candidate for good: its text is never gathered again. */
export async function dismissCandidate(options: { id: string; actorId: string }): Promise<CandidateDto> {
  return em().transactional(async (tx) => {
    const row = await loadCandidate(tx, options.id, true)
    if (row.status === 'promoted')
      throw new AppError('conflict', 'This candidate was already promoted to a term.')
    await markDecided(tx, options.id, { status: 'dismissed', actorId: options.actorId })
    return await loadCandidate(tx, options.id, false)
  })
}

/** Creates a `needs_completion` term from a candidate (name = the candidate text unless given). */
export async function promoteCandidate(options: {
  id: string
  input: PromoteCandidateInput
  actorId: string
}): Promise<{ candidate: CandidateDto; term: TermDto }> {
  const result = await em().transactional(async (tx) => {
    const version = await bumpGlossaryVersion(tx)
    const row = await loadCandidate(tx, options.id, true)
    if (row.status !== 'open') throw new AppError('conflict', `This candidate is already ${row.status}.`)
    const termId = await createTermInTx(
      tx,
      {
        name: options.input.name ?? row.text,
        slug: options.input.slug,
        fullName: null,
        nameEn: null,
        nameKo: null,
        notations: [],
        domains: [],
        categories: [],
        tags: [],
        status: 'needs_completion',
        definition: options.input.definition,
        body: '',
        note: options.input.note || `promoted from candidate "${row.text}"`,
      },
      options.actorId,
      version,
    )
    await markDecided(tx, options.id, { status: 'promoted', actorId: options.actorId, termId })
    const [term] = await loadTermDtos(tx, [termId])
    return { candidate: await loadCandidate(tx, options.id, false), term: term! }
  })
  notifyGlossaryChanged()
  return result
}
