import { data } from '@remix-run/node'
import { AppError } from '#app/lib/errors.server.ts'
import { getTerm, type TermDto } from '#app/services/terms/read.server.ts'

/** Runs a service read; its `not_found` becomes the 404 page. */
export async function orNotFound<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn()
  } catch (error) {
    if (error instanceof AppError && error.code === 'not_found') {
      throw data({ message: error.message }, { status: 404 })
    }
    throw error
  }
}

/** The term of a page address (UUID, current slug or old slug), or the 404 page. */
export function loadTermOr404(idOrSlug: string): Promise<TermDto> {
  return orNotFound(() => getTerm({ idOrSlug }))
}
