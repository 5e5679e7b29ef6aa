import type { EntityManager } from '@mikro-orm/postgresql'
import { iso, likeEscape, uuidArray } from '#db/sql.ts'
import type { TermStatus } from '#domain/terms.ts'

/**
 * The SQL of the retrieval service (retrieval.server.ts) beyond the KNN of store.server.ts: the glossary's
 * keyword search over names and notations, the current content of terms that may be evidence, and whether a
 * term's current revision is indexed in a space. Rules (what may be evidence, the fusion) are the service's.
 */

/** The term statuses that may be evidence: active (official) and needs-completion (marked incomplete). */
export const EVIDENCE_TERM_STATUSES: readonly TermStatus[] = ['active', 'needs_completion']

const EVIDENCE_TERMS = `t.deleted_at is null and t.status in ('active', 'needs_completion')`

/**
 * Terms of an evidence status whose names or notations contain one of the folded `words` (the term list's
 * search: `search_text` holds every folded form, with its trigram index), the terms matching more words first,
 * then those where a word is a whole form; ties by name.
 */
export async function termsByKeywords(
  manager: EntityManager,
  words: readonly string[],
  limit: number,
): Promise<string[]> {
  if (words.length === 0) return []
  const contains = words.map(() => 't.search_text like ?').join(' or ')
  const score = words.map(() => 'case when t.search_text like ? then 1 else 0 end').join(' + ')
  const whole = words.map(() => 'case when t.search_text like ? then 1 else 0 end').join(' + ')
  const pattern = (w: string) => `%${likeEscape(w)}%`
  // search_text wraps each folded form in U+0001 (terms/store.server.ts), so a whole form is `\u0001word\u0001`.
  const wholePattern = (w: string) => `%\u0001${likeEscape(w)}\u0001%`
  const rows = await manager.execute<{ id: string }[]>(
    `select t.id from terms t
      where ${EVIDENCE_TERMS} and (${contains})
      order by (${score}) desc, (${whole}) desc, lower(t.name), t.id
      limit ?`,
    [...words.map(pattern), ...words.map(pattern), ...words.map(wholePattern), limit],
  )
  return rows.map((r) => r.id)
}

/** A term as evidence: its current revision's name, status and definition. */
export interface TermEvidenceRow {
  id: string
  slug: string
  name: string
  status: TermStatus
  revision: number
  definition: string
  updated_at: Date | string
}

/** The current revision of the given terms that may be evidence (others are left out), in no order. */
export async function selectEvidenceTerms(
  manager: EntityManager,
  ids: readonly string[],
): Promise<TermEvidenceRow[]> {
  if (ids.length === 0) return []
  const rows = await manager.execute<TermEvidenceRow[]>(
    `select t.id, t.slug, t.name, t.status, t.revision, coalesce(r.content->>'definition', '') as definition,
            t.updated_at
       from terms t join term_revisions r on r.term_id = t.id and r.revision = t.revision
      where ${EVIDENCE_TERMS} and t.id = any(?::uuid[])`,
    [uuidArray(ids)],
  )
  return rows.map((r) => ({ ...r, updated_at: iso(r.updated_at) }))
}

/** Of the given terms, those whose current revision has no chunk in `space` yet (not indexed, or not yet). */
export async function unindexedTerms(
  manager: EntityManager,
  ids: readonly string[],
  space: string,
): Promise<string[]> {
  if (ids.length === 0) return []
  const rows = await manager.execute<{ id: string }[]>(
    `select t.id from terms t
      where t.id = any(?::uuid[])
        and not exists (select 1 from term_chunks c where c.term_id = t.id and c.revision = t.revision and c.model = ?)`,
    [uuidArray(ids), space],
  )
  return rows.map((r) => r.id)
}
