/**
 * Term matching: find every occurrence of every notation in a document (pure code, no database).
 * See docs/decisions/002-term-matching.md for the rules and the measurements behind the design.
 */
export { buildMatcher, type Match, type Matcher, type MatcherEntry, type MatcherStats } from './matcher.ts'
export { lineColumnAt, type LineColumn } from './line-column.ts'
export { normalizeKey, normalizeText } from './normalize.ts'
export { isKoreanParticle } from './korean-particles.ts'
