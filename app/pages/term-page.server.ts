import { ListRelationsQuerySchema, RELATION_LIMITS } from '#app/schemas/relations.ts'
import { ListWikiQuerySchema } from '#app/schemas/wiki.ts'
import { listRelations } from '#app/services/relations/read.server.ts'
import { getTerm, type TermDto } from '#app/services/terms/read.server.ts'
import { listWikiPages } from '#app/services/wiki/read.server.ts'
import { orErrorPage } from './forms.server.ts'

/** The term of a page address (UUID, current slug or old slug), or the 404 page. */
export function loadTermOr404(idOrSlug: string): Promise<TermDto> {
  return orErrorPage(() => getTerm({ idOrSlug }))
}

/** At most this many approved relations are drawn on a term page (the review queue lists all). */
const MAX_RELATIONS = 100

/**
 * What a term page shows of its neighbourhood: approved relations (the official ones), the number of
 * proposals waiting, and the wiki pages linking the term (archived ones left out).
 */
export async function loadTermLinks(termId: string) {
  const approved = []
  for (let page = 1; approved.length < MAX_RELATIONS; page++) {
    const result = await listRelations(ListRelationsQuerySchema.parse({ termId, status: 'approved', page }))
    approved.push(...result.items)
    if (page * RELATION_LIMITS.pageSize >= result.total) break
  }
  const proposed = await listRelations(ListRelationsQuerySchema.parse({ termId, status: 'proposed' }))
  const wiki = await listWikiPages(ListWikiQuerySchema.parse({ termId, pageSize: 50 }))
  return { relations: approved, proposedCount: proposed.total, wikiPages: wiki.items }
}
