import type { EntityManager } from '@mikro-orm/postgresql'
import { AppError } from '#app/lib/errors.server.ts'
import { WIKI_RESERVED_SLUGS } from '#app/schemas/wiki.ts'
import { termsAtAddress } from '#app/services/terms/store.server.ts'
import { slugFromName } from '#domain/slug.ts'
import { selectPageSlugsLike } from './store.server.ts'

/**
 * Wiki page addresses. A title becomes a slug by the one slug rule terms use too (domain/slug.ts), so a
 * page titled like a term gets the term's slug and is refused below: "Node.js 가이드" → "node-js-가이드".
 * Slugs never equal a term's current or old slug (409 `slug_taken`), so a name always means one thing.
 */

async function isTermSlug(tx: EntityManager, slug: string): Promise<boolean> {
  return (await termsAtAddress(tx, slug)).length > 0
}

function slugTaken(slug: string, byTerm: boolean): AppError {
  return new AppError(
    'slug_taken',
    byTerm
      ? `The address "${slug}" is a term's address; choose another slug for the page.`
      : `The address "${slug}" is already used by another wiki page.`,
    {
      details: { problems: [{ path: 'slug', message: byTerm ? 'used by a term' : 'used by another page' }] },
    },
  )
}

/**
 * The slug of a new page. A slug the caller chose must be free (no page, no term has it). A generated one
 * takes the first free `-2`, `-3`… suffix among pages, but is refused when it equals a term's slug: the
 * caller then names the page's address explicitly.
 */
export async function chooseWikiSlug(
  tx: EntityManager,
  title: string,
  explicit: string | undefined,
): Promise<string> {
  if (explicit !== undefined) {
    if (await isTermSlug(tx, explicit)) throw slugTaken(explicit, true)
    if ((await selectPageSlugsLike(tx, explicit)).includes(explicit)) throw slugTaken(explicit, false)
    return explicit
  }
  const base = slugFromName(title)
  if (await isTermSlug(tx, base)) throw slugTaken(base, true)
  const taken = new Set([...(await selectPageSlugsLike(tx, base)), ...WIKI_RESERVED_SLUGS])
  for (let n = 1; ; n++) {
    const candidate = n === 1 ? base : `${base}-${n}`
    if (taken.has(candidate)) continue
    if (n > 1 && (await isTermSlug(tx, candidate))) continue
    return candidate
  }
}
