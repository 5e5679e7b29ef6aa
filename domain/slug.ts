import { isUuid } from './ids.ts'

/**
 * The one slug rule. Terms and wiki pages share one address namespace (a wiki page may never take a term's
 * current or old slug), so a name must become the same slug whichever of the two it names; otherwise
 * `Node.js` could be the term `node-js` and the page `nodejs`, and the collision check would never see them.
 *
 * The rule: NFKC (full-width and compatibility forms fold to their plain letters), lowercase, then every run
 * of anything but a letter (any script: Unicode Ll, Lo) or a decimal digit (Nd) becomes ONE hyphen; hyphens
 * are trimmed from both ends; at most SLUG_MAX_LENGTH characters (cut, then trailing hyphens trimmed again).
 * A name with no letter or digit becomes `untitled`; a result shaped like a UUID gets the prefix `id-`,
 * because an address that looks like a UUID is read as an id (`GET /terms/{idOrSlug}`). Both words are the
 * same for terms and pages, so even these names give one slug whatever they name.
 *
 *   "Node.js 가이드 (v2)" → "node-js-가이드-v2"   "API 게이트웨이: 소개!" → "api-게이트웨이-소개"
 *   "ＡＰＩ 설계 — 원칙" (full-width letters) → "api-설계-원칙"     "?!" → "untitled"
 */
export const SLUG_MAX_LENGTH = 100
const EMPTY_NAME_SLUG = 'untitled'
const UUID_SHAPED_PREFIX = 'id-'

/** The slug a term's name or a wiki page's title gives when no slug is chosen. */
export function slugFromName(name: string): string {
  const slug = name
    .normalize('NFKC')
    .toLowerCase()
    .replace(/[^\p{Ll}\p{Lo}\p{Nd}]+/gu, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, SLUG_MAX_LENGTH)
    .replace(/-+$/g, '')
  if (!slug) return EMPTY_NAME_SLUG
  return isUuid(slug) ? `${UUID_SHAPED_PREFIX}${slug}` : slug
}
