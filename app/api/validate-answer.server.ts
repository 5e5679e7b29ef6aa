import {
  asciiBytes as ascii,
  COMMA,
  CLOSE_ARRAY,
  CLOSE_OBJECT,
  MAX_JSON_BYTES_PER_UNIT,
  MAX_JSON_NUMBER_BYTES,
  ScratchBuffer,
  writeAscii,
  writeNumber,
  writeStringMember as writeMember,
} from '#app/lib/json-bytes.ts'
import type { Occurrence } from '#app/schemas/validation.ts'
import { useFactsBound, writeUseFactsMembers } from './use-facts-json.server.ts'

/**
 * The UTF-8 JSON of `POST /validate`'s answer, written member by member straight into one buffer, as the
 * term lookup's is (lookup-answer.server.ts). The answer to a 1 MB text holds ~4,000 occurrences (0.6 MB);
 * `JSON.stringify` made it a two-byte string as soon as one Korean notation was in it, and encoding that string
 * to UTF-8 cost more than making it: in process 7.1–9.4 ms for both, against 2.5–4.4 ms for this writer
 * (decision 013, session 12).
 *
 * Written for `Occurrence` member by member, in the order validate.server.ts makes them (the use's facts by
 * use-facts-json.server.ts, as the lookup's matches are); the unit test compares with `JSON.stringify`, and an
 * API test compares the answer with `JSON.stringify` of the service's own result, so a member added there and
 * not here fails. The members after `occurrences` (the summary, the glossary's version) are small and written
 * by `JSON.stringify`.
 */
export function encodeValidateAnswer(answer: {
  occurrences: readonly Occurrence[]
  [member: string]: unknown
}): Buffer {
  const { occurrences, ...rest } = answer
  const tail = JSON.stringify(rest)
  let bound = HEAD.length + 2 + 3 * tail.length
  for (let i = 0; i < occurrences.length; i++) bound += 1 + occurrenceBound(occurrences[i]!)
  return scratch.written(bound, (out) => {
    let at = writeAscii(out, 0, HEAD)
    for (let i = 0; i < occurrences.length; i++) {
      if (i > 0) out[at++] = COMMA
      at = writeOccurrence(out, at, occurrences[i]!)
    }
    out[at++] = CLOSE_ARRAY
    // `{"summary":…}` becomes `,"summary":…}`; `{}` (nothing after the occurrences) becomes `}`.
    if (tail.length > 2) out[at++] = COMMA
    return at + out.write(tail.slice(1), at, 'utf8')
  })
}

const scratch = new ScratchBuffer()

const HEAD = ascii('{"occurrences":[')
const START = ascii('{"start":')
const END = ascii(',"end":')
const LINE = ascii(',"line":')
const COLUMN = ascii(',"column":')
const TEXT = ascii(',"text":')
const SEVERITY = ascii(',"severity":')
/** More than an occurrence's constant bytes besides its use's facts (names, punctuation) and its four numbers. */
const OCCURRENCE_FRAME = 64 + 4 * MAX_JSON_NUMBER_BYTES

function occurrenceBound(o: Occurrence): number {
  return OCCURRENCE_FRAME + MAX_JSON_BYTES_PER_UNIT * (o.text.length + o.severity.length) + useFactsBound(o)
}

function writeOccurrence(out: Buffer, at: number, o: Occurrence): number {
  at = writeNumber(out, writeAscii(out, at, START), o.start)
  at = writeNumber(out, writeAscii(out, at, END), o.end)
  at = writeNumber(out, writeAscii(out, at, LINE), o.line)
  at = writeNumber(out, writeAscii(out, at, COLUMN), o.column)
  at = writeMember(out, at, TEXT, o.text)
  out[at++] = COMMA
  at = writeUseFactsMembers(out, at, o)
  at = writeMember(out, at, SEVERITY, o.severity)
  out[at++] = CLOSE_OBJECT
  return at
}
