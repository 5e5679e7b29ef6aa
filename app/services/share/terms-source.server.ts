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
 */
export const EXPORT_BATCH = 500

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
  await refreshExportStatistics(em())
  for (;;) {
    const manager = em()
    const terms = await selectExportBatch(manager, { after, limit, withBody: options.withBody ?? false })
    if (terms.length === 0) return
    const relations = options.withRelations
      ? await selectApprovedRelationsOf(
          manager,
          terms.map((t) => t.id),
        )
      : []
    yield { terms, relations }
    if (terms.length < limit) return
    after = terms[terms.length - 1]!.content.slug
  }
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
