import { orErrorPage } from '#app/lib/pages.server.ts'
import { getTerm, type TermDto } from '#app/services/terms/read.server.ts'

/** The term of a page address (UUID, current slug or old slug), or the 404 page. */
export function loadTermOr404(idOrSlug: string): Promise<TermDto> {
  return orErrorPage(() => getTerm({ idOrSlug }))
}
