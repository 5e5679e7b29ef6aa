import {
  asciiBytes as ascii,
  MAX_JSON_BYTES_PER_UNIT,
  writeAscii,
  writeStringMember as writeMember,
} from '#app/lib/json-bytes.ts'

/** What a recognized use says (findings.server.ts's `UseFacts`), as JSON members: a match or an occurrence. */
export interface UseFactsJson {
  notation: string
  term: { id: string; slug: string; name: string; status: string }
  kind: string
  finding: string
  preferred: string | null
}

/**
 * The members of what a recognized use says (findings.server.ts): `"notation":…,"term":{…},"kind":…,
 * "finding":…,"preferred":…`, in that order, without the braces or comma around them. The term lookup's match
 * is these members alone (lookup-answer.server.ts) and an occurrence of `POST /validate` holds them after its
 * position and text (validate-answer.server.ts); both encoders write them here.
 */
export function writeUseFactsMembers(out: Buffer, at: number, facts: UseFactsJson): number {
  const { term } = facts
  at = writeMember(out, at, NOTATION, facts.notation)
  at = writeMember(out, at, TERM_ID, term.id)
  at = writeMember(out, at, SLUG, term.slug)
  at = writeMember(out, at, NAME, term.name)
  at = writeMember(out, at, STATUS, term.status)
  at = writeMember(out, at, KIND, facts.kind)
  at = writeMember(out, at, FINDING, facts.finding)
  if (facts.preferred === null) return writeAscii(out, at, PREFERRED_NULL)
  return writeMember(out, at, PREFERRED, facts.preferred)
}

/** At most the bytes `writeUseFactsMembers` writes for `facts`. */
export function useFactsBound(facts: UseFactsJson): number {
  const { term } = facts
  const units =
    facts.notation.length +
    term.id.length +
    term.slug.length +
    term.name.length +
    term.status.length +
    facts.kind.length +
    facts.finding.length +
    (facts.preferred?.length ?? 0)
  return FRAME + MAX_JSON_BYTES_PER_UNIT * units
}

const NOTATION = ascii('"notation":')
const TERM_ID = ascii(',"term":{"id":')
const SLUG = ascii(',"slug":')
const NAME = ascii(',"name":')
const STATUS = ascii(',"status":')
const KIND = ascii('},"kind":')
const FINDING = ascii(',"finding":')
const PREFERRED = ascii(',"preferred":')
const PREFERRED_NULL = ascii(',"preferred":null')
/** More than the constant bytes (member names, quotes, punctuation). */
const FRAME = 128
