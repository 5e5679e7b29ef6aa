import { setImmediate } from 'node:timers/promises'
import { getConfig } from '#app/lib/config.server.ts'
import { selectApprovedRelationsOf, type ApprovedRelation } from '#app/services/relations/store.server.ts'
import {
  refreshExportStatistics,
  selectClassification,
  selectExportBatch,
  type ClassificationDto,
  type ExportTerm,
} from '#app/services/terms/store.server.ts'
import { em } from '#db/orm.ts'

export type { ApprovedRelation, ClassificationDto, ExportTerm }

/**
 * What every export reads: the live, unmerged terms in slug order, one batch at a time (keyset on the slug),
 * so memory stays flat in the number of terms. There is no snapshot across batches: holding a transaction
 * open while a slow client reads would hold the embedded database's only connection (docs/decisions/
 * 019-sharing.md). Each batch is read when the writer asks for it, so a client that stops reading stops the
 * queries too.
 *
 * An export shares the embedded database's one connection and the event loop with every other request, so it
 * takes them in short turns (decision 019, "Round two (issue 26): bounded exports"): one statement of
 * EXPORT_BATCH terms (~5 ms at 2,000 terms; 500 took ~20 ms), then the terms in slices of EXPORT_SLICE, each
 * handed to the writer after a turn of the event loop (the statement too comes after one), so the requests
 * that arrived meanwhile are read and their statements queue before the export's next one. A slice is the CPU
 * the writer spends without a break: TBX, the dearest (xmlbuilder2), takes ~0.5 ms a term.
 */
export const EXPORT_BATCH = 100
export const EXPORT_SLICE = 5

export interface TermBatch {
  terms: ExportTerm[]
  /** Approved relations touching the batch (only when asked for). */
  relations: ApprovedRelation[]
}

export async function* termBatches(
  options: { withBody?: boolean; withRelations?: boolean; batchSize?: number } = {},
): AsyncGenerator<TermBatch> {
  const limit = options.batchSize ?? EXPORT_BATCH
  let after: string | null = null
  await freshExportStatistics()
  for (;;) {
    await nextTurn()
    const manager = em()
    const terms = await selectExportBatch(manager, { after, limit, withBody: options.withBody ?? false })
    if (terms.length === 0) return
    const relations = options.withRelations
      ? await selectApprovedRelationsOf(
          manager,
          terms.map((t) => t.id),
        )
      : []
    for (let start = 0; start < terms.length; start += EXPORT_SLICE) {
      await nextTurn()
      const slice = terms.slice(start, start + EXPORT_SLICE)
      const ids = new Set(slice.map((t) => t.id))
      yield { terms: slice, relations: relations.filter((r) => ids.has(r.sourceId) || ids.has(r.targetId)) }
    }
    if (terms.length < limit) return
    after = terms[terms.length - 1]!.content.slug
  }
}

/**
 * Lets the event loop take a turn (timers, the sockets' reads and writes, other requests) before an export goes
 * on: without it an export whose client reads fast enough runs from batch to batch on promise callbacks alone,
 * and nothing else is served until it ends.
 */
export const nextTurn = (): Promise<void> => setImmediate()

let refreshing: Promise<void> | undefined

/**
 * Planner statistics for the tables the exports walk, refreshed where they are missing or stale
 * (`refreshExportStatistics`); exports starting together share one check.
 */
export function freshExportStatistics(): Promise<void> {
  refreshing ??= refreshExportStatistics(em()).finally(() => (refreshing = undefined))
  return refreshing
}

/** The domains and business categories, in display order (small: read once per export). */
export async function classificationScheme(): Promise<{
  domains: ClassificationDto[]
  categories: ClassificationDto[]
}> {
  const manager = em()
  const [domains, categories] = await Promise.all([
    selectClassification(manager, 'domain'),
    selectClassification(manager, 'category'),
  ])
  return { domains, categories }
}

/**
 * The base of the stable identifiers an export writes (SKOS concept IRIs, TBX links): the first allowed
 * origin, which production configures as the public address of the service (GLOSSARY_ALLOWED_ORIGINS), so
 * the same term has the same IRI whoever downloads the file. Concepts are named by UUID, which survives
 * renames: `<origin>/terms/<uuid>` is also the term's page.
 */
export function exportBase(): string {
  return getConfig().allowedOrigins[0] ?? 'http://localhost'
}

const HANGUL = /\p{Script=Hangul}/u

/** The language of a form: its own tag, else `ko` when it has Hangul, else `en`. */
export function formLang(text: string, lang: string | null): string {
  return lang ?? (HANGUL.test(text) ? 'ko' : 'en')
}
