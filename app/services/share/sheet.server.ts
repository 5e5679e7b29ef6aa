import type { SheetQuery } from '#app/schemas/share.ts'
import { listClassification } from '#app/services/terms/classification.server.ts'
import { listTerms, type TermListItem } from '#app/services/terms/read.server.ts'
import { SHEET_MAX_ROWS } from '#domain/share.ts'

/**
 * The rows of a shared sheet (spec part 9): the term list's filters, at most SHEET_MAX_ROWS rows in the list's
 * order, the total that matched (so the page can say how many more exist), and the classification names the
 * domain and category columns show.
 */
export async function loadSheet(query: SheetQuery): Promise<{
  items: TermListItem[]
  total: number
  domains: Awaited<ReturnType<typeof listClassification>>['items']
  categories: Awaited<ReturnType<typeof listClassification>>['items']
}> {
  const [list, domains, categories] = await Promise.all([
    listTerms({
      q: query.q,
      status: query.status,
      domain: query.domain,
      category: query.category,
      tag: query.tag,
      page: 1,
      pageSize: SHEET_MAX_ROWS,
    }),
    listClassification({ kind: 'domain' }),
    listClassification({ kind: 'category' }),
  ])
  return { items: list.items, total: list.total, domains: domains.items, categories: categories.items }
}
