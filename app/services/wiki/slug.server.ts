import { WIKI_RESERVED_SLUGS } from '#app/schemas/wiki.ts'
import type { EntityManager } from '@mikro-orm/postgresql'
import { AppError } from '#app/lib/errors.server.ts'

/**
 * Wiki page addresses. A slug made from a title keeps Hangul (and every other script), lowercases,
 * turns spaces and separators into single hyphens and drops punctuation and symbols:
 * "API 게이트웨이: 소개!" → "api-게이트웨이-소개", "Node.js 가이드" → "nodejs-가이드".
 * Slugs never equal a term's current or old slug (409 `slug_taken`), so a name always means one thing.
 */

const UUID_LIKE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

export function wikiSlugFromTitle(title: string): string {
  const slug = title
    .normalize('NFKC')
    .toLowerCase()
    .replace(/[\s_/\\|~·–—-]+/gu, '-')
    .replace(/[^\p{Ll}\p{Lo}\p{Nd}-]+/gu, '')
    .replace(/-{2,}/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 100)
    .replace(/-+$/g, '')
  if (!slug) return 'page'
  return UUID_LIKE.test(slug) ? `page-${slug}` : slug
}

export async function isTermSlug(tx: EntityManager, slug: string): Promise<boolean> {
  const rows = await tx.execute<{ one: number }[]>(
    `select 1 as one from terms where slug = ? and deleted_at is null
     union all select 1 from term_old_slugs where slug = ? limit 1`,
    [slug, slug],
  )
  return rows.length > 0
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
    const rows = await tx.execute<{ id: string }[]>('select id from wiki_pages where slug = ?', [explicit])
    if (rows.length) throw slugTaken(explicit, false)
    return explicit
  }
  const base = wikiSlugFromTitle(title)
  if (await isTermSlug(tx, base)) throw slugTaken(base, true)
  const rows = await tx.execute<{ slug: string }[]>(
    `select slug from wiki_pages where slug = ? or slug like ? escape '\\'`,
    [base, `${base.replace(/[\\%_]/g, (c) => `\\${c}`)}-%`],
  )
  const taken = new Set([...rows.map((r) => r.slug), ...WIKI_RESERVED_SLUGS])
  for (let n = 1; ; n++) {
    const candidate = n === 1 ? base : `${base}-${n}`
    if (taken.has(candidate)) continue
    if (n > 1 && (await isTermSlug(tx, candidate))) continue
    return candidate
  }
}
