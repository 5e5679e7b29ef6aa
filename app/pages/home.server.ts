import { ListTermsQuerySchema } from '#app/schemas/terms.ts'
import { listCandidates } from '#app/services/candidates/candidates.server.ts'
import { countFailedIndexRows } from '#app/services/index-queue/failed.server.ts'
import { normalizeKey } from '#app/services/matching/normalize.ts'
import { countRelations } from '#app/services/relations/read.server.ts'
import { searchReadiness } from '#app/services/search/settings.server.ts'
import { listClassification } from '#app/services/terms/classification.server.ts'
import { listTerms, recentTerms, type TermListItem } from '#app/services/terms/read.server.ts'
import type { SessionActor } from './session.server.ts'

/**
 * What the home page and `/search`'s name search read (issue 27 item 3): a signed-in user's start — the terms
 * changed last, what waits for the user's role, the first steps of a fresh install — and the search by name or
 * notation, the same `listTerms` search `/terms` runs.
 */

/** How many recently changed terms the home page lists. */
export const RECENT_TERMS = 8
/** How many name matches the home page's search box shows as you type. */
export const NAME_MATCHES = 8

/** The longest text the term list searches for (`ListTermsQuerySchema`); a longer query is cut to it. */
const TERM_QUERY_MAX = 200

/** A term found by its name or a notation: what a result line shows. */
export interface NameMatch {
  id: string
  slug: string
  name: string
  status: TermListItem['status']
  /** The notation that matched when the name itself does not contain the query (`GW` for `Gateway`). */
  notation: string | null
  definition: string
}

/**
 * Terms whose name or notation contains `q` (case, width and Korean forms folded), best first: the search
 * `/terms` runs (`listTerms`), with the notation that matched when the name does not.
 */
export async function findTermsByName(
  q: string,
  options: { limit: number; domain?: string },
): Promise<{ items: NameMatch[]; total: number }> {
  const text = q.slice(0, TERM_QUERY_MAX)
  const query = ListTermsQuerySchema.parse({
    q: text,
    pageSize: options.limit,
    ...(options.domain ? { domain: options.domain } : {}),
  })
  const { items, total } = await listTerms(query)
  const folded = normalizeKey(text)
  return {
    total,
    items: items.map((term) => ({
      id: term.id,
      slug: term.slug,
      name: term.name,
      status: term.status,
      notation:
        folded && !normalizeKey(term.name).includes(folded)
          ? (term.notations.find((n) => normalizeKey(n.text).includes(folded))?.text ?? null)
          : null,
      definition: term.definition,
    })),
  }
}

/** What waits for the user: counts by role (null where the role does not see it). */
export interface HomeQueue {
  /** Relation proposals to review (editors and admins). */
  proposals: number | null
  /** Open term candidates (editors and admins). */
  candidates: number | null
  /** Sources whose index row failed (admins). */
  failedIndexRows: number | null
}

/** The first steps of a fresh install, with what is already done. */
export interface FirstSteps {
  classificationDefined: boolean
  searchOn: boolean
}

/** The signed-in home page's data. `now` lets the page say "2 hours ago" the same on server and browser. */
export async function homeData(actor: SessionActor) {
  const role = actor.user.role
  const reviewer = role === 'editor' || role === 'admin'
  const [recent, readiness, proposals, candidates, failedIndexRows] = await Promise.all([
    recentTerms({ limit: RECENT_TERMS }),
    searchReadiness(),
    reviewer ? countRelations({ status: 'proposed' }) : null,
    reviewer ? listCandidates({ status: 'open', page: 1, pageSize: 1 }).then((l) => l.total) : null,
    role === 'admin' ? countFailedIndexRows() : null,
  ])
  let firstSteps: FirstSteps | null = null
  if (role === 'admin' && recent.length === 0) {
    const [domains, categories] = await Promise.all([
      listClassification({ kind: 'domain' }),
      listClassification({ kind: 'category' }),
    ])
    firstSteps = {
      classificationDefined: domains.items.length + categories.items.length > 0,
      searchOn: readiness.ready,
    }
  }
  const queue: HomeQueue = { proposals, candidates, failedIndexRows }
  return {
    now: new Date().toISOString(),
    meaningSearch: readiness.ready,
    recent: recent.map((term) => ({
      id: term.id,
      slug: term.slug,
      name: term.name,
      status: term.status,
      updatedAt: term.updatedAt,
      updatedBy: term.updatedBy?.name ?? null,
    })),
    queue,
    firstSteps,
  }
}
